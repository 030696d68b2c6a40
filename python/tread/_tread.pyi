# Type stubs for the C extension tread._tread (python/py_*.c), which the
# package tread re-exports (doc/python.md). python/tests/test_typing.py
# checks these names and signatures against the module as built.
from os import PathLike
from typing import IO, Any, Callable, Iterable, Iterator, Optional, Union

__version__: str
KINDS: tuple[str, ...]
FORMATS: tuple[str, ...]
COLUMNS: tuple[str, ...]

_Source = Union[str, bytes, PathLike[str], PathLike[bytes], IO[bytes]]
_Patterns = Union[str, Iterable[str]]
_Ids = Union[int, Iterable[int]]
_Time = Union[int, str]
_WarningHandler = Union[None, str, Callable[[str, int, str], Any]]

class Error(Exception):
    code: str
    offset: int
    message: str

class ParseError(Error): ...
class FormatError(Error): ...
class LimitError(Error): ...
class TreadWarning(UserWarning): ...

class Event:
    kind: str
    format: str
    phase: Optional[str]
    ts: Optional[int]
    dur: Optional[int]
    end: Optional[int]
    tts: Optional[int]
    tdur: Optional[int]
    pid: Optional[int]
    tid: Optional[int]
    pid_str: Optional[str]
    tid_str: Optional[str]
    cpu: Optional[int]
    name: Optional[str]
    cat: Optional[str]
    id: Optional[str]
    id_num: Optional[int]
    id_scope: Optional[str]
    bind_id: Optional[str]
    cname: Optional[str]
    scope: Optional[str]
    sf: Optional[str]
    esf: Optional[str]
    stack: Optional[list[Any]]
    estack: Optional[list[Any]]
    parent: Optional[str]
    tidelta: Optional[int]
    ticount: Optional[int]
    series: Optional[str]
    value: Union[int, float, None]
    value_text: Optional[str]
    meta: Optional[str]
    meta_str: Optional[str]
    meta_num: Optional[int]
    args: Optional[dict[str, Any]]
    track_uuid: Optional[int]
    track_kind: Optional[str]
    seq_id: Optional[int]
    raw_ts: Optional[int]
    clock_id: Optional[int]
    flow_ids: tuple[int, ...]
    terminating_flow_ids: tuple[int, ...]
    flow_in: bool
    flow_out: bool
    provider_id: Optional[int]
    provider_name: Optional[str]
    offset: int
    flags: int
    def to_dict(self) -> dict[str, Any]: ...
    def __reduce__(self) -> tuple[Any, ...]: ...

class Reader(Iterator[Event]):
    @property
    def format(self) -> Optional[str]: ...
    @property
    def closed(self) -> bool: ...
    def __iter__(self) -> Reader: ...
    def __next__(self) -> Event: ...
    def close(self) -> None: ...
    def stats(self) -> dict[str, Any]: ...
    def __enter__(self) -> Reader: ...
    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any, /) -> bool: ...

def open(source: _Source, /, format: Optional[str] = None, *,
         kinds: Optional[Iterable[str]] = None, name_prefix: Optional[_Patterns] = None,
         cat_prefix: Optional[_Patterns] = None, name: Optional[_Patterns] = None,
         cat: Optional[_Patterns] = None, pid: Optional[_Ids] = None,
         tid: Optional[_Ids] = None, start: Optional[_Time] = None,
         end: Optional[_Time] = None, args: bool = True,
         warnings: _WarningHandler = None, chunk_size: int = 262144,
         max_depth: Optional[int] = None, max_event_bytes: Optional[int] = None,
         max_string_bytes: Optional[int] = None, max_line_bytes: Optional[int] = None,
         max_decompressed_bytes: Optional[int] = None,
         max_interned_bytes: Optional[int] = None,
         max_tracedat_meta_bytes: Optional[int] = None, max_warnings: Optional[int] = None,
         zstd_window_log_max: Optional[int] = None, lenient: Optional[bool] = None,
         decompress: Optional[bool] = None, json_fast_path: Optional[bool] = None,
         read_thread: Optional[bool] = None, range_begin: Optional[int] = None,
         range_end: Optional[int] = None) -> Reader: ...

def stats(source: _Source, /, format: Optional[str] = None, *, top: int = 10,
          warnings: _WarningHandler = None, max_depth: Optional[int] = None,
          max_event_bytes: Optional[int] = None, max_string_bytes: Optional[int] = None,
          max_line_bytes: Optional[int] = None, max_decompressed_bytes: Optional[int] = None,
          max_interned_bytes: Optional[int] = None,
         max_tracedat_meta_bytes: Optional[int] = None, max_warnings: Optional[int] = None,
          zstd_window_log_max: Optional[int] = None, lenient: Optional[bool] = None,
          decompress: Optional[bool] = None, json_fast_path: Optional[bool] = None,
          read_thread: Optional[bool] = None, range_begin: Optional[int] = None,
          range_end: Optional[int] = None) -> dict[str, Any]: ...

class _Buffer: ...

def _frame(source: _Source, columns: Any, arg_keys: Any, format: Optional[str] = None,
           **options: Any) -> dict[str, Any]: ...
def _event(fields: dict[str, Any], flags: int, /) -> Event: ...
def _live_parsers() -> int: ...
