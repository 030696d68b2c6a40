"""Per-rank GPU busy time of a multi-rank PyTorch-style trace set (one
trace per rank, GPU kernels as complete events of category "kernel"):
the union of each rank's kernel intervals, as HTA's temporal breakdown
counts it. Usage: rank_busy.py GLOB [CATEGORY]"""
import os
import sys

import pandas as pd
import tread.dask

cat = sys.argv[2] if len(sys.argv) > 2 else "kernel"


def busy(df):
    # sorted intervals: each adds what reaches past the ends before it
    df = df.sort_values("ts")
    end = (df.ts + df.dur).astype("int64")
    before = end.cummax().shift(fill_value=0)
    start = df.ts.astype("int64").where(df.ts.astype("int64") > before, before)
    return pd.Series({df.file.iloc[0]: int((end - start).clip(lower=0).sum())} if len(df)
                     else {}, dtype="int64")


ddf = tread.dask.read_traces(sys.argv[1], columns=["ts", "dur", "cat"], names=False,
                             kinds={"complete"})
ns = ddf[ddf.cat == cat].map_partitions(busy, meta=pd.Series(dtype="int64")).compute()
for rank, v in sorted((os.path.basename(f), v) for f, v in ns.items()):
    print(f"{rank:<12} {v / 1e6:12.3f} ms")
