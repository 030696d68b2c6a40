/*
 * tread/ftrace.h: the raw ftrace line hook (tread_callbacks.ftrace_line).
 *
 * Every line the ftrace text decoder reads, at the top level or inside a
 * container (systrace HTML blocks, ctrace, a JSON trace's
 * systemTraceEvents string: after base64, inflate or unescaping), is
 * handed to the hook before the event made from it, with its bytes as the
 * decoder saw them and what the decoder makes of it. A line longer than
 * TREAD_OPT_MAX_LINE_BYTES is not held: the hook sees it as
 * TREAD_FTRACE_LINE_TOO_LONG without its bytes.
 *
 * Copyright (c) 2026 the tread authors. MIT licensed, see COPYING.
 */
#ifndef TREAD_FTRACE_H
#define TREAD_FTRACE_H

#include <tread.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the decoder makes of a line (doc/formats/ftrace.md, 2). */
enum {
    TREAD_FTRACE_LINE_OTHER = 0,   /* not understood: a bad_record warning */
    TREAD_FTRACE_LINE_HEADER,      /* blank, '#' comment, "version = N",
                                      "TRACE:", function_graph separators:
                                      skipped */
    TREAD_FTRACE_LINE_CPUS,        /* trace-cmd report's "cpus=N": the
                                      num_cpus metadata event */
    TREAD_FTRACE_LINE_CPU_EMPTY,   /* "CPU N is empty": counted, no event */
    TREAD_FTRACE_LINE_EVENT,       /* an event line */
    TREAD_FTRACE_LINE_FUNCTION,    /* a function tracer line */
    TREAD_FTRACE_LINE_GRAPH,       /* a function_graph line */
    TREAD_FTRACE_LINE_STACK,       /* " => func": counted, no event */
    TREAD_FTRACE_LINE_LOST,        /* "CPU:N [LOST M EVENTS]": a data_loss
                                      warning */
    TREAD_FTRACE_LINE_TOO_LONG     /* longer than TREAD_OPT_MAX_LINE_BYTES:
                                      skipped with a bad_record warning;
                                      data is NULL */
};

struct tread_ftrace_line {
    /* The line's bytes without its '\n' (a '\r' before it is kept), as the
     * decoder reads them. Valid until the callback returns. */
    const char *data;
    size_t len;
    int newline;             /* 1: a '\n' ended it; 0: the last line of the
                                text, ended by the end of its input */
    unsigned kind;           /* TREAD_FTRACE_LINE_* */
    uint64_t offset;         /* as the events': the line's first byte in
                                the input (doc/formats/systrace.md for
                                lines inside containers) */
    uint32_t text;           /* which ftrace text it is part of: 1 for the
                                first the parser reads (a top-level ftrace
                                input's only one), 2 for a container's
                                second block of ftrace text, ... */
};

#ifdef __cplusplus
}
#endif
#endif /* TREAD_FTRACE_H */
