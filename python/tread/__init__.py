"""Streaming reader for Chrome JSON, Perfetto, Fuchsia (FXT), ftrace and
systrace traces (libtread). See doc/python.md.

tread.open() and tread.stats() come from the C extension tread._tread;
tread.frame() makes a pandas DataFrame from columns filled in C;
tread.dask.read_traces() reads many traces as a Dask DataFrame.
"""
from tread._tread import (COLUMNS, FORMATS, KINDS, Error, Event, FormatError, LimitError,
                          ParseError, Reader, TreadWarning, __version__, _live_parsers, open,
                          stats)
from tread._frame import DEFAULT_COLUMNS, frame

__all__ = ["open", "stats", "frame", "Event", "Reader", "Error", "ParseError",
           "FormatError", "LimitError", "TreadWarning", "KINDS", "FORMATS", "COLUMNS",
           "DEFAULT_COLUMNS", "__version__"]
