/* stats_collect: see stats_collect.h. */
#include "stats_collect.h"

#include <stdlib.h>
#include <string.h>


int stats_collector_init(stats_collector *c)
{
    memset(c, 0, sizeof *c);
    if (name_table_init(&c->names) != 0)
        return -1;
    if (thread_table_init(&c->threads) != 0 ||
        process_table_init(&c->processes) != 0) {
        stats_collector_free(c);
        return -1;
    }
    return 0;
}

void stats_collector_free(stats_collector *c)
{
    free(c->under);
    c->under = NULL;
    name_table_free(&c->names);
    thread_table_free(&c->threads);
    process_table_free(&c->processes);
}

int64_t stats_add_sat(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

void stats_collector_add_duration(stats_collector *c, uint32_t id, int64_t dur)
{
    if (id == STATS_NO_NAME || dur <= 0)
        return;
    name_entry *e = name_table_entry(&c->names, id);
    e->total_dur = stats_add_sat(e->total_dur, dur);
}

static void note_time(stats_collector *c, const tread_event *ev)
{
    /* Metadata and stack frame definitions carry no real time (often 0)
     * and would stretch the range. */
    if (!(ev->flags & TREAD_HAS_TS) || ev->kind == TREAD_EVENT_METADATA ||
        ev->kind == TREAD_EVENT_STACK_FRAME)
        return;
    int64_t end = ev->ts;
    if ((ev->flags & TREAD_HAS_DUR) && ev->dur > 0)
        end = stats_add_sat(end, ev->dur);
    if (!c->has_time) {
        c->has_time = 1;
        c->min_ts = ev->ts;
        c->max_end = end;
        return;
    }
    if (ev->ts < c->min_ts)
        c->min_ts = ev->ts;
    if (end > c->max_end)
        c->max_end = end;
}

/* Processes and threads: only events that name a pid count. */
static thread_entry *note_thread(stats_collector *c, const tread_event *ev)
{
    if (!(ev->flags & TREAD_HAS_PID))
        return NULL;
    /* each thread entry keeps its process: one lookup for both */
    thread_entry *t = thread_table_get(&c->threads, ev->pid, ev->tid);
    process_entry *p;
    if (t && t->proc && t->proc_gen == c->processes.gen) {
        p = t->proc;
    } else {
        p = process_table_get(&c->processes, ev->pid);
        if (t) {
            t->proc = p;
            t->proc_gen = c->processes.gen;
        }
    }
    if (p) {
        p->events++;
        if ((ev->flags & TREAD_PID_IS_STRING) && ev->pid_str.ptr)
            process_set_label(&c->processes, p, ev->pid_str.ptr,
                              ev->pid_str.len, 0);
        if (ev->kind == TREAD_EVENT_METADATA &&
            ev->meta == TREAD_META_PROCESS_NAME && ev->meta_str.ptr)
            process_set_label(&c->processes, p, ev->meta_str.ptr,
                              ev->meta_str.len, 1);
    }
    if (t && !t->seen) {
        t->seen = 1;
        c->threads.n_seen++;
        if (p)
            p->threads++;
    }
    return t;
}

static void slice_begin(stats_collector *c, thread_entry *t,
                        const tread_event *ev, uint32_t id)
{
    if (!t) {
        c->untracked++;
        return;
    }
    slice_frame f = {ev->ts, id, (ev->flags & TREAD_HAS_TS) != 0};
    if (thread_slice_push(&c->threads, t, f) != 0)
        c->depth_overflow++;
}

static void keep_underflow(stats_collector *c, const thread_entry *t, const tread_event *ev)
{
    if (c->n_under == c->under_cap) {
        uint32_t cap = c->under_cap ? c->under_cap * 2 : 64;
        stats_underflow *u = cap <= STATS_UNDERFLOW_MAX ? realloc(c->under, cap * sizeof *u)
                                                        : NULL;
        if (!u) {
            c->under_capped = 1;
            return;
        }
        c->under = u;
        c->under_cap = cap;
    }
    c->under[c->n_under++] =
        (stats_underflow){t->pid, t->tid, ev->ts, (ev->flags & TREAD_HAS_TS) != 0};
}

static void slice_end(stats_collector *c, thread_entry *t,
                      const tread_event *ev)
{
    slice_frame f;
    int overflowed;
    if (!t) {
        c->untracked++;
        return;
    }
    if (!thread_slice_pop(t, &f, &overflowed)) {
        if (!overflowed) {
            c->unmatched_end++;
            if (c->keep_underflows)
                keep_underflow(c, t, ev);
        }
        return;
    }
    c->slices_matched++;
    if (f.has_ts && (ev->flags & TREAD_HAS_TS))
        stats_collector_add_duration(c, f.name_id, ev->ts - f.ts);
}

static void note_provider(stats_collector *c, const tread_event *ev)
{
    uint32_t i = c->last_provider;
    if (i >= c->n_providers || c->providers[i].id != ev->provider_id) {
        for (i = 0; i < c->n_providers && c->providers[i].id != ev->provider_id; i++)
            ;
        if (i == c->n_providers) {
            if (c->n_providers == STATS_MAX_PROVIDERS) {
                c->providers_capped = 1;
                return;
            }
            memset(&c->providers[i], 0, sizeof c->providers[i]);
            c->providers[i].id = ev->provider_id;
            c->n_providers++;
        }
        c->last_provider = i;
    }
    provider_entry *e = &c->providers[i];
    e->events++;
    if (!e->name_len && ev->provider_name.ptr && ev->provider_name.len) {
        size_t n = ev->provider_name.len;
        if (n > sizeof e->name)
            n = sizeof e->name;
        memcpy(e->name, ev->provider_name.ptr, n);
        e->name_len = n;
    }
}

int stats_collector_event(void *user, const tread_event *ev)
{
    return stats_collector_event_keyed(user, ev, ev->name.ptr);
}

int stats_collector_event_keyed(stats_collector *c, const tread_event *ev, const void *name_key)
{
    if (ev->flags & TREAD_HAS_PROVIDER)
        note_provider(c, ev);
    note_time(c, ev);
    thread_entry *t = note_thread(c, ev);

    /* E events are the second half of a B (and often nameless): counting
     * them would count every B/E slice twice. */
    uint32_t id = STATS_NO_NAME;
    if (ev->kind != TREAD_EVENT_SLICE_END && ev->name.ptr) {
        id = name_table_intern_keyed(&c->names, name_key, ev->name.ptr, ev->name.len);
        name_table_entry(&c->names, id)->count++;
    }

    switch (ev->kind) {
    case TREAD_EVENT_COMPLETE:
        if (ev->flags & TREAD_HAS_DUR)
            stats_collector_add_duration(c, id, ev->dur);
        break;
    case TREAD_EVENT_SLICE_BEGIN:
    case TREAD_EVENT_SLICE_END:
        /* Slices nest per track where the format has tracks (Perfetto
         * async tracks have no thread), else per thread; matching needs
         * an entry even when the event gave no pid. Track entries use a
         * pid no event has and are never counted as threads. */
        if (ev->flags & TREAD_HAS_TRACK)
            t = thread_table_get(&c->threads, INT64_MIN, (int64_t)ev->track_uuid);
        else if (!t)
            t = thread_table_get(&c->threads, ev->pid, ev->tid);
        if (ev->kind == TREAD_EVENT_SLICE_BEGIN)
            slice_begin(c, t, ev, id);
        else
            slice_end(c, t, ev);
        break;
    default:
        break;
    }
    return 0;
}

void stats_collector_finish(stats_collector *c)
{
    c->unclosed_begin = 0;
    for (uint32_t i = 0; i < c->threads.n_slots; i++) {
        const thread_entry *t = &c->threads.slots[i];
        if (t->used)
            c->unclosed_begin += (uint64_t)t->depth + t->overflow;
    }
}
