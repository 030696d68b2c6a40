"""tread.dask: many traces, and large ones in byte ranges, as one Dask
DataFrame (doc/python.md).

read_traces() makes one partition per file, or per byte range of a large
file that supports ranges (FXT, Chrome JSON, and Chrome JSON in gzip:
range_begin/range_end, tread(3)); each
partition is a tread.frame() run on a worker, in bounded memory. Process
and thread names are resolved within each file and joined to its rows
as the columns process_name and thread_name; the column file says where
each row came from. Works with any Dask scheduler whose workers can
import tread (the threaded default: the parse releases the lock; or
distributed.Client).
"""
import glob as _glob
import io
import os

import tread

try:
    import dask
    import dask.dataframe as dd
except ImportError as e:  # the module imports without Dask; read_traces says why
    _DASK_ERROR = e
else:
    _DASK_ERROR = None

# FXT's magic number record, as its first 8 bytes (little endian)
_FXT_MAGIC = bytes.fromhex("1000044678541600")
# what a compressed file starts with: its byte offsets are not the trace's
_COMPRESSED = (b"\x1f\x8b", b"\x28\xb5\x2f\xfd")
_NAME_COLUMNS = ("kind", "meta", "meta_str", "pid", "tid", "track_kind")
# options that are not filters: they apply to the metadata pass as well
_FILTERS = ("kinds", "name_prefix", "cat_prefix", "start", "end")


def _need_dask():
    if _DASK_ERROR is not None:
        raise ImportError("tread.dask needs dask[dataframe] (on Debian: apt-get install "
                          "python3-dask python3-pandas; python3-distributed for a "
                          "cluster): %s" % _DASK_ERROR, name=_DASK_ERROR.name)


def expand(paths):
    """The files of paths: a glob (str or os.PathLike) or a list of them,
    each glob sorted; a path that exists is taken as it is."""
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    out = []
    for p in paths:
        p = os.fsdecode(p)
        if os.path.exists(p):
            out.append(p)
            continue
        found = sorted(_glob.glob(p))
        if not found:
            raise FileNotFoundError("no trace matches %r" % p)
        out.extend(found)
    return out


def _ranged_format(head, fmt, gzipped=False):
    """Whether a trace that begins with head (its first 64 KiB, decompressed)
    is of a format with byte ranges: FXT (its magic; uncompressed only), or
    Chrome JSON: a bare array, or an object whose first 64 KiB name
    traceEvents (a .cpuprofile, also an object, has none)."""
    if head[:8] == _FXT_MAGIC:
        return fmt in (None, "fxt") and not gzipped
    if fmt not in (None, "json"):
        return False
    text = head.lstrip(b"\xef\xbb\xbf").lstrip(b" \t\r\n")
    return text[:1] == b"[" or (text[:1] == b"{" and (fmt == "json" or b'"traceEvents"' in head))


def _gzip_holds(path, size):
    """What a gzip file holds, from its trailer (ISIZE: the last member's
    size mod 2^32, so a guess for a file of several members: the cuts are
    then uneven, the partitions still whole), as `tread stats` reads it."""
    if size < 18:
        return 0
    with open(path, "rb") as f:
        f.seek(size - 4)
        isize = int.from_bytes(f.read(4), "little")
    if size >= 4 << 20:
        while isize < size:
            isize += 1 << 32
    return isize


def ranges(path, partition_bytes, fmt=None):
    """[(begin, end), ...] byte ranges of path for partitions of about
    partition_bytes, or [(None, None)] (the whole file) when the file is
    small or of a format without byte ranges (those with them: FXT and
    Chrome JSON, and Chrome JSON in gzip, whose ranges are offsets in what
    it holds: each partition inflates the file from its start)."""
    size = os.path.getsize(path)
    if not partition_bytes:
        return [(None, None)]
    with open(path, "rb") as f:
        head = f.read(65536)
    gzipped = head[:2] == _COMPRESSED[0]
    if gzipped:
        import gzip
        try:
            with gzip.open(path, "rb") as g:
                head = g.read(65536)
        except (OSError, EOFError):
            return [(None, None)]  # damaged: one pass says what is wrong
        size = _gzip_holds(path, size)
    elif head[:4] == _COMPRESSED[1]:
        return [(None, None)]
    if size <= partition_bytes or not _ranged_format(head, fmt, gzipped):
        return [(None, None)]
    cuts = list(range(0, size, int(partition_bytes)))
    return [(b, e) for b, e in zip(cuts, cuts[1:] + [None])]


def _keeps_metadata(filters):
    kinds = filters.get("kinds")
    return (kinds is None or "metadata" in kinds) and filters.get("name_prefix") is None \
        and filters.get("cat_prefix") is None


def names_from(df):
    """({pid: process name}, {(pid, tid): thread name}) from the metadata
    rows of a frame with the columns of _NAME_COLUMNS: process_name and
    thread_name records, and Perfetto thread and process track
    descriptors; the last name given wins."""
    import numpy as np
    procs, threads = {}, {}
    m = df[(df["kind"] == "metadata") & df["meta_str"].notna() & df["pid"].notna()]
    for meta, name, pid, tid, tk in zip(m["meta"].astype(object), m["meta_str"].astype(object),
                                        m["pid"].astype(object), m["tid"].astype(object),
                                        m["track_kind"].astype(object)):
        if meta == "process_name" or (meta == "track_descriptor" and tk == "process"):
            procs[int(pid)] = name
        elif (meta == "thread_name" or (meta == "track_descriptor" and tk == "thread")) \
                and tid is not None and tid is not np.nan and not _isna(tid):
            threads[(int(pid), int(tid))] = name
    return procs, threads


def _isna(x):
    try:
        import pandas as pd
        return pd.isna(x)
    except (TypeError, ValueError):
        return False


def names_of(path, **options):
    """names_from() of a whole file: one pass that keeps only the metadata
    events (options: format and the parser limits)."""
    opts = {k: v for k, v in options.items()
            if k not in _FILTERS and k not in ("range_begin", "range_end")}
    return names_from(tread.frame(path, _NAME_COLUMNS, kinds={"metadata"}, **opts))


def _join_names(df, procs, threads):
    import numpy as np
    import pandas as pd
    na = np.iinfo(np.int64).min
    pid = df["pid"].to_numpy(dtype="int64", na_value=na) if "pid" in df else None
    tid = df["tid"].to_numpy(dtype="int64", na_value=na) if "tid" in df else None
    out = {}
    for col, table, keys in (("process_name", procs, (pid,)), ("thread_name", threads,
                                                                (pid, tid))):
        cats = list(dict.fromkeys(table.values()))
        if any(k is None for k in keys) or not table or not len(df):
            out[col] = pd.Categorical.from_codes(np.full(len(df), -1, dtype=np.int8),
                                                 categories=pd.Index(cats, dtype=object))
            continue
        code = {n: i for i, n in enumerate(cats)}
        tkeys = list(table.keys())
        codes = np.array([code[table[k]] for k in tkeys], dtype=np.int64)
        if len(keys) == 1:
            idx = pd.Index(np.array(tkeys, dtype=np.int64)).get_indexer(keys[0])
        else:
            idx = pd.MultiIndex.from_tuples(tkeys).get_indexer(
                pd.MultiIndex.from_arrays(list(keys)))
        out[col] = pd.Categorical.from_codes(np.where(idx >= 0, codes[idx], -1),
                                             categories=pd.Index(cats, dtype=object))
    return out


def read_partition(path, begin, end, file_names, columns, keys, dtypes, filters, all_files,
                   name_table=None):
    """One partition: tread.frame() of path (or of its byte range), with
    the argument columns cast, the names joined and the file column."""
    import pandas as pd
    opts = dict(filters)
    if begin is not None:
        opts["range_begin"] = begin
        if end is not None:
            opts["range_end"] = end
    extra = []
    if file_names:
        # the join needs pid and tid; resolving here, the metadata columns
        need = _NAME_COLUMNS if name_table is None else ("pid", "tid")
        extra = [c for c in need if c not in columns]
    df = tread.frame(path, list(columns) + extra, args=list(keys), **opts)
    if file_names:
        if name_table is None:
            name_table = names_from(df)
        joined = _join_names(df, *name_table)  # on pid and tid, before they go
        if extra:
            df = df.drop(columns=extra)
        for col, values in joined.items():
            df[col] = values
    for key in keys:
        dtype = dtypes.get(key)
        df[key] = df[key].astype(dtype if dtype is not None else object)
    import numpy as np
    code = all_files.index(path)
    width = np.int8 if len(all_files) < 127 else np.int16 if len(all_files) < 32767 \
        else np.int32
    df["file"] = pd.Categorical.from_codes(np.full(len(df), code, dtype=width),
                                           categories=pd.Index(all_files, dtype=object))
    return df


def _meta(columns, keys, dtypes, file_names, all_files):
    """The empty frame every partition looks like (dtypes; categoricals
    other than kind, format, meta, track_kind, scope and file with their
    categories unknown)."""
    df = tread.frame(io.BytesIO(b"[]"), columns, args=list(keys), format="json")
    for key in keys:
        dtype = dtypes.get(key)
        df[key] = df[key].astype(dtype if dtype is not None else object)
    import pandas as pd
    if file_names:
        for col in ("process_name", "thread_name"):
            df[col] = pd.Categorical([], categories=pd.Index([], dtype=object))
    df["file"] = pd.Categorical([], categories=pd.Index(all_files, dtype=object))
    from dask.dataframe.utils import clear_known_categories
    fixed = ("kind", "format", "meta", "track_kind", "scope", "file")
    unknown = [c for c in df.columns
               if isinstance(df[c].dtype, pd.CategoricalDtype) and c not in fixed]
    return clear_known_categories(df, cols=unknown) if unknown else df


def read_traces(paths, columns=None, args=None, partition_bytes=None, names=True,
                **filters):
    """read_traces(paths, columns=None, args=None, partition_bytes=None,
    names=True, **filters) -> dask.dataframe.DataFrame

    The events of many traces as one Dask DataFrame. paths: a glob or a
    list of paths/globs (pieces of `tread split` are traces like any
    other). One partition per file; an FXT or JSON file (JSON in gzip too)
    larger than partition_bytes gets one partition per byte range of that
    size.
    columns, args, filters: as tread.frame() (argument columns are object
    unless args is a dict {key: dtype}). names: add process_name and
    thread_name, resolved within each file. A column file (categorical)
    names each row's file. A file that fails raises its tread.Error (with
    .file and .offset) from compute(); no partition is dropped."""
    _need_dask()
    columns = tuple(tread.DEFAULT_COLUMNS if columns is None else columns)
    dtypes = dict(args) if isinstance(args, dict) else {}
    keys = tuple(args or ())
    files = expand(paths)
    if not files:
        raise FileNotFoundError("read_traces: no paths given")
    fmt = filters.get("format")
    keep = _keeps_metadata(filters)
    parts = []
    for path in files:
        rs = ranges(path, partition_bytes, fmt)
        table = None
        if names and (len(rs) > 1 or not keep):
            # a pass over the whole file for its names, shared by its ranges
            table = dask.delayed(names_of, pure=True)(path, **filters)
        for begin, end in rs:
            parts.append(dask.delayed(read_partition, pure=True)(
                path, begin, end, names, columns, keys, dtypes, filters, files,
                name_table=table))
    meta = _meta(columns, keys, dtypes, names, files)
    return dd.from_delayed(parts, meta=meta, verify_meta=False)
