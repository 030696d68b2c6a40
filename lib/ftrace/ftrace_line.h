/*
 * One line of ftrace text, classified and split into its columns (zero
 * copy: every string points into the line). No state: the decoder calls it
 * per line; the unit tests call it directly.
 */
#ifndef TREAD_FTRACE_LINE_H
#define TREAD_FTRACE_LINE_H

#include <stddef.h>
#include <stdint.h>
#include <tread.h>

typedef enum ftrace_line_kind {
    FTRACE_LINE_BAD = 0,   /* not understood: why says what is wrong */
    FTRACE_LINE_HEADER,    /* blank, '#' comment, trace-cmd's
                              "version = N", "TRACE:", function_graph
                              separators */
    FTRACE_LINE_CPUS,      /* trace-cmd report's "cpus=N": cpu = N */
    FTRACE_LINE_CPU_EMPTY, /* trace-cmd report's "CPU N is empty": cpu = N */
    FTRACE_LINE_EVENT,     /* task-pid [cpu] flags ts: name: payload, or
                              trace-cmd report -l's latency columns
                              "comm-pid  CPUflags ts: name: payload" */
    FTRACE_LINE_FUNCTION,  /* task-pid [cpu] flags ts: func <-parent */
    FTRACE_LINE_GRAPH,     /* function_graph: [abstime |] cpu) [proc |]
                              [duration] | body */
    FTRACE_LINE_STACK,     /* " => func": a stack trace event's frame */
    FTRACE_LINE_LOST       /* CPU:N [LOST M EVENTS] */
} ftrace_line_kind;

typedef enum ftrace_graph_kind {
    FTRACE_GRAPH_ENTER = 1, /* func() { */
    FTRACE_GRAPH_EXIT,      /* }  (or } / * func * /) */
    FTRACE_GRAPH_LEAF,      /* func(); with its duration */
    FTRACE_GRAPH_COMMENT    /* / * text * / (trace_printk, markers) */
} ftrace_graph_kind;

typedef struct ftrace_line {
    ftrace_line_kind kind;
    tread_str task;        /* comm (may be empty, "<...>", "<idle>") */
    int64_t pid;           /* task's pid; has_pid */
    int64_t tgid;          /* has_tgid (a dash run is "unknown") */
    int64_t cpu;           /* has_cpu */
    int64_t ts;            /* ns; has_ts */
    int64_t dur;           /* function_graph duration ns; has_dur */
    int64_t lost;          /* LOST: events lost (-1: how many is not known) */
    tread_str flags;       /* irq-info flags column, when present */
    tread_str name;        /* event name / function name */
    tread_str payload;     /* event payload / caller / graph comment text */
    tread_str instance;    /* trace-cmd report's "NAME: " before an
                              instance buffer's event (else empty) */
    ftrace_graph_kind graph;
    unsigned char has_pid, has_tgid, has_cpu, has_ts, has_dur;
    unsigned char latency; /* EVENT in trace-cmd report -l's columns */
    const char *why;       /* FTRACE_LINE_BAD: a short reason */
} ftrace_line;

/* Classifies line s[0..n) (no newline; a final CR and a literal trailing
 * backslash-n-backslash, as cut from a JS string, are ignored). */
void ftrace_parse_line(const char *s, size_t n, ftrace_line *out);

/* "seconds.fraction" to ns (fraction digits past 9 are dropped). Returns 0,
 * -1 when it is not that shape, -2 on overflow. */
int ftrace_parse_seconds(const char *s, size_t n, int64_t *ns);

#endif
