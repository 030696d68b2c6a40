#!/usr/bin/env python3
"""Every file of the FXT corpus against its manifest.json entry.

For each file, tests/corpus/fxt_records (the format forced to FXT) must
frame the records the manifest's independent checker counts: by type, by
subtype and by argument type, the same providers, provider sections and
ignored index-0 records. Each file must also end with exactly the warnings
and error listed in EXPECTED below (a malformed file: its documented defect
and nothing else), and be sniffed as the format listed in SNIFFED.

The one disagreement with the manifest is documented in doc/formats/fxt.md:
gen_big_endian.fxt is refused (big-endian archives are not supported), so
its counts are not compared.

usage: fxt_manifest.py FXT_RECORDS CORPUS_DIR
"""
import json
import os
import subprocess
import sys

# file -> (warnings by kind, error kind or None, error offset or None)
EXPECTED = {
    "fxtcpp_all_records.fxt": ({"data_loss": 1}, None, None),
    "fxtcpp_table_churn.fxt": ({}, None, None),
    "gen_all_types.fxt": ({"data_loss": 1}, None, None),
    "gen_big_endian.fxt": ({}, "unsupported", 0),
    "gen_extensions.fxt": ({"unknown_record": 16}, None, None),
    "gen_large_blobs.fxt": ({}, None, None),
    "gen_multi_provider.fxt": ({"data_loss": 1}, None, None),
    "gen_stress.fxt": ({}, None, None),
    # 2^63 and 2^64-1 ticks; a counter with a string, a bool and a null
    "gen_tricky.fxt": ({"number_range": 2, "bad_counter_value": 3}, None, None),
    # a counter whose only value is a pointer: not a number, no series
    "real_janestreet_tracing_demo_2023.fxt": ({"bad_counter_value": 2}, None, None),
    "real_janestreet_tracing_demo_2024.fxt": ({"bad_counter_value": 2}, None, None),
    "malformed/arg_overruns_record.fxt": ({"bad_record": 1}, None, None),
    "malformed/arg_size_zero.fxt": ({"bad_record": 1}, None, None),
    "malformed/argcount_exceeds_record.fxt": ({"bad_record": 1}, None, None),
    "malformed/empty.fxt": ({}, None, None),
    "malformed/fxtcpp_bad_blob.fxt": ({"truncated_event": 1}, None, None),
    # forced to FXT, which the sniffer does not see in it (SNIFFED)
    "malformed/garbage.fxt": ({"format_mismatch": 1, "truncated_event": 1}, None, None),
    "malformed/inline_string_overrun.fxt": ({"bad_record": 1}, None, None),
    "malformed/magic_only.fxt": ({}, None, None),
    # the magic record is only "generally" first: read as FXT
    "malformed/no_magic.fxt": ({}, None, None),
    "malformed/provider_name_overrun.fxt": ({"bad_record": 1}, None, None),
    "malformed/size_beyond_eof.fxt": ({"truncated_event": 1}, None, None),
    "malformed/string_record_overrun.fxt": ({"bad_record": 1}, None, None),
    "malformed/ticks_per_second_zero.fxt": ({"bad_field": 1}, None, None),
    "malformed/trunc_mid_header.fxt": ({"truncated_event": 1}, None, None),
    "malformed/trunc_mid_large_blob.fxt": ({"truncated_event": 1}, None, None),
    "malformed/trunc_mid_record.fxt": ({"truncated_event": 1}, None, None),
    "malformed/undefined_string_ref.fxt": ({"unresolved_ref": 1}, None, None),
    "malformed/undefined_thread_ref.fxt": ({"unresolved_ref": 1}, None, None),
    "malformed/zero_size_record.fxt": ({}, "syntax", 0x90),
    "malformed/zero_words_tail.fxt": ({}, "syntax", 0x90),
}

# what the sniffer makes of the files that are not plain FXT
SNIFFED = {"malformed/empty.fxt": "unknown", "malformed/garbage.fxt": "unknown"}

NOT_COMPARED = {"gen_big_endian.fxt"}

KEYS = ("records_framed", "record_types", "subtypes", "arg_types", "providers",
        "provider_section_switches", "index0_records_ignored")


def run_all(tool, paths, sniff=False):
    cmd = [tool] + (["--sniff"] if sniff else []) + paths
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout.decode()
    return {r["file"]: r for r in map(json.loads, out.splitlines())}


def main():
    tool, corpus = sys.argv[1], sys.argv[2]
    with open(os.path.join(corpus, "manifest.json")) as f:
        manifest = json.load(f)
    failed = 0
    seen = set()
    paths = [os.path.join(corpus, e["file"]) for e in manifest["files"]]
    forced = run_all(tool, paths)
    sniffed_all = run_all(tool, paths, sniff=True)
    for entry in manifest["files"]:
        name = entry["file"]
        seen.add(name)
        path = os.path.join(corpus, name)
        got = forced[path]
        problems = []
        if name not in NOT_COMPARED:
            for k in KEYS:
                if got[k] != entry[k]:
                    problems.append("%s: manifest %s, tread %s" % (k, entry[k], got[k]))
        if got["args_offset_mismatches"]:
            problems.append("decoder's args_offset differs from the format document's layout "
                            "%d times" % got["args_offset_mismatches"])
        if name not in EXPECTED:
            problems.append("no expectation for this file in fxt_manifest.py")
        else:
            warnings, error, offset = EXPECTED[name]
            if got["warnings"] != warnings:
                problems.append("warnings %s, expected %s" % (got["warnings"], warnings))
            if got["error"] != error or (error and got["error_offset"] != offset):
                problems.append("error %s at %s, expected %s at %s" % (
                    got["error"], got.get("error_offset"), error, offset))
        sniffed = sniffed_all[path]["format"]
        if sniffed != SNIFFED.get(name, "fxt"):
            problems.append("sniffed as %s, expected %s" % (sniffed, SNIFFED.get(name, "fxt")))
        if problems:
            failed += 1
            print("FAIL %s" % name)
            for p in problems:
                print("    " + p)
        else:
            print("ok %s (%d records, %d events)" % (name, got["records_framed"], got["events"]))
    for name in sorted(set(EXPECTED) - seen):
        print("FAIL %s: expected but not in manifest.json" % name)
        failed += 1
    if not seen:
        print("FAIL: manifest.json lists no files")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
