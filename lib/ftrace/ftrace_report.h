/*
 * The payloads `trace-cmd report` prints in its own shapes instead of the
 * kernel's key=value form: libtraceevent's sched plugin writes
 *
 *   sched_switch      PREV_COMM:PREV_PID [PREV_PRIO] STATE ==> NEXT_COMM:NEXT_PID [NEXT_PRIO]
 *   sched_wakeup(_new) COMM:PID [PRIO] [success=N] CPU:NNN
 *
 * A comm may hold blanks, colons and "==>"-free punctuation
 * ("rs:main Q:Reg:238", "kworker/2:1:2923"): the pid is the digits after the
 * LAST colon, and the optional columns are peeled from the right. STATE is
 * the plugin's letters (bit i of prev_state is "SDTtZXxW"[i], '|' between,
 * "R" for none), kept as printed. Zero copy: every string points into the
 * payload. No state.
 */
#ifndef TREAD_FTRACE_REPORT_H
#define TREAD_FTRACE_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <tread.h>

/* A number as printed: its value and its text. */
typedef struct ftrace_report_num {
    int64_t v;
    tread_str text;
    int has;
} ftrace_report_num;

typedef struct ftrace_report_switch {
    tread_str prev_comm, prev_state, next_comm;
    ftrace_report_num prev_pid, prev_prio, next_pid, next_prio;
    int has_prev_state;
} ftrace_report_switch;

typedef struct ftrace_report_wakeup {
    tread_str comm;
    ftrace_report_num pid, prio, success, target_cpu;
} ftrace_report_wakeup;

/* Parse payload s[0..n) (trimmed). Return 0 when it has the shape, -1 when
 * not (*o is then undefined). */
int ftrace_report_parse_switch(const char *s, size_t n, ftrace_report_switch *o);
int ftrace_report_parse_wakeup(const char *s, size_t n, ftrace_report_wakeup *o);

#endif
