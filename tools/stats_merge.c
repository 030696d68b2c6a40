/* stats_merge: see stats_merge.h. */
#include "stats_merge.h"

#include <stdlib.h>
#include <string.h>

/* Every name of from, by its id there, as an id of c (counts and
 * durations added); map[0] is "(other)". New names come in from's order,
 * which is their order of first appearance in the trace: the ranges
 * before from did not have them. */
static uint32_t *merge_names(stats_collector *c, const stats_collector *from)
{
    const name_table *fn = &from->names;
    uint32_t *map = malloc((size_t)fn->n_entries * sizeof *map);
    if (!map)
        return NULL;
    for (uint32_t id = 0; id < fn->n_entries; id++) {
        uint32_t to = NAME_OTHER;
        if (id != NAME_OTHER) {
            size_t len;
            const char *s = name_table_str(fn, id, &len);
            to = name_table_intern(&c->names, s, len);
        }
        name_entry *e = name_table_entry(&c->names, to);
        e->count += fn->entries[id].count;
        e->total_dur = stats_add_sat(e->total_dur, fn->entries[id].total_dur);
        map[id] = to;
    }
    c->names.capped |= fn->capped;
    return map;
}

/* from's E events that found an empty stack, in trace order: each takes
 * the innermost B still open in c, as it would have in one pass. */
static void merge_underflows(stats_collector *c, const stats_collector *from)
{
    uint64_t unmatched = from->unmatched_end;
    for (uint32_t i = 0; i < from->n_under; i++) {
        const stats_underflow *u = &from->under[i];
        thread_entry *t = thread_table_get(&c->threads, u->pid, u->tid);
        slice_frame f;
        int overflowed;
        if (!t)
            continue;
        if (thread_slice_pop(t, &f, &overflowed)) {
            c->slices_matched++;
            unmatched--;
            if (f.has_ts && u->has_ts)
                stats_collector_add_duration(c, f.name_id, u->ts - f.ts);
        } else if (overflowed) {
            unmatched--; /* the E of a B past the depth limit: not counted */
        }
    }
    c->unmatched_end += unmatched;
    c->under_capped |= from->under_capped;
}

/* from's threads and tracks: seen flags, then the B slices from left open
 * (innermost last) on top of c's, and those past its depth limit. */
static void merge_threads(stats_collector *c, const stats_collector *from,
                          const uint32_t *map)
{
    const thread_table *ft = &from->threads;
    for (uint32_t i = 0; i < ft->n_slots; i++) {
        const thread_entry *e = &ft->slots[i];
        if (!e->used)
            continue;
        thread_entry *t = thread_table_get(&c->threads, e->pid, e->tid);
        if (!t)
            continue;
        if (e->seen && !t->seen) {
            t->seen = 1;
            c->threads.n_seen++;
        }
        for (uint32_t d = 0; d < e->depth; d++) {
            slice_frame f = e->stack[d];
            if (f.name_id != STATS_NO_NAME)
                f.name_id = map[f.name_id];
            if (thread_slice_push(&c->threads, t, f) != 0)
                c->depth_overflow++;
        }
        t->overflow += e->overflow;
    }
    c->threads.capped |= ft->capped;
}

static void merge_processes(stats_collector *c, const stats_collector *from)
{
    const process_table *fp = &from->processes;
    for (uint32_t i = 0; i < fp->n_slots; i++) {
        const process_entry *e = &fp->slots[i];
        if (!e->used)
            continue;
        process_entry *p = process_table_get(&c->processes, e->pid);
        if (!p)
            continue;
        p->events += e->events;
        if (e->has_label)
            process_set_label(&c->processes, p, process_label(fp, e), e->label_len,
                              e->label_is_name);
    }
    c->processes.capped |= fp->capped;
}

static void merge_providers(stats_collector *c, const stats_collector *from)
{
    for (uint32_t i = 0; i < from->n_providers; i++) {
        const provider_entry *e = &from->providers[i];
        uint32_t j = 0;
        while (j < c->n_providers && c->providers[j].id != e->id)
            j++;
        if (j == c->n_providers) {
            if (c->n_providers == STATS_MAX_PROVIDERS) {
                c->providers_capped = 1;
                continue;
            }
            c->providers[c->n_providers++] = *e;
            continue;
        }
        provider_entry *p = &c->providers[j];
        p->events += e->events;
        if (!p->name_len && e->name_len) {
            memcpy(p->name, e->name, e->name_len);
            p->name_len = e->name_len;
        }
    }
    c->providers_capped |= from->providers_capped;
}

int stats_collector_merge(stats_collector *c, const stats_collector *from)
{
    uint32_t *map = merge_names(c, from);
    if (!map)
        return -1;
    merge_underflows(c, from); /* before from's open slices go on top */
    merge_threads(c, from, map);
    free(map);
    merge_processes(c, from);
    merge_providers(c, from);
    if (from->has_time) {
        if (!c->has_time || from->min_ts < c->min_ts)
            c->min_ts = from->min_ts;
        if (!c->has_time || from->max_end > c->max_end)
            c->max_end = from->max_end;
        c->has_time = 1;
    }
    c->slices_matched += from->slices_matched;
    c->depth_overflow += from->depth_overflow;
    c->untracked += from->untracked;
    return 0;
}

void stats_collector_merge_done(stats_collector *c)
{
    process_table *pt = &c->processes;
    for (uint32_t i = 0; i < pt->n_slots; i++)
        pt->slots[i].threads = 0;
    const thread_table *tt = &c->threads;
    for (uint32_t i = 0; i < tt->n_slots; i++) {
        const thread_entry *t = &tt->slots[i];
        if (!t->used || !t->seen)
            continue;
        process_entry *p = process_table_get(pt, t->pid);
        if (p)
            p->threads++;
    }
}
