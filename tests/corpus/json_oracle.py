#!/usr/bin/env python3
"""Independent expected event counts for a Chrome JSON trace.

Used to review the golden files in tests/corpus/json/: it reads a trace
with Python's json module (no tread code involved) and prints the count of
events by tread kind that the mapping in doc/formats/json.md implies.
Files Python cannot parse (truncated, trailing commas) are reported as such.
"""
import gzip, json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from json_profile_oracle import Profiles  # V8 profiles: frames and samples

KIND = {'B': 'slice_begin', 'E': 'slice_end', 'X': 'complete', 'i': 'instant',
        'I': 'instant', 'R': 'instant', 'b': 'async_begin', 'S': 'async_begin',
        'n': 'async_step', 'T': 'async_step', 'p': 'async_step', 'e': 'async_end',
        'F': 'async_end', 's': 'flow_begin', 't': 'flow_step', 'f': 'flow_end',
        'P': 'sample', 'N': 'object_new', 'O': 'object_snapshot',
        'D': 'object_delete', 'M': 'metadata', 'V': 'memory_dump',
        'v': 'memory_dump', 'c': 'clock_sync', '(': 'context_enter',
        ')': 'context_leave', '=': 'id_link'}


def numeric(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return True
    if isinstance(v, str):
        try:
            float(v)
            return v.strip() != ''
        except ValueError:
            return False
    return False


def counter_series(args, depth=0):
    n = 0
    for v in args.values():
        if isinstance(v, dict):
            n += counter_series(v, depth + 1)
        elif numeric(v):
            n += 1
    return n


def count(doc):
    c = {}
    def add(k, n=1):
        if n:
            c[k] = c.get(k, 0) + n
    def events(lst):
        for e in lst:
            if not isinstance(e, dict) or not e:
                continue
            ph = e.get('ph')
            # V8 profiles (doc/formats/json.md 8): a Profile event is
            # metadata, its chunks and CpuProfile events their frames and
            # samples
            lines = []
            prof.event(e, lines)
            if prof.taken:
                prof.taken = False
                if ph == 'P' and e.get('name') == 'Profile':
                    add('metadata')
                add('stack_frame', sum(1 for l in lines if l.startswith('frame')))
                add('sample', sum(1 for l in lines if l.startswith('sample')))
                continue
            k = KIND.get(ph, 'unknown') if isinstance(ph, str) else 'unknown'
            if k == 'instant' and ph not in 'iIR':
                k = 'unknown'
            if ph == 'C':
                a = e.get('args')
                add('counter', counter_series(a) if isinstance(a, dict) else 0)
            else:
                add(k)
    prof = Profiles(None)
    if isinstance(doc, list):
        events(doc)
        return c
    for key, v in doc.items():
        if key == 'traceEvents' and isinstance(v, list):
            events(v)
        elif key == 'samples' and isinstance(v, list):
            add('sample', sum(1 for s in v if isinstance(s, dict)))
        elif key == 'stackFrames' and isinstance(v, dict):
            add('stack_frame', sum(1 for s in v.values() if isinstance(s, dict)))
        elif key == 'systemTraceEvents' and isinstance(v, (dict, list)):
            evs = v.get('events', []) if isinstance(v, dict) else v
            if isinstance(v, dict):
                add('metadata', sum(1 for k in v if k != 'events'))
            for e in evs:
                if isinstance(e, dict):
                    ph = e.get('ph')
                    add({'p': 'metadata', 't': 'metadata', 'k': 'context_switch'}.get(ph, 'unknown'))
        else:
            add('metadata')
    return c


def tolerant(text):
    """Reads a damaged trace value by value: keeps every complete element
    and member, stops at the first one that does not parse (truncation),
    skips commas (trailing ones included)."""
    dec = json.JSONDecoder()
    i = 0
    n = len(text)
    def ws(i):
        while i < n and text[i] in ' \t\r\n,':
            i += 1
        return i
    def array(i, out):
        while True:
            i = ws(i)
            if i >= n or text[i] == ']':
                return i + 1
            try:
                v, i = dec.raw_decode(text, i)
            except ValueError:
                return n
            out.append(v)
    i = ws(i)
    if text[i] == '[':
        out = []
        array(i + 1, out)
        return out
    doc = {}
    i += 1
    while True:
        i = ws(i)
        if i >= n or text[i] == '}':
            return doc
        try:
            key, i = dec.raw_decode(text, i)
        except ValueError:
            return doc
        i = ws(i)
        if i < n and text[i] == ':':
            i = ws(i + 1)
        if i < n and text[i] == '[':
            out = []
            i = array(i + 1, out)
            doc[key] = out
            continue
        try:
            v, i = dec.raw_decode(text, i)
        except ValueError:
            return doc
        doc[key] = v


def main():
    path = sys.argv[1]
    op = gzip.open if open(path, 'rb').read(2) == b'\x1f\x8b' else open
    with op(path, 'rb') as f:
        data = f.read()
    if data.startswith(b'\xef\xbb\xbf'):
        data = data[3:]
    try:
        doc = json.loads(data)
    except ValueError:
        doc = tolerant(data.decode('utf-8', 'replace'))
    for k, n in sorted(count(doc).items()):
        print(k, n)
    return 0


if __name__ == '__main__':
    sys.exit(main())
