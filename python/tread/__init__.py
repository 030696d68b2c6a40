"""tread: read trace files as streams, in bounded memory (libtread).

Formats: Chrome JSON (with its ftrace text and systrace HTML), Perfetto
protobuf, Fuchsia FXT, ftrace text and Android systrace HTML; plain or
gzip/zstd compressed; the format is sniffed from the first bytes.

    import tread
    for ev in tread.open("trace.json.gz", kinds={"complete"}, name="v8.*",
                         start="1.5s", end="2s"):
        print(ev.name, ev.ts, ev.dur, ev.args)   # times in ns
    tread.stats("trace.pftrace")["events"]        # `tread stats --json`
    tread.frame("trace.fxt")                       # a pandas DataFrame

open(source, format=None, **options) -> Reader
    The events, one tread.Event at a time (a context manager; .stats()).
    Filters run in C, before any Python object exists, and mean what
    `tread cat`'s mean: kinds (tread.KINDS), name / cat (a prefix, or a
    glob when they hold * ? or [), name_prefix / cat_prefix (prefixes),
    pid, tid (int or iterable), start / end (ns, or '1.5s', '200ms').
    Other options: args=False, warnings=None|'ignore'|callable,
    chunk_size, and the parser's limits (max_event_bytes, max_depth, ...).
stats(source, format=None, top=10, **options) -> dict
    What `tread stats --json` prints.
frame(source, columns=None, args=None, **filters) -> pandas.DataFrame
    Columns filled in C (needs pandas and numpy); tread.dask reads many
    traces as a Dask DataFrame.
Event
    Fields as attributes (kind, ts, dur, name, cat, pid, tid, args, ...;
    None when absent), to_dict(); picklable.
Errors: tread.Error (.code, .offset: the offending byte, .message) and its
subclasses ParseError, FormatError, LimitError; skipped damage is a
tread.TreadWarning (a UserWarning) and is counted in the stats.

Every function has a signature (inspect.signature, help(tread.open)) and
the package is typed (py.typed, _tread.pyi). The full reference is
doc/python.md, installed with the module in the package's doc directory
(tread._tread.__doc__ names it).
"""
from tread._tread import (COLUMNS, FORMATS, KINDS, Error, Event, FormatError, LimitError,
                          ParseError, Reader, TreadWarning, __version__, _live_parsers, open,
                          stats)
from tread._frame import DEFAULT_COLUMNS, frame

__all__ = ["open", "stats", "frame", "Event", "Reader", "Error", "ParseError",
           "FormatError", "LimitError", "TreadWarning", "KINDS", "FORMATS", "COLUMNS",
           "DEFAULT_COLUMNS", "__version__"]
