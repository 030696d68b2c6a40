#!/usr/bin/env python3
"""Emits the Perfetto schema (proto/*.proto) from the spec tables.

Inputs (../shared/spec, or --spec DIR):
  perfetto_reference.txt  which messages and enums, their names, nesting,
                          fields and field types (the v49 reference)
  perfetto_fields.tsv     field numbers, labels, oneofs (and the types of
                          messages the reference names but does not list)
  perfetto_enums.tsv      enum values
Outputs (proto/, or --out DIR):
  one .proto per (package, source directory) of the tables, e.g.
  perfetto_trace_ftrace.proto; Makefile.inc (the protoc-c rules); the C
  index of message descriptors by full name needs the protoc-c output and
  is written by `gen_protos.py --index` (pf_schema_index.c).

Rules (proto/README): every reference message keeps its reference fields
and gets the current schema's newer ones (its own, the extensions declared
for it, or those of the package it moved to; a number or name already
there wins); a scalar field keeps the reference type; a message/enum field type is resolved by protobuf scoping among the
emitted types, else taken from the tables (then that type and what it
needs are emitted with all their table fields). Python 3 stdlib only.
"""
import argparse
import collections
import os
import re
import sys

SCALARS = {"double", "float", "int32", "int64", "uint32", "uint64", "sint32",
           "sint64", "fixed32", "fixed64", "sfixed32", "sfixed64", "bool",
           "string", "bytes"}
# protoc-c names every message struct's header member `base`: a field of
# that name cannot be compiled, so it is renamed (proto/README).
RENAME = {"base": "base_"}
# Types the reference does not describe but a trace reader needs.
ROOTS = ["perfetto.protos.Trace"]
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def die(msg):
    sys.exit("gen_protos.py: " + msg)


def read_tsv(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    head = lines[0].split("\t")
    rows = []
    for ln in lines[1:]:
        if ln:
            cols = ln.split("\t")
            cols += [""] * (len(head) - len(cols))
            rows.append(dict(zip(head, cols)))
    return rows


def strip_ver(src):
    return src.split("@")[0]


class Tables:
    def __init__(self, spec):
        self.fields = collections.OrderedDict()   # msg -> [row]
        self.msg_src = {}
        for r in read_tsv(os.path.join(spec, "perfetto_fields.tsv")):
            m = r["message_full_name"]
            self.fields.setdefault(m, [])
            if not r["extension_scope"]:
                self.msg_src.setdefault(m, strip_ver(r["source_file"]))
            if r["field_name"]:
                self.fields[m].append(r)
        for m, rows in self.fields.items():
            if m not in self.msg_src:   # only extensions: take any row
                self.msg_src[m] = strip_ver(rows[0]["source_file"]) if rows else ""
        self.enums = collections.OrderedDict()    # enum -> [(name, num)]
        self.enum_src = {}
        for r in read_tsv(os.path.join(spec, "perfetto_enums.tsv")):
            e = r["enum_full_name"]
            self.enums.setdefault(e, [])
            if (r["value_name"], r["number"]) not in self.enums[e]:
                self.enums[e].append((r["value_name"], r["number"]))
            self.enum_src.setdefault(e, strip_ver(r["source_file"]))
        # the field row of (message, name); the first one wins (current
        # before @v49.0 additions)
        self.row = {}
        for m, rows in self.fields.items():
            for r in rows:
                self.row.setdefault((m, r["field_name"]), r)

    def is_type(self, n):
        return n in self.fields or n in self.enums


def parse_reference(path):
    """[(name, kind, defined_in, [(field, type)] or None)] in file order."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    entries = []
    defined = [i for i, ln in enumerate(lines) if ln.startswith("Defined in ")]
    prev_end = 0
    for k, i in enumerate(defined):
        # the entry name: first non-empty line after the previous entry's
        # table (its rows all contain '|')
        j = prev_end
        while j < i and (not lines[j].strip() or "|" in lines[j]
                         or lines[j] in ("Fields:", "Enum values:")):
            j += 1
        name = lines[j].strip()
        if not IDENT.match(name):
            die("reference line %d: not an entry name: %r" % (j + 1, name))
        nxt = defined[k + 1] if k + 1 < len(defined) else len(lines)
        kind, rows = "message", []
        t = i + 1
        if t < nxt and lines[t] == "Enum values:":
            kind = "enum"
        # table rows: after the two header lines, while they contain '|'
        end = i + 1
        if t < nxt and lines[t] in ("Fields:", "Enum values:"):
            end = t + 1
        if end == t + 1 and end < nxt and "|" in lines[end]:
            end = t + 3
            while end < nxt and "|" in lines[end]:
                cols = [c.strip() for c in lines[end].split("|")]
                if kind == "message":
                    rows.append((cols[0], cols[1]))
                end += 1
        prev_end = end
        entries.append((name, kind, lines[i][len("Defined in "):].strip(), rows))
    return entries


class Schema:
    def __init__(self, tab, entries):
        self.tab = tab
        self.msgs = collections.OrderedDict()  # full -> [(name,num,label,type,oneof)]
        self.enums = collections.OrderedDict()
        self.notes = []
        self.n_newer = 0
        ref = []
        for name, kind, dfile, rows in entries:
            full = self.resolve_entry(name, kind, dfile)
            ref.append((full, kind, rows if rows else None))
            if kind == "enum":
                self.enums[full] = None
            else:
                self.msgs[full] = None
        for full, kind, rows in ref:
            if kind == "message" and rows is not None:
                self.msgs[full] = [self.ref_field(full, n, t) for n, t in rows]
                self.add_newer_fields(full)
            elif kind == "message":
                # the reference lists no fields (FtraceEvent: too many):
                # the closure below takes them all from the tables
                self.notes.append("no reference fields, all from the tables: " + full)
        # the trace file itself (a stream of TracePacket) is no reference
        # entry: taken from the tables
        for root in ROOTS:
            self.add_table_type(root)
        # closure: table types the reference fields need but it lacks
        while True:
            need = [m for m, f in self.msgs.items() if f is None]
            if not need:
                break
            for m in need:
                self.msgs[m] = [self.table_field(m, r) for r in tab.fields[m]]
        for e in self.enums:
            if e not in tab.enums:
                die("enum %s has no values in the tables" % e)
        # nesting containers
        for n in list(self.msgs) + list(self.enums):
            p = n.rsplit(".", 1)[0]
            while p and p in tab.fields:
                if p not in self.msgs:
                    self.msgs[p] = []
                    self.notes.append("container only: " + p)
                p = p.rsplit(".", 1)[0] if "." in p else ""

    def moved_to(self, full):
        """Where a reference message lives now when the tables keep it only
        as its v49 rows (perfetto.protos.HeapGraph is
        com.android.art.tracing.HeapGraph now): the one current message
        whose name ends with the same nested name, else None."""
        rows = self.tab.fields.get(full, [])
        if not rows or any("@" not in r["source_file"] for r in rows):
            return None
        rel = full.split(".", 2)[2] if full.startswith("perfetto.protos.") else full
        cands = [m for m, rs in self.tab.fields.items()
                 if m != full and m.endswith("." + rel) and rs
                 and all("@" not in r["source_file"] for r in rs)]
        return cands[0] if len(cands) == 1 else None

    def add_newer_fields(self, full):
        """The message's fields of the current schema that the reference
        lacks (newer than v49): its own, then the extensions declared for it
        elsewhere (Chrome's and Android's TrackEvent, TracePacket and
        InternedData fields), and for a message that moved to another
        package, the fields it has there. Rows kept from v49 only are not
        current. A number or name already there wins (an extension may
        repeat a name of the message's own: cc_scheduler_state is TrackEvent
        field 24 and Chrome's extension 1062)."""
        fields = self.msgs[full]
        nums = {f[1] for f in fields}
        names = {f[0] for f in fields}
        src = self.moved_to(full) or full
        if src != full:
            self.notes.append("%s: the message is %s now: its newer fields from there"
                              % (full, src))
        rows = [r for r in self.tab.fields.get(src, []) if not r["extension_scope"]]
        rows += [r for r in self.tab.fields.get(src, []) if r["extension_scope"]]
        for r in rows:
            if "@" in r["source_file"]:
                continue
            num, name = int(r["field_number"]), RENAME.get(r["field_name"], r["field_name"])
            if num in nums:
                continue
            if name in names:
                self.notes.append("%s.%s = %d: the name is the reference's at another number: "
                                  "left out" % (full, name, num))
                continue
            fields.append(self.table_field(full, r))
            nums.add(num)
            names.add(name)
            self.n_newer += 1

    def resolve_entry(self, name, kind, dfile):
        pool = self.tab.enums if kind == "enum" else self.tab.fields
        src = self.tab.enum_src if kind == "enum" else self.tab.msg_src
        cands = [n for n in pool if n == name or n.endswith("." + name)]
        # the entry's own nesting must match exactly: the prefix before
        # `name` is a package, not a message
        cands = [n for n in cands if self.top_level(n) == n[:len(n) - len(name)] + name.split(".")[0]]
        if len(cands) > 1:
            same = [n for n in cands if os.path.basename(src.get(n, "")) == dfile]
            cands = same or cands
        if len(cands) > 1:
            pp = [n for n in cands if n.startswith("perfetto.protos.")]
            cands = pp or cands
        if len(cands) != 1:
            die("reference %s %s: %d candidates %s" % (kind, name, len(cands), cands))
        return cands[0]

    def top_level(self, full):
        """The outermost message/enum of a full name."""
        parts = full.split(".")
        for i in range(1, len(parts) + 1):
            p = ".".join(parts[:i])
            if self.tab.is_type(p):
                return p
        return full

    def lookup(self, scope, tname):
        s = scope
        while True:
            c = (s + "." if s else "") + tname
            if c in self.msgs or c in self.enums:
                return c
            if not s:
                return None
            s = s.rsplit(".", 1)[0] if "." in s else ""

    def ref_field(self, msg, fname, ftype):
        r = self.tab.row.get((msg, fname))
        if r is None:
            die("%s.%s: not in perfetto_fields.tsv" % (msg, fname))
        t = ftype[:-2] if ftype.endswith("[]") else ftype
        if t in SCALARS and r["type_kind"] == "message" and r["type"].endswith("Entry"):
            # a map<> field: the reference shows the value type, the tables
            # the entry message (key = 1, value = 2) it is on the wire
            typ = r["type"]
            self.add_table_type(typ)
            self.notes.append("%s.%s: map field as repeated %s" % (msg, fname, typ))
        elif t in SCALARS:
            typ = t
            if r["type_kind"] != "scalar":
                die("%s.%s: reference scalar %s, tables %s" % (msg, fname, t, r["type"]))
            if t != r["type"]:
                self.notes.append("%s.%s: reference type %s kept (tables: %s)"
                                  % (msg, fname, t, r["type"]))
        else:
            typ = self.lookup(msg, t)
            if typ is None:
                typ = r["type"]
                self.add_table_type(typ)
                self.notes.append("%s.%s: type %s from the tables" % (msg, fname, typ))
            elif typ != r["type"]:
                self.notes.append("%s.%s: type %s (tables: %s)" % (msg, fname, typ, r["type"]))
        return self.field_tuple(r, fname, typ)

    def field_tuple(self, r, fname, typ):
        fname = RENAME.get(fname, fname)
        oneof = r["oneof_name"]
        if oneof == "_" + fname:
            oneof = ""  # a proto3 optional's synthetic oneof
        label = r["label"]
        if label in ("repeated", "packed-repeated") and (typ not in SCALARS and typ not in self.enums
                                                       and typ not in self.tab.enums):
            label = "repeated"
        if label in ("packed-repeated",) and typ in ("string", "bytes"):
            label = "repeated"
        return (fname, int(r["field_number"]), label, typ, oneof if label not in ("repeated", "packed-repeated") else "")

    def add_table_type(self, typ):
        if typ in self.msgs or typ in self.enums:
            return
        if typ in self.tab.enums:
            self.enums[typ] = None
        elif typ in self.tab.fields:
            self.msgs[typ] = None
        else:
            die("type %s in no table" % typ)

    def table_field(self, msg, r):
        typ = r["type"]
        if r["type_kind"] != "scalar":
            self.add_table_type(typ)
        return self.field_tuple(r, r["field_name"], typ)


def file_key(schema, full):
    top = schema.top_level(full)
    tab = schema.tab
    src = tab.msg_src.get(top) or tab.enum_src.get(top) or ""
    pkg = top.rsplit(".", 1)[0] if "." in top else ""
    d = os.path.dirname(src)
    if d.startswith("protos/"):
        d = d[len("protos/"):]
    return pkg, d


def sccs(nodes, edges):
    index, low, on, st, out, cnt = {}, {}, set(), [], [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = cnt[0]
        cnt[0] += 1
        st.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = st.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def file_name(key):
    pkg, d = key
    base = d.replace("/", "_") or "root"
    if pkg != "perfetto.protos":
        base += "_" + pkg.replace(".", "_")
    return base


def emit(schema, out):
    # group top-level types into files
    groups = collections.defaultdict(list)   # key -> [top-level full names]
    for n in list(schema.msgs) + list(schema.enums):
        if schema.top_level(n) == n:
            groups[file_key(schema, n)].append(n)
    deps = collections.defaultdict(set)
    for m, fields in schema.msgs.items():
        a = file_key(schema, m)
        deps[a]
        for f in fields:
            if f[3] not in SCALARS:
                b = file_key(schema, f[3])
                if a != b:
                    deps[a].add(b)
    comps = sccs(list(groups), deps)
    fname_of = {}
    for comp in comps:
        if len(comp) > 1:
            schema.notes.append("files merged (import cycle): %s" % comp)
        name = file_name(comp[0])
        for k in comp:
            fname_of[k] = name
    # per file: package(s) must be one; a cycle across packages is an error
    files = collections.OrderedDict()
    for key in sorted(groups, key=lambda k: fname_of[k]):
        files.setdefault(fname_of[key], []).append(key)
    children = collections.defaultdict(list)
    for n in list(schema.msgs) + list(schema.enums):
        if schema.top_level(n) != n:
            children[n.rsplit(".", 1)[0]].append(n)
    written = []
    for fn, keys in files.items():
        pkgs = {k[0] for k in keys}
        if len(pkgs) != 1:
            die("file %s would hold packages %s" % (fn, pkgs))
        pkg = keys[0][0]
        imports = sorted({fname_of[d] for k in keys for d in deps[k]} - {fn})
        lines = ["// Generated by proto/gen_protos.py from ../shared/spec/perfetto_reference.txt,",
                 "// perfetto_fields.tsv and perfetto_enums.tsv. Do not edit.",
                 'syntax = "proto2";', "", "package %s;" % pkg, ""]
        for i in imports:
            lines.append('import "%s.proto";' % i)
        if imports:
            lines.append("")
        tops = sorted(n for k in keys for n in groups[k])
        for t in tops:
            emit_type(schema, t, children, lines, 0)
        path = os.path.join(out, fn + ".proto")
        text = "\n".join(lines) + "\n"
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        written.append(fn)
    return written


def emit_type(schema, full, children, lines, ind):
    pad = "  " * ind
    short = full.rsplit(".", 1)[1] if "." in full else full
    if full in schema.enums:
        vals = schema.tab.enums[full]
        lines.append("%senum %s {" % (pad, short))
        nums = [v[1] for v in vals]
        if len(set(nums)) != len(nums):
            lines.append("%s  option allow_alias = true;" % pad)
        for n, v in vals:
            lines.append("%s  %s = %s;" % (pad, n, v))
        lines.append(pad + "}")
        return
    lines.append("%smessage %s {" % (pad, short))
    for c in sorted(children.get(full, [])):
        emit_type(schema, c, children, lines, ind + 1)
    oneofs = collections.OrderedDict()
    for f in schema.msgs[full]:
        if f[4]:
            oneofs.setdefault(f[4], [])
    done = set()
    for f in schema.msgs[full]:
        name, num, label, typ, oneof = f
        t = typ if typ in SCALARS else "." + typ
        if oneof:
            if oneof in done:
                continue
            done.add(oneof)
            lines.append("%s  oneof %s {" % (pad, oneof))
            for g in schema.msgs[full]:
                if g[4] == oneof:
                    gt = g[3] if g[3] in SCALARS else "." + g[3]
                    lines.append("%s    %s %s = %d;" % (pad, gt, g[0], g[1]))
            lines.append("%s  }" % pad)
            continue
        if label == "packed-repeated":
            lines.append("%s  repeated %s %s = %d [packed = true];" % (pad, t, name, num))
        else:
            lines.append("%s  %s %s %s = %d;" % (pad, label or "optional", t, name, num))
    lines.append(pad + "}")


def emit_makefile(out, files):
    lines = ["# Generated by proto/gen_protos.py. Do not edit.",
             "# The Perfetto schema: protoc-c turns each .proto into a .pb-c.c/.h pair",
             "# (shipped in the dist tarball, so a build from it needs no protoc-c).",
             "TREAD_PROTO_FILES = \\"]
    lines += ["\tproto/%s.proto%s" % (f, " \\" if i + 1 < len(files) else "")
              for i, f in enumerate(files)]
    lines.append("TREAD_PROTO_C = \\")
    lines += ["\tproto/%s.pb-c.c%s" % (f, " \\" if i + 1 < len(files) else "")
              for i, f in enumerate(files)]
    lines.append("TREAD_PROTO_H = \\")
    lines += ["\tproto/%s.pb-c.h%s" % (f, " \\" if i + 1 < len(files) else "")
              for i, f in enumerate(files)]
    lines.append("TREAD_PROTO_WRAP = \\")
    lines += ["\tproto/c/%s.c%s" % (f, " \\" if i + 1 < len(files) else "")
              for i, f in enumerate(files)]
    lines.append("")
    for f in files:
        lines.append("proto/%s.pb-c.c: proto/%s.proto" % (f, f))
        lines.append("\t$(AM_V_GEN)$(PROTOC_C_RUN) $(srcdir)/proto/%s.proto" % f)
        lines.append("proto/%s.pb-c.h: proto/%s.pb-c.c" % (f, f))
        lines.append("\t@:")
    with open(os.path.join(out, "schema.mk"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    # one wrapper per protoc-c output, compiled into libtread: gcc's
    # -Wmissing-braces fires on protoc-c's oneof initialisers ({0} for a
    # union), and a wrapper turns just that off without a library of its own.
    # It also turns the optimiser off: tread reads the descriptors, which are
    # data, and never calls protoc-c's pack/unpack functions, and optimising
    # them made perfetto_trace_ftrace the slowest file of every build (gcc
    # -O2 6.0 s against 1.8 s, clang ASan 7.9 s)
    os.makedirs(os.path.join(out, "c"), exist_ok=True)
    for f in files:
        text = ("/* Generated by proto/gen_protos.py: protoc-c's output for %s.proto,\n"
                " * compiled into libtread (proto/Makefile.inc). Do not edit.\n"
                " * tread reads its descriptors (data) and never calls its functions:\n"
                " * they are compiled without optimisation, to keep builds short. */\n"
                "#if defined(__clang__)\n"
                "#pragma clang optimize off\n"
                "#elif defined(__GNUC__)\n"
                "#pragma GCC optimize(\"O0\")\n"
                "#endif\n"
                "#if defined(__GNUC__)\n"
                "#pragma GCC diagnostic ignored \"-Wmissing-braces\"\n"
                "#endif\n"
                "#include \"%s.pb-c.c\"\n" % (f, f))
        with open(os.path.join(out, "c", f + ".c"), "w") as fh:
            fh.write(text)


def emit_index(pbc, out):
    """pf_schema_index.c: every message descriptor by full name (sorted),
    read from the protoc-c output in `out`."""
    pat = re.compile(r"const ProtobufCMessageDescriptor (\w+) =\s*\{\s*"
                     r"PROTOBUF_C__MESSAGE_DESCRIPTOR_MAGIC,\s*\"([\w.]+)\"")
    found = []
    hdrs = []
    for fn in sorted(os.listdir(pbc)):
        if fn.endswith(".pb-c.c"):
            hdrs.append(fn[:-2] + ".h")
            with open(os.path.join(pbc, fn)) as f:
                found += [(m.group(2), m.group(1)) for m in pat.finditer(f.read())]
    if not found:
        die("no protoc-c output in %s (run protoc-c first)" % pbc)
    found.sort()
    lines = ["/* Generated by proto/gen_protos.py --index from the protoc-c output. Do not",
             " * edit. Every message descriptor of the schema, sorted by full name,",
             " * for tread_perfetto_msgtype_find (lib/perfetto/pf_walk.c). */",
             '#include "perfetto/pf_walk_schema.h"']
    lines += ['#include "%s"' % h for h in hdrs]
    lines += ["", "const pf_schema_entry pf_schema_index[] = {"]
    lines += ['    {"%s", &%s},' % (n, c) for n, c in found]
    lines += ["};", "const size_t pf_schema_index_len = %d;" % len(found), ""]
    with open(os.path.join(out, "pf_schema_index.c"), "w") as f:
        f.write("\n".join(lines))
    print("gen_protos.py: %d message descriptors indexed" % len(found))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec", default=os.path.join(here, "..", "..", "shared", "spec"))
    ap.add_argument("--out", default=here)
    ap.add_argument("--index", metavar="PBC_DIR",
                    help="write pf_schema_index.c from the protoc-c output in PBC_DIR")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    if a.index:
        emit_index(a.index, a.out)
        return
    tab = Tables(a.spec)
    entries = parse_reference(os.path.join(a.spec, "perfetto_reference.txt"))
    schema = Schema(tab, entries)
    files = emit(schema, a.out)
    emit_makefile(a.out, files)
    nref = len(entries)
    print("gen_protos.py: %d reference entries, %d messages and %d enums emitted in %d files; "
          "%d fields newer than the reference" % (nref, len(schema.msgs), len(schema.enums),
                                                  len(files), schema.n_newer))
    if a.verbose:
        for n in schema.notes:
            print("  " + n)


if __name__ == "__main__":
    main()
