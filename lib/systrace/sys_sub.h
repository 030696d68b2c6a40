/*
 * A sub-trace: a trace carried inside another one (a systrace HTML block,
 * a ctrace's inflated text, a JSON trace's systemTraceEvents string). Its
 * bytes are sniffed like a top-level input and fed to a nested decoder of
 * the same parser, so its events reach the same callbacks.
 *
 * Bytes reach it either zero-copy (sys_sub_pass: text taken verbatim from
 * the container) or written into its staging buffer by a transform
 * (unescaping, base64, inflate: sys_sub_room / sys_sub_commit). A stop
 * requested by a callback inside the nested decoder pauses the sub-trace:
 * the staged bytes it did not take stay staged, and sys_sub_resume goes
 * on from there. A nested decoder that fails (other than out of memory)
 * costs a warning and the rest of that sub-trace, not the container.
 *
 * Memory: one staging buffer of SYS_SUB_STAGE bytes and the nested
 * decoder's own bounded state.
 */
#ifndef TREAD_SYSTRACE_SUB_H
#define TREAD_SYSTRACE_SUB_H

#include "core/parser.h"

/* Staging buffer size; at least TREAD_SNIFF_MAX so that sniffing can
 * decide on staged bytes alone. */
#define SYS_SUB_STAGE 16384

/* The format counters of the sub-traces a container has finished, summed
 * by "format.name" ("ftrace.lines"), for the container's counters op:
 * added when a nested decoder is freed (a block's end, a nested failure).
 * Bounded: names past SYS_COUNTS_MAX are dropped. */
#define SYS_COUNTS_MAX 256
#define SYS_COUNT_NAME 48
typedef struct sys_counts {
    struct sys_count {
        char name[SYS_COUNT_NAME];
        uint64_t value;
    } *v;
    size_t n;
} sys_counts;

void sys_counts_free(sys_counts *c, tread_parser *p);
/* Appends the summed counters to out (n already there), as a counters op
 * does; returns the new n. */
size_t sys_counts_put(const sys_counts *c, tread_counter *out, size_t max, size_t n);

typedef struct sys_sub {
    tread_parser *p;
    sys_counts *counts;     /* where the nested counters go (may be NULL) */
    tread_format fallback;  /* when the sniffer recognises nothing */
    const char *what;       /* for messages: "systemTraceEvents", ... */
    uint64_t off;           /* container offset where the sub-trace starts */
    const tread_decoder_ops *ops;
    void *dec;
    int decided;            /* ops chosen (or dead) */
    int dead;               /* the rest is skipped */
    int resume;             /* the nested decoder paused: feed it len 0 first */
    int finished;
    unsigned char *buf;     /* staged bytes [head, head + len) */
    size_t head, len;
    uint64_t buf_off;       /* container offset the staged bytes stand for */
    uint64_t next_off;      /* container offset just past what the nested
                               decoder took, staged or passed: where a paused
                               one resumes, where its input ends at finish */
} sys_sub;

/* Starts a sub-trace at container offset off. Returns 0, or -1 when out of
 * memory (recorded in the parser). */
int sys_sub_init(sys_sub *s, tread_parser *p, tread_format fallback, const char *what,
                 uint64_t off, sys_counts *counts);
void sys_sub_free(sys_sub *s);

/* Space at the end of the staging buffer (*room bytes, 0 when full: flush
 * first). */
unsigned char *sys_sub_room(sys_sub *s, size_t *room);
/* n bytes were written into the room; in_off is the container offset they
 * stand for (used for the nested decoder's offsets). */
void sys_sub_commit(sys_sub *s, size_t n, uint64_t in_off);
/* Feeds the staged bytes (sniffing first when undecided; final says no
 * more bytes come). TREAD_STATUS_OK: all taken (or skipped);
 * TREAD_STATUS_PAUSED: a callback stopped it, the rest stays staged;
 * TREAD_STATUS_ERROR: out of memory (recorded). */
tread_status sys_sub_flush(sys_sub *s, int final);
/* Verbatim container bytes at offset off: fed without copying when
 * nothing is staged. *consumed: how many were taken (fed or staged). */
tread_status sys_sub_pass(sys_sub *s, const unsigned char *d, size_t n, uint64_t off,
                          size_t *consumed);
/* After a pause: lets the nested decoder finish what it stopped in, then
 * feeds what is staged. */
tread_status sys_sub_resume(sys_sub *s);
/* The end of the sub-trace: flushes, then finishes the nested decoder.
 * May pause (call again). */
tread_status sys_sub_finish(sys_sub *s);
/* Is a paused nested decoder waiting for sys_sub_resume? */
static inline int sys_sub_paused(const sys_sub *s) { return s->resume; }

#endif
