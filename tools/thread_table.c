/* thread_table: see thread_table.h. */
#include "thread_table.h"

#include <stdlib.h>
#include <string.h>

#define INITIAL_SLOTS 64u
#define INITIAL_STACK 16u

int thread_table_init(thread_table *t)
{
    memset(t, 0, sizeof *t);
    t->slots = calloc(INITIAL_SLOTS, sizeof *t->slots);
    if (!t->slots)
        return -1;
    t->n_slots = INITIAL_SLOTS;
    return 0;
}

void thread_table_free(thread_table *t)
{
    for (uint32_t i = 0; i < t->n_slots; i++)
        free(t->slots[i].stack);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

/* Multiply-xorshift: ids are few and lookups frequent, so a full
 * finaliser is not worth its latency. */
static uint32_t hash_ids(int64_t pid, int64_t tid)
{
    uint64_t h = ((uint64_t)pid * 0x9e3779b97f4a7c15ull ^ (uint64_t)tid) *
                 0xbf58476d1ce4e5b9ull;
    return (uint32_t)(h ^ (h >> 32));
}

static int grow(thread_table *t)
{
    uint32_t n = t->n_slots * 2;
    thread_entry *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (uint32_t i = 0; i < t->n_slots; i++) {
        const thread_entry *e = &t->slots[i];
        if (!e->used)
            continue;
        uint32_t j = hash_ids(e->pid, e->tid) & (n - 1);
        while (slots[j].used)
            j = (j + 1) & (n - 1);
        slots[j] = *e;
    }
    free(t->slots);
    t->slots = slots;
    t->n_slots = n;
    t->last[0] = t->last[1] = NULL;
    return 0;
}

/* A new entry for (pid, tid), whose free slot is i. Kept out of line:
 * inlined, its registers would be saved on every lookup. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static thread_entry *insert(thread_table *t, int64_t pid, int64_t tid, uint32_t i)
{
    if (t->n_used >= THREAD_TABLE_MAX) {
        t->capped = 1;
        return NULL;
    }
    if ((t->n_used + 1) * 2 > t->n_slots) {
        if (grow(t) != 0) {
            t->capped = 1;
            return NULL;
        }
        uint32_t mask = t->n_slots - 1;
        i = hash_ids(pid, tid) & mask;
        while (t->slots[i].used)
            i = (i + 1) & mask;
    }
    thread_entry *e = &t->slots[i];
    memset(e, 0, sizeof *e);
    e->used = 1;
    e->pid = pid;
    e->tid = tid;
    t->n_used++;
    return e;
}

thread_entry *thread_table_find(thread_table *t, int64_t pid, int64_t tid)
{
    int k = pid == INT64_MIN;
    uint32_t mask = t->n_slots - 1;
    uint32_t i = hash_ids(pid, tid) & mask;
    thread_entry *e;
    for (;;) {
        e = &t->slots[i];
        if (!e->used) {
            e = insert(t, pid, tid, i);
            if (!e)
                return NULL;
            break;
        }
        if (e->pid == pid && e->tid == tid)
            break;
        i = (i + 1) & mask;
    }
    t->last[k] = e;
    t->last_pid[k] = pid;
    t->last_tid[k] = tid;
    return e;
}

int thread_slice_push_slow(thread_table *t, thread_entry *e, slice_frame f)
{
    /* Once one B overflowed, later ones must too, or E events would be
     * matched to the wrong B. */
    if (e->overflow > 0 || e->depth >= SLICE_STACK_MAX_DEPTH)
        goto overflow;
    if (e->depth == e->stack_cap) {
        uint32_t cap = e->stack_cap ? e->stack_cap * 2 : INITIAL_STACK;
        if (cap > SLICE_STACK_MAX_DEPTH)
            cap = SLICE_STACK_MAX_DEPTH;
        uint32_t more = cap - e->stack_cap;
        if (t->frames + more > SLICE_STACK_BUDGET)
            goto overflow;
        slice_frame *s = realloc(e->stack, (size_t)cap * sizeof *s);
        if (!s)
            goto overflow;
        e->stack = s;
        e->stack_cap = cap;
        t->frames += more;
    }
    e->stack[e->depth++] = f;
    return 0;
overflow:
    e->overflow++;
    return -1;
}
