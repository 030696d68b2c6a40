#!/usr/bin/env python3
"""Writes the seeds of fuzz_perfetto (fuzz/seeds/perfetto/) and
fuzz_perfetto_args (fuzz/seeds/perfetto_args/): small Perfetto traces and
TrackEvents built field by field from the numbers in perfetto_fields.tsv.
Run from the repository root: python3 fuzz/perfetto_seeds.py"""
import os
import zlib

from pbwire import f64, fx64, ln, vi


def packet(*fields):
    return ln(1, b"".join(fields))  # Trace.packet


# DebugAnnotation
def ann(name, *fields):
    return ln(4, (ln(10, name) if name is not None else b"") + b"".join(fields))


def ann_iid(iid, *fields):
    return ln(4, vi(1, iid) + b"".join(fields))


def entry(name, *fields):  # dict_entries
    return ln(11, ln(10, name) + b"".join(fields))


def item(*fields):  # array_values
    return ln(12, b"".join(fields))


# NestedValue
def nv_dict(field, pairs):
    body = vi(1, 1)
    for k, v in pairs:
        body += ln(2, k) + ln(3, v)
    return ln(field, body)


def nv_array(field, values):
    return ln(field, vi(1, 2) + b"".join(ln(4, v) for v in values))


def nv_int(v):
    return vi(5, v)


def srcloc(file, fn, line):
    return ln(2, file) + ln(3, fn) + vi(4, line)


def interned(*fields):
    return ln(12, b"".join(fields))


def named(field, iid, name, name_field=2):
    return ln(field, vi(1, iid) + ln(name_field, name))


SEQ = vi(10, 1)

INTERNED = interned(
    named(1, 1, "cat"),                       # event_categories
    named(2, 1, "slice"), named(2, 2, "log"),  # event_names
    named(3, 1, "interned_arg"), named(3, 2, "other"),  # debug_annotation_names
    ln(4, vi(1, 1) + srcloc("main.cc", "main", 10)),   # source_locations
    named(20, 1, "a log line"),               # log_message_body
    named(27, 1, ".perfetto.protos.Foo"),     # debug_annotation_value_type_names
    named(29, 1, "interned value"),           # debug_annotation_string_values
)

ALL_VALUES = (
    ann("b", vi(2, 1)) + ann("u", vi(3, 1 << 63)) + ann("i", vi(4, -7)) +
    ann("d", f64(5, 0.25)) + ann("s", ln(6, "text")) + ann("p", vi(7, 0x7fff0000)) +
    ann("j", ln(9, '{"k":[1,2]}')) + ann("sv", vi(17, 1)) + ann("sv_missing", vi(17, 9)) +
    ann_iid(1, vi(4, 1)) + ann_iid(42, vi(4, 2)) + ann(None, vi(4, 3)) +
    ann("nv", nv_dict(8, [("x", nv_int(1)),
                          ("arr", vi(1, 2) + ln(4, nv_int(2)) + ln(4, vi(7, 1))),
                          ("str", ln(8, "nested"))])) +
    ann("dict", entry("a", vi(2, 0)),
        entry("b", item(vi(4, 1)), item(ln(6, "two")), item(entry("c", f64(5, 3.5))))) +
    ann("pv", ln(16, ".perfetto.protos.Bar"), ln(14, vi(1, 5))) +
    ann("pvi", vi(13, 1), ln(14, b"")) +
    ann("split", ln(8, vi(1, 1) + ln(2, "k1") + ln(2, "k2") + ln(3, nv_int(1)) +
                    ln(3, vi(1, 2) + ln(4, nv_int(3)))))
)

TYPED = (
    ln(33, srcloc("a.cc", "f", 3)) + vi(34, 1) +
    ln(21, vi(1, 1) + vi(2, 1) + vi(3, 4)) +
    ln(5, vi(1, 1)) +
    ln(55, ln(1, ln(1, "fn") + ln(2, "file.c") + vi(3, 9))) + vi(56, 3) + f64(57, 2.0) +
    ln(25, ln(1, "UserAction")) + vi(1000, 1) + ln(2001, "binder")
)


def track_event(*fields):
    return ln(11, b"".join(fields))


def thread_track(uuid, pid, tid, name):
    return packet(SEQ, ln(60, vi(1, uuid) + ln(2, name) + ln(4, vi(1, pid) + vi(2, tid))))


def traces():
    first = packet(SEQ, vi(13, 1), vi(87, 1), INTERNED)
    t = {}
    t["track_event_args.pftrace"] = (
        thread_track(10, 1, 2, "main") + first +
        packet(SEQ, vi(8, 1000), vi(13, 2), track_event(vi(9, 1), vi(11, 10), vi(10, 1),
                                                         vi(3, 1), ALL_VALUES)) +
        packet(SEQ, vi(8, 2000), vi(13, 2), track_event(vi(9, 2), vi(11, 10))))
    t["track_event_typed.pftrace"] = (
        thread_track(10, 1, 2, "main") + first +
        packet(SEQ, vi(8, 1500), vi(13, 2), track_event(vi(9, 3), vi(11, 10), vi(10, 2), TYPED)))
    t["legacy_and_counters.pftrace"] = (
        packet(SEQ, ln(60, vi(1, 20) + ln(2, "ctr") + ln(8, b""))) +  # counter track
        packet(SEQ, vi(8, 100), track_event(vi(9, 4), vi(11, 20), vi(30, 5))) +
        packet(SEQ, vi(8, 200), track_event(ln(23, "legacy"), ln(22, "c"),
                                            ln(6, vi(2, ord("X")) + vi(3, 10) + vi(6, 7)),
                                            ann("k", vi(4, 1)))) +
        packet(SEQ, vi(8, 300), track_event(vi(9, 3), ln(23, "flow"), fx64(47, 1), fx64(48, 2))))
    t["incremental_lost.pftrace"] = (
        packet(SEQ, vi(8, 1), vi(13, 2), track_event(vi(9, 3), vi(10, 1))) +  # before state
        packet(SEQ, vi(41, 1), INTERNED) +
        packet(SEQ, vi(8, 2), vi(13, 2), track_event(vi(9, 3), vi(10, 1), ann_iid(2, vi(2, 1)))) +
        packet(SEQ, vi(42, 1), vi(8, 3), vi(13, 2), track_event(vi(9, 3), vi(10, 2))))
    t["clock_snapshot.pftrace"] = (
        packet(ln(6, ln(1, vi(1, 6) + vi(2, 1000)) + ln(1, vi(1, 3) + vi(2, 5000)))) +
        packet(SEQ, vi(8, 5100), vi(58, 3), track_event(vi(9, 3), ln(23, "mono"),
                                                         ann("x", vi(4, 1)))))
    # TYPE_STATE on a state track (TrackDescriptor field 18); tracks whose
    # parent uuid is defined late or never
    def desc(uuid, parent, name, extra=b""):
        return packet(SEQ, ln(60, vi(1, uuid) + ln(2, name) + (vi(5, parent) if parent else b"") + extra))
    t["state_and_orphans.pftrace"] = (
        desc(10, 0, "proc", ln(3, vi(1, 3))) + desc(20, 10, "state", ln(18, b"")) +
        desc(30, 999, "orphan") + desc(40, 30, "orphan child") + desc(50, 777, "never") +
        b"".join(packet(SEQ, vi(8, 100 + i), track_event(vi(9, 5), vi(11, 20), *( [ln(23, n)] if n else [])))
                 for i, n in enumerate(["A", "B", None, None, "C"])) +
        packet(SEQ, vi(8, 200), track_event(vi(9, 3), vi(11, 40), ln(23, "on orphan child"))) +
        desc(999, 0, "late parent") +
        packet(SEQ, vi(8, 201), track_event(vi(9, 5), vi(11, 30), ln(23, "S"))))
    whole = t["track_event_args.pftrace"]
    t["truncated.pftrace"] = whole[: len(whole) * 2 // 3]
    # compressed_packets (zlib wrapper: header, deflate, adler32 trailer)
    t["compressed_zlib.pftrace"] = (
        packet(ln(50, zlib.compress(whole, 9))) +
        packet(ln(50, zlib.compress(t["legacy_and_counters.pftrace"], 1))))
    return t


def args_seeds():
    """[k][len][msg]... then the TrackEvent (fuzz_perfetto_args input)."""
    msgs = [vi(1, 1) + ln(2, "name"), vi(1, 2) + srcloc("f.cc", "g", 1), vi(1, 3) + ln(2, "s")]
    head = bytes([len(msgs)]) + b"".join(bytes([len(m)]) + m for m in msgs)
    return {
        "all_values.bin": head + ALL_VALUES,
        "typed.bin": head + TYPED,
        "deep.bin": head + deep(40),
        "no_table.bin": bytes([0]) + ALL_VALUES,
        "typed_schema.bin": head + TYPED_SCHEMA,
        "typed_refs.bin": bytes([len(REFS_TABLE)]) +
                          b"".join(bytes([len(m)]) + m for m in REFS_TABLE) + TYPED_REFS,
    }


# Iids inside typed payloads that pf_args.c resolves (pf_refs). With k = 3
# messages, lookup(field, iid) is message (field + iid) % 3: the mojo
# method's location (28 + 2) is 0, an UnsymbolizedSourceLocation naming
# mapping 3, (19 + 3) is 1, a Mapping naming build id 1, (16 + 1) is 2,
# a string; creation_location_iid 1 (4 + 1) and a histogram's name_iid 1
# (25 + 1) are 2 too, read as a SourceLocation and a HistogramName.
REFS_TABLE = [vi(1, 2) + vi(2, 3) + vi(3, 0x100), vi(1, 3) + vi(2, 1) + vi(7, 1),
              vi(1, 1) + ln(2, "BID01")]
TYPED_REFS = (ln(38, ln(3, "tag") + vi(4, 2)) + ln(1001, vi(1, 1) + vi(2, 1)) +
              ln(28, vi(3, 12) + vi(4, 1)) + ln(28, ln(2, "own") + vi(4, 1)) +
              ln(24, ln(14, ln(4, vi(9, 1)))) + ln(35, vi(2, 1)) + ln(1005, vi(4, 1)) +
              ln(38, vi(4, 5)))


# Typed payloads read through the schema (pf_args.c PK_SCHEMA*): a message
# with a field the schema does not know, a run and a packed payload of
# TrackEvent.int_extension_for_testing, TestExtensionChild's annotations
# (messages read as messages) nested, an enum scalar.
TYPED_SCHEMA = (ln(25, ln(1, "A") + vi(2, 5) + vi(7, 9)) + vi(9901, 1) + vi(9901, 2) +
                ln(23, "x") + ln(9901, bytes([3, 4])) +
                ln(9903, ln(1, "c") + ln(99, ln(10, "k") + ln(6, "v")) +
                   ln(99, ln(10, "k2") + ln(11, ln(10, "in") + vi(4, 3)))) +
                vi(1000, 2) + ln(38, ln(1, "IPC") + vi(2, 7) + vi(5, 1)) +
                # proto_value annotations of a type the schema has
                ln(4, ln(10, "pv") + ln(16, ".perfetto.protos.ChromeUserEvent") +
                   ln(14, ln(1, "A") + vi(2, 5))) +
                ln(4, ln(10, "pi") + ln(14, ln(1, "B")) + vi(13, 1)))


def deep(n):
    inner = vi(4, 1)
    for _ in range(n):
        inner = ln(11, ln(10, "l") + inner)
    return ln(4, ln(10, "top") + inner)


def main():
    for d, seeds in (("fuzz/seeds/perfetto", traces()), ("fuzz/seeds/perfetto_args", args_seeds())):
        os.makedirs(d, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
