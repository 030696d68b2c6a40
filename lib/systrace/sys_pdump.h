/*
 * The PROCESS DUMP and CGROUP DUMP blocks of systrace HTML (catapult's
 * android_process_data_agent and android_cgroup_agent), read line by line
 * as they stream by.
 *
 * PROCESS DUMP: "PROCESS DUMP", then one or two snapshots of `ps` on the
 * device, each two listings under their own header line:
 *   USER PID PPID VSZ RSS WCHAN PC S NAME COMMAND   (ps -A -o ...,NAME,COMM)
 *     one TREAD_META_PROCESS_NAME event per line: pid, meta_str = NAME,
 *     args ppid, user, uid (when the user says it), vsz, rss, wchan,
 *     state, comm (the rest of the line: it may hold blanks);
 *   USER PID TID CMD                               (ps -AT -o ...)
 *     one TREAD_META_THREAD_NAME event per line: pid, tid, meta_str = CMD
 *     (the rest of the line), args user, uid.
 * A line that does not fit its header, or lines under a header tread does
 * not know (the legacy `ps && ps -t` listing), are counted; the first of
 * them in a block is one TREAD_WARN_UNKNOWN_RECORD. One line gives at most
 * one event, so a pause needs no state beyond the line it stopped after.
 *
 * CGROUP DUMP: /proc/cgroups and the cpuset tasks files; no event model
 * holds them: the lines are counted and skipped (trace_processor skips
 * them too).
 *
 * Memory: a line split across feeds is gathered up to
 * TREAD_OPT_MAX_LINE_BYTES (longer: skipped, counted, one warning per
 * block); the args of the event being delivered.
 */
#ifndef TREAD_SYSTRACE_PDUMP_H
#define TREAD_SYSTRACE_PDUMP_H

#include "core/parser.h"

typedef struct sys_pdump_counts {
    uint64_t blocks, cgroup_blocks, processes, threads, lines_skipped, cgroup_lines;
} sys_pdump_counts;

typedef struct sys_pdump {
    tread_parser *p;
    sys_pdump_counts *counts;
    int cgroup;            /* a CGROUP DUMP block */
    int listing;           /* the header in force: PD_* */
    int warned;            /* the block's one unknown_record is said */
    int skipping;          /* inside a line longer than the limit */
    tread_buf line;        /* a line split across feeds */
    uint64_t line_off;
    tread_buf args;        /* the delivered event's args (tokens) */
    unsigned char held[128]; /* the block's first bytes (sys_pdump_hold) */
    size_t held_len, held_pos;
    uint64_t held_off;
} sys_pdump;

void sys_pdump_init(sys_pdump *pd, tread_parser *p, int cgroup, sys_pdump_counts *counts);
void sys_pdump_free(sys_pdump *pd);
/* The bytes the container looked at to know the block (at most 128, at
 * input offset off): read before the next feed's, a pause among them
 * kept. */
void sys_pdump_hold(sys_pdump *pd, const unsigned char *d, size_t n, uint64_t off);
/* Block content d[0..n) at input offset off. *consumed: bytes taken.
 * TREAD_STATUS_PAUSED after a callback asked to stop (the rest is fed
 * again); TREAD_STATUS_ERROR when out of memory (recorded). */
tread_status sys_pdump_feed(sys_pdump *pd, const unsigned char *d, size_t n, uint64_t off,
                            size_t *consumed);
/* The block ended: the held bytes, then its last line if it had no line
 * break. TREAD_STATUS_PAUSED when a held line's callback asked to stop:
 * call again. */
tread_status sys_pdump_finish(sys_pdump *pd);

#endif
