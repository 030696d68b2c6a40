/*
 * thread_table: one entry per (pid, tid) for `tread stats`, each with a
 * stack of open B slices so that E events can be matched to them. Open
 * addressing with entries stored in the slots. Bounded: at most
 * THREAD_TABLE_MAX threads, stacks of at most SLICE_STACK_MAX_DEPTH frames
 * and SLICE_STACK_BUDGET frames over all threads; a B that does not fit is
 * counted as an overflow and its E is then skipped.
 */
#ifndef TREAD_TOOLS_THREAD_TABLE_H
#define TREAD_TOOLS_THREAD_TABLE_H

#include <stdint.h>

#define THREAD_TABLE_MAX 32768u
#define SLICE_STACK_MAX_DEPTH 1024u
#define SLICE_STACK_BUDGET (128u * 1024u) /* frames, 16 bytes each */

typedef struct slice_frame {
    int64_t ts;
    uint32_t name_id;     /* name_table index of the B's name */
    uint32_t has_ts;
} slice_frame;

struct process_entry;

typedef struct thread_entry {
    int64_t pid, tid;
    /* the process entry of pid, for the stats collector: valid while the
     * process table's generation is proc_gen (see process_table.h) */
    struct process_entry *proc;
    uint32_t proc_gen;
    slice_frame *stack;
    uint32_t depth;
    uint32_t stack_cap;
    uint32_t overflow;    /* B events past the stack, awaiting their E */
    uint8_t used;
    uint8_t seen;         /* an event named this thread with a pid */
} thread_entry;

typedef struct thread_table {
    thread_entry *slots;
    uint32_t n_slots;     /* a power of two */
    uint32_t n_used;
    uint32_t n_seen;
    uint32_t frames;      /* stack frames allocated over all threads */
    int capped;           /* some threads were not tracked */
    /* the last entry found, for threads (0) and for tracks (1, pid
     * INT64_MIN): events come in runs on one thread or track */
    int64_t last_pid[2], last_tid[2];
    thread_entry *last[2];
} thread_table;

int thread_table_init(thread_table *t);
void thread_table_free(thread_table *t);

/* The entry for (pid, tid), created if new; NULL when the table is full
 * (or memory ran out). */
thread_entry *thread_table_find(thread_table *t, int64_t pid, int64_t tid);

/* thread_table_find, with the last entry of each kind checked first. */
static inline thread_entry *thread_table_get(thread_table *t, int64_t pid, int64_t tid)
{
    int k = pid == INT64_MIN;
    if (t->last[k] && t->last_pid[k] == pid && t->last_tid[k] == tid)
        return t->last[k];
    return thread_table_find(t, pid, tid);
}

/* thread_slice_push when the stack must grow, or overflows. */
int thread_slice_push_slow(thread_table *t, thread_entry *e, slice_frame f);

/* Pushes an open slice. Returns 0, or -1 when it does not fit (the caller
 * counts it; e->overflow then absorbs the matching E). Inline, as is
 * pop: every B and E event of a trace comes here. */
static inline int thread_slice_push(thread_table *t, thread_entry *e, slice_frame f)
{
    if (e->overflow == 0 && e->depth < e->stack_cap) {
        e->stack[e->depth++] = f;
        return 0;
    }
    return thread_slice_push_slow(t, e, f);
}

/* Pops the innermost open slice into *f. Returns 1, or 0 when the E has
 * no B (or belongs to an overflowed B: then *f is untouched and
 * *overflowed is set). */
static inline int thread_slice_pop(thread_entry *e, slice_frame *f, int *overflowed)
{
    *overflowed = 0;
    if (e->overflow > 0) {
        e->overflow--;
        *overflowed = 1;
        return 0;
    }
    if (e->depth == 0)
        return 0;
    *f = e->stack[--e->depth];
    return 1;
}

#endif
