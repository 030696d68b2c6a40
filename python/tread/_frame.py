"""tread.frame(): a pandas DataFrame of a trace's events, from the columns
tread._tread._frame() fills in C (python/py_frame.c; doc/python.md).

Nothing here runs per event: each column arrives as a C array that
numpy.frombuffer wraps without a copy, and the DataFrame is made without
consolidating them (copy=False), so the frame's memory is the arrays'.
"""
from tread import _tread

DEFAULT_COLUMNS = ("kind", "ts", "dur", "name", "cat", "pid", "tid", "track", "id",
                   "value", "format")

_NEEDS = ("tread.frame needs pandas and numpy (on Debian: apt-get install "
          "python3-pandas python3-numpy)")


def _modules():
    try:
        import numpy
        import pandas
    except ImportError as e:
        raise ImportError("%s: %s" % (_NEEDS, e), name=e.name) from e
    return numpy, pandas


_WIDTH = {1: "int8", 2: "int16", 4: "int32"}


def _column(np, pd, spec, rows):
    kind = spec[0]
    if kind in ("int", "uint"):
        dtype = "int64" if kind == "int" else "uint64"
        values = np.frombuffer(spec[1], dtype=dtype, count=rows)
        mask = np.frombuffer(spec[2], dtype=np.bool_, count=rows)
        cls = pd.arrays.IntegerArray
        return cls(values, mask, copy=False)
    if kind == "float":
        return np.frombuffer(spec[1], dtype="float64", count=rows)
    if kind == "uint64":
        return np.frombuffer(spec[1], dtype="uint64", count=rows)
    codes = np.frombuffer(spec[1], dtype=_WIDTH[spec[3]], count=rows)
    dtype = pd.CategoricalDtype(pd.Index(spec[2], dtype=object), ordered=False)
    return pd.Categorical.from_codes(codes, dtype=dtype)


def _arg_column(np, pd, spec, rows):
    """An argument column from its tags and 8-byte values: Int64 when every
    value is an integer, float64 when they are numbers, boolean, a
    categorical of str, else object (mixed types)."""
    tags = np.frombuffer(spec[0], dtype=np.uint8, count=rows)
    raw = np.frombuffer(spec[1], dtype=np.uint8, count=rows * 8)
    cats = spec[2]
    present = set(np.unique(tags).tolist()) - {0, 6}
    missing = ~np.isin(tags, list(present)) if present else np.ones(rows, dtype=bool)
    if not present:
        return pd.array([None] * rows, dtype="object") if rows else \
            pd.array([], dtype="object")
    i64, u64, f64 = raw.view(np.int64), raw.view(np.uint64), raw.view(np.float64)
    if present == {1} or (present <= {1, 2} and not (u64[tags == 2] >> 63).any()):
        return pd.arrays.IntegerArray(i64, missing, copy=False)
    if present == {2}:
        return pd.arrays.IntegerArray(u64, missing, copy=False)
    if present <= {1, 2, 3}:
        out = np.where(tags == 3, f64, np.where(tags == 2, u64.astype(np.float64),
                                                i64.astype(np.float64)))
        out[missing] = np.nan
        return out
    if present == {4}:
        return pd.arrays.BooleanArray(i64 != 0, missing, copy=False)
    if present == {5}:
        codes = np.where(tags == 5, i64, -1).astype(np.int32)
        return pd.Categorical.from_codes(codes, categories=pd.Index(cats, dtype=object))
    out = np.empty(rows, dtype=object)
    for i, t in enumerate(tags.tolist()):
        out[i] = (None, int(i64[i]), int(u64[i]), float(f64[i]), bool(i64[i]),
                  cats[int(i64[i])] if t == 5 else None, None)[t]
    return out


def frame(source, columns=None, args=None, **filters):
    """frame(source, columns=None, args=None, **filters) -> pandas.DataFrame

    The events of a trace as a DataFrame, one row per event, built in C in
    column batches (no Python object per event). source: as tread.open().
    columns: names from tread.COLUMNS (default tread.DEFAULT_COLUMNS:
    kind, ts, dur, name, cat, pid, tid, track, id, value, format). args:
    argument keys ("data.frame" for nested ones) to pull out as columns
    of the same name, decoding only those; a dict {key: dtype} also casts
    them. filters: the keyword options of tread.open() (kinds,
    name_prefix, cat_prefix, start, end, format, the parser limits,
    warnings ...), applied in C. Needs pandas and numpy."""
    np, pd = _modules()
    if isinstance(columns, str):
        raise TypeError("columns: a list of column names, not a str")
    columns = DEFAULT_COLUMNS if columns is None else tuple(columns)
    if isinstance(args, str):
        raise TypeError("args: a list of argument keys, not a str")
    dtypes = dict(args) if isinstance(args, dict) else {}
    keys = tuple(args or ())
    clash = set(keys) & set(columns)
    if clash:
        raise ValueError("args: %s also named in columns" % ", ".join(sorted(clash)))
    if len(set(columns)) != len(columns) or len(set(keys)) != len(keys):
        raise ValueError("columns and args: a name is given twice")
    if "args" in filters:
        raise TypeError("frame(): args is the list of argument keys")
    try:
        raw = _tread._frame(source, columns, keys, **filters)
    except _tread.Error as e:
        # which file, for a set of traces read by tread.dask
        if isinstance(source, (str, bytes)) or hasattr(source, "__fspath__"):
            import os
            e.file = os.fsdecode(source)
            e.args = ("%s: %s" % (e.file, e.args[0] if e.args else e),)
        raise
    rows = raw["rows"]
    data = {}
    for name in columns:
        data[name] = _column(np, pd, raw["columns"][name], rows)
    for key in keys:
        data[key] = _arg_column(np, pd, raw["args"][key], rows)
    # no columns=: with it pandas goes through an object Series of the arrays
    df = pd.DataFrame(data, copy=False)
    for key, dtype in dtypes.items():
        if dtype is not None:
            df[key] = df[key].astype(dtype)
    return df
