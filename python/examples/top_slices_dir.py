"""The top slices by total duration across a directory of traces (any
format, one Dask partition per file): complete events, and B/E pairs
matched per track."""
import collections
import os
import sys

import pandas as pd
import tread.dask


def totals(df):
    total = collections.Counter(df[df.kind == "complete"].groupby("name", observed=True)
                                ["dur"].sum().to_dict())
    stacks = collections.defaultdict(list)
    be = df[df.kind != "complete"]
    for kind, ts, name, track in zip(be.kind, be.ts, be.name,
                                     zip(be.track.fillna(-1), be.pid, be.tid)):
        if kind == "slice_begin":
            stacks[track].append((name, ts))
        elif stacks[track]:
            begin_name, begin_ts = stacks[track].pop()
            total[begin_name] += ts - begin_ts
    return pd.Series(total, dtype="int64")


ddf = tread.dask.read_traces(os.path.join(sys.argv[1], "*"), names=False,
                             columns=["kind", "ts", "dur", "name", "pid", "tid", "track"],
                             kinds={"complete", "slice_begin", "slice_end"})
top = ddf.map_partitions(totals, meta=pd.Series(dtype="int64")).compute()
for name, ns in top.groupby(level=0).sum().nlargest(10).items():
    print(f"{ns / 1e6:12.3f} ms  {name}")
