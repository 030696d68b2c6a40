#!/usr/bin/env python3
"""Independent expansion of the V8 CPU profiles of a trace, for review.

  json_profile_oracle.py FILE        what doc/formats/json.md section 8 (and
                                     doc/formats/cpuprofile.md) say tread
                                     delivers, read with Python's json
  json_profile_oracle.py --tread     the same lines made from `tread cat`'s
                                     NDJSON on standard input

One line per stack frame ("frame ID parent=P name=N") and per sample
("sample ts=NS sf=ID pid=P tid=T"), in delivery order. Only events of the
profiles are listed (a trace's other samples and stackFrames are not).
No tread code is involved in the first form: tests/cpuprofile.sh diffs
the two.
"""
import gzip
import json
import sys


def num(v):
    """A JSON number or numeric string as an int (fractions round half away
    from zero), else None."""
    if isinstance(v, bool) or v is None:
        return None
    try:
        from decimal import Decimal, ROUND_HALF_UP
        d = Decimal(str(v).strip())
        return int(d.to_integral_value(rounding=ROUND_HALF_UP))
    except Exception:
        return None


def us_to_ns(v):
    if isinstance(v, bool) or v is None:
        return None
    try:
        from decimal import Decimal, ROUND_HALF_UP
        d = Decimal(str(v).strip()) * 1000
        return int(d.to_integral_value(rounding=ROUND_HALF_UP))
    except Exception:
        return None


class Profiles:
    def __init__(self, out):
        self.out = out
        self.taken = False   # the last event given to event() was a profile's
        self.state = {}   # key -> [ts or None, seen set, inferred parents]
        self.cpu = 0

    def frame(self, prefix, st, n):
        nid = num(n.get('id'))
        if nid is None:
            return
        seen, parents = st[1], st[2]
        if nid in seen:
            return
        parent = num(n['parent']) if 'parent' in n else None
        if parent is None:
            parent = parents.get(nid)
        seen.add(nid)
        for c in n.get('children', []) or []:
            c = num(c)
            if c is not None and c not in parents:
                parents[c] = nid
        cf = n.get('callFrame') if isinstance(n.get('callFrame'), dict) else {}
        name = cf.get('functionName')
        self.out.append('frame %s%d parent=%s name=%s' % (
            prefix, nid, '-' if parent is None else prefix + str(parent),
            name if isinstance(name, str) else '-'))

    def samples(self, prefix, st, samples, deltas, pid, tid):
        for s, d in zip(samples, deltas):
            d = us_to_ns(d)
            st[0] = (st[0] or 0) + (d or 0) if st[0] is not None else None
            if st[0] is None:
                st[3] = st[3] + (d or 0)
            sid = num(s)
            self.out.append('sample ts=%s sf=%s pid=%s tid=%s' % (
                '-' if st[0] is None else st[0],
                '-' if sid is None else prefix + str(sid), pid, tid))

    def event(self, e, out=None):
        if out is not None:
            self.out = out
        name, ph = e.get('name'), e.get('ph')
        args = e.get('args') if isinstance(e.get('args'), dict) else {}
        data = args.get('data') if isinstance(args.get('data'), dict) else {}
        cpu = data.get('cpuProfile') if isinstance(data.get('cpuProfile'), dict) else None
        pid = num(e.get('pid')) if num(e.get('pid')) is not None else 0
        tid = num(e.get('tid')) if num(e.get('tid')) is not None else pid
        if ph == 'P' and name in ('Profile', 'ProfileChunk'):
            i = e.get('id')
            if isinstance(i, str) and i.lower().startswith('0x'):
                idt, key = '0x%x' % int(i, 16), ('n', int(i, 16))
            elif num(i) is not None and str(i).isdigit():
                idt, key = '0x%x' % int(i), ('n', int(i))
            elif isinstance(i, str):
                idt, key = i, ('t', i)
            else:
                idt, key = '', ('-',)
            k = (pid, key)
            st = self.state.setdefault(k, [None, set(), {}, 0])
            if 'startTime' in data and us_to_ns(data['startTime']) is not None:
                st[0] = us_to_ns(data['startTime'])
            prefix = '%d:%s:' % (pid, idt)
        elif name == 'CpuProfile' and cpu is not None:
            self.cpu += 1
            st = [None, set(), {}, 0]
            if us_to_ns(cpu.get('startTime')) is not None:
                st[0] = us_to_ns(cpu['startTime'])
            prefix = '%d:cpu%d:' % (pid, self.cpu)
        else:
            return
        self.taken = True
        cpu = cpu or {}
        for n in cpu.get('nodes', []) or []:
            if isinstance(n, dict):
                self.frame(prefix, st, n)
        deltas = data.get('timeDeltas', cpu.get('timeDeltas', []))
        self.samples(prefix, st, cpu.get('samples', []) or [], deltas or [], pid, tid)


def expand(path):
    raw = open(path, 'rb').read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    doc = json.loads(raw)
    out = []
    p = Profiles(out)
    if isinstance(doc, dict) and 'traceEvents' not in doc and 'nodes' in doc:
        st = [us_to_ns(doc.get('startTime')), set(), {}, 0]
        for n in doc.get('nodes', []):
            if isinstance(n, dict):
                p.frame('', st, n)
        p.samples('', st, doc.get('samples', []), doc.get('timeDeltas', []), 0, 0)
        return out
    events = doc if isinstance(doc, list) else doc.get('traceEvents', [])
    for e in events:
        if isinstance(e, dict):
            p.event(e)
    return out


def from_tread(lines):
    out = []
    events = [json.loads(line) for line in lines]
    # a trace's stackFrames entries have no phase; a .cpuprofile has no
    # phases at all
    trace = any('ph' in e for e in events)
    for e in events:
        if e.get('kind') == 'stack_frame':
            if trace and 'ph' not in e:
                continue
            i = e.get('id') or ''
            out.append('frame %s parent=%s name=%s' % (
                i, e.get('parent') or '-', '-' if e.get('name') is None else e['name']))
        elif e.get('kind') == 'sample' and e.get('name') is None:
            out.append('sample ts=%s sf=%s pid=%s tid=%s' % (
                '-' if e.get('ts_ns') is None else e['ts_ns'], e.get('sf') or '-',
                e.get('pid') if e.get('pid') is not None else 0,
                e.get('tid') if e.get('tid') is not None else 0))
    return out


def main():
    if sys.argv[1:] == ['--tread']:
        out = from_tread(sys.stdin)
    else:
        out = expand(sys.argv[1])
    sys.stdout.write(''.join(l + '\n' for l in out))
    return 0


if __name__ == '__main__':
    sys.exit(main())
