#!/usr/bin/env python3
"""Writes the system data source seeds of fuzz_perfetto
(fuzz/seeds/perfetto/system_*.pftrace): ftrace bundles (full events,
compact_sched, atrace prints, generic events, ftrace clocks), sys_stats,
process_stats, android_log, battery, power_rails; field numbers from
perfetto_fields.tsv (doc/formats/perfetto.md, section 10).
Run from the repository root: python3 fuzz/perfetto_system_seeds.py"""
import os

from pbwire import f32, ln, packed, varint, vi


def packet(payload, ts=None, seq=1):
    body = (vi(8, ts) if ts is not None else b"") + vi(10, seq) + payload
    return ln(1, body)


def fevent(ts, pid, num, body):
    return ln(2, vi(1, ts) + vi(2, pid) + ln(num, body))


def clock_snapshot(boot, other, other_ts):
    return packet(ln(6, ln(1, vi(1, 6) + vi(2, boot)) + ln(1, vi(1, other) + vi(2, other_ts))))


def ftrace():
    sw = ln(1, "idle") + vi(2, 0) + vi(3, 120) + vi(4, 1) + ln(5, "app") + vi(6, 42) + vi(7, 100)
    wk = ln(1, "app") + vi(2, 43) + vi(3, 120) + vi(5, 1)
    b = vi(1, 0)
    b += fevent(1000, 0, 4, sw)
    b += fevent(1100, 42, 20, wk) + fevent(1150, 42, 17, wk) + fevent(1160, 42, 114, wk)
    b += fevent(1200, 0, 11, vi(1, 1800000) + vi(2, 0))
    b += fevent(1300, 0, 13, vi(1, 1) + vi(2, 0))
    b += fevent(1400, 42, 235, vi(1, 77) + ln(2, "child") + vi(3, 0x11))
    b += fevent(1500, 77, 236, vi(1, 77) + ln(2, "child") + ln(3, "renamed"))
    for i, text in enumerate(["B|42|frame", "E|42", "C|42|q|7", "S|42|load|9",
                              "F|42|load|9", "I|42|tick", "N|42|trk|ev",
                              "G|42|trk|a|5", "H|42|trk|5", "plain text", "C|42|bad"]):
        b += fevent(1600 + i, 42, 3, vi(1, 0xffff) + ln(2, text + "\n"))
    b += fevent(1700, 0, 36, vi(1, 9) + ln(2, "timer"))       # irq_handler_entry
    b += fevent(1800, 0, 481, vi(1, 1) + vi(2, 1))            # suspend_resume_minimal
    b += fevent(1900, 0, 9999, vi(1, 1))                      # not in the schema
    return packet(ln(1, b))


def compact():
    cs = packed(1, [2000, 100]) + packed(2, [1, 0]) + packed(3, [11, 12])
    cs += packed(4, [120, 110]) + ln(5, "eleven") + ln(5, "twelve")
    cs += packed(6, [0, 1]) + packed(7, [2050]) + packed(8, [13]) + packed(9, [2])
    cs += packed(10, [100]) + packed(11, [1]) + packed(12, [1])
    return packet(ln(1, vi(1, 1) + ln(4, cs))) + packet(ln(1, vi(1, 1) + vi(3, 1) + ln(4, cs)))


def clocks():
    out = clock_snapshot(1000000, 5, 400000)
    out += packet(ln(1, vi(1, 0) + vi(5, 4) + fevent(500000, 0, 11, vi(1, 1))))
    out += packet(ln(1, vi(1, 0) + vi(5, 2) + vi(6, 10000) + vi(7, 15000) +
                     fevent(20000, 0, 11, vi(1, 2))))
    out += packet(ln(1, vi(1, 0) + vi(5, 3) + fevent(777, 0, 11, vi(1, 3))))
    return out


def stats():
    s = ln(1, vi(1, 1) + vi(2, 2000)) + ln(2, vi(1, 1) + vi(2, 33))
    s += ln(3, vi(1, 1) + vi(2, 500) + vi(5, 700)) + vi(4, 99) + vi(5, 7) + vi(7, 3)
    s += ln(6, vi(1, 30) + vi(2, 5)) + ln(8, vi(1, 2) + vi(2, 6))
    s += ln(10, ln(1, "gpu") + vi(2, 585000000)) + packed(11, [300000, 600000])
    s += ln(12, ln(1, "Node 0") + ln(2, "Normal") + packed(3, [1, 2, 3]))
    s += ln(13, ln(1, "sda") + vi(2, 10) + vi(3, 20) + vi(4, 30))
    s += ln(14, vi(1, 1) + vi(2, 12345)) + ln(15, ln(1, "tz0") + vi(2, 45000) + ln(3, "cpu"))
    s += ln(16, vi(1, 0) + ln(2, ln(1, "C1") + vi(2, 100))) + packed(17, [400, 500])
    p = ln(1, vi(1, 42) + vi(2, 1000) + vi(3, 100) + vi(4, 50) + vi(10, 900) + vi(16, 7) +
           vi(21, 11) + vi(22, 12))
    return packet(ln(7, s), ts=5000) + packet(ln(9, p), ts=6000)


def logs_power():
    out = clock_snapshot(1000, 1, 1700000000000)
    ev = vi(1, 0) + vi(2, 300) + vi(3, 301) + vi(5, 1700000000500) + ln(6, "ActivityManager")
    ev += vi(7, 4) + ln(8, "Start proc")
    evt = vi(1, 2) + vi(2, 300) + vi(5, 1700000000600) + ln(6, "am_proc_start")
    evt += ln(9, ln(1, "pid") + vi(2, 300)) + ln(9, ln(1, "x") + f32(3, 1.5))
    out += packet(ln(39, ln(1, ev) + ln(1, evt) + ln(2, vi(1, 2))))
    bat = vi(1, 3000000) + f32(2, 99.5) + vi(3, (1 << 64) - 250000) + vi(4, 5) + vi(6, 7) + vi(7, 8)
    out += packet(ln(38, bat), ts=2000) + packet(ln(38, bat + ln(5, "bms")), ts=2100)
    rails = ln(1, vi(1, 0) + ln(2, "S4M_VDD_CPUCL0") + ln(3, "cpu") + vi(4, 1000))
    rails += ln(2, vi(1, 0) + vi(2, 3) + vi(3, 123456)) + ln(2, vi(1, 5) + vi(3, 1))
    out += packet(ln(40, rails), ts=2500)
    return out


def malformed():
    out = packet(ln(1, vi(1, 0) + varint(2 << 3 | 2) + varint(50) + varint(8)))
    out += packet(ln(1, ln(4, vi(1, 5))))
    out += packet(ln(7, b"\xff\xff\xff"), ts=10)
    out += packet(ln(39, ln(1, b"\x0a\x09")))
    return out


def main():
    d = os.path.join("fuzz", "seeds", "perfetto")
    os.makedirs(d, exist_ok=True)
    seeds = {
        "system_ftrace.pftrace": ftrace(),
        "system_compact_sched.pftrace": compact(),
        "system_ftrace_clocks.pftrace": clocks(),
        "system_stats.pftrace": stats(),
        "system_logs_power.pftrace": logs_power(),
        "system_malformed.pftrace": malformed(),
    }
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
