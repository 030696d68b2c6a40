import collections, sys, tread

total, stacks = collections.Counter(), collections.defaultdict(list)
for ev in tread.open(sys.argv[1], kinds={"complete", "slice_begin", "slice_end"}):
    track = ev.track_uuid if ev.track_uuid is not None else (ev.pid, ev.tid)
    if ev.kind == "complete":
        total[ev.name] += ev.dur or 0
    elif ev.kind == "slice_begin":
        stacks[track].append((ev.name, ev.ts))
    elif stacks[track]:
        name, ts = stacks[track].pop()
        total[name] += ev.ts - ts
for name, ns in total.most_common(10):
    print(f"{ns / 1e6:12.3f} ms  {name}")
