/* stats_stream: see stats_stream.h. */
#include "stats_stream.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void) { return test_rand(&rng); }

tread_event stats_stream[N_EVENTS];
static char names[64][16];

void stats_stream_make(void)
{
    for (int i = 0; i < 64; i++)
        snprintf(names[i], sizeof names[i], "name%d", i);
    int deep = 0;
    for (int i = 0; i < N_EVENTS; i++) {
        tread_event *e = &stats_stream[i];
        memset(e, 0, sizeof *e);
        uint64_t r = next_rand();
        e->ts = 1000 + i * 10 - (int64_t)(r % 7); /* not quite sorted */
        e->flags = TREAD_HAS_TS | TREAD_HAS_PID | TREAD_HAS_TID;
        e->pid = 1 + (int64_t)(r >> 8) % 5;
        e->tid = e->pid * 100 + (int64_t)(r >> 16) % 4;
        const char *nm = names[(r >> 24) % 64];
        e->name.ptr = nm;
        e->name.len = strlen(nm);
        if ((r >> 40) % 3 == 0) {
            e->flags |= TREAD_HAS_PROVIDER;
            e->provider_id = (uint32_t)(r >> 44) % 3;
            e->provider_name = (tread_str){"prov", 4};
        }
        unsigned k = (unsigned)(r >> 32) % 20;
        if (i >= DEEP_FROM && i < DEEP_TO) { /* one thread nests past the limit */
            e->pid = 9;
            e->tid = 900;
            e->kind = deep < 1100 ? TREAD_EVENT_SLICE_BEGIN : TREAD_EVENT_SLICE_END;
            deep++;
        } else if (k < 7) {
            e->kind = TREAD_EVENT_SLICE_BEGIN;
        } else if (k < 14) {
            e->kind = TREAD_EVENT_SLICE_END;
            if (k == 13)
                e->flags &= ~(uint32_t)TREAD_HAS_TS;
        } else if (k < 16) {
            e->kind = TREAD_EVENT_COMPLETE;
            e->flags |= TREAD_HAS_DUR;
            e->dur = (int64_t)(r % 50);
        } else if (k == 16) { /* a slice on a track, no thread */
            e->kind = (r & 1) ? TREAD_EVENT_SLICE_BEGIN : TREAD_EVENT_SLICE_END;
            e->flags = TREAD_HAS_TS | TREAD_HAS_TRACK;
            e->track_uuid = 7 + (r >> 1) % 2;
        } else if (k == 17) {
            e->kind = TREAD_EVENT_METADATA;
            e->meta = TREAD_META_PROCESS_NAME;
            e->meta_str = (tread_str){names[(r >> 50) % 64], 5};
        } else if (k == 18) {
            e->kind = TREAD_EVENT_INSTANT;
            e->flags |= TREAD_PID_IS_STRING;
            e->pid = 11; /* a process only string pids name */
            e->pid_str = (tread_str){"strpid", 6};
        } else {
            e->kind = TREAD_EVENT_INSTANT;
            e->flags &= ~(uint32_t)TREAD_HAS_PID;
        }
    }
}

char *stats_describe(const stats_collector *c, int slices)
{
    size_t cap = 1 << 20, len = 0;
    char *s = malloc(cap);
#define PUT(...) (len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__))
    PUT("time %d %" PRId64 " %" PRId64 "\n", c->has_time, c->min_ts, c->max_end);
    if (slices)
        PUT("slices %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
        c->slices_matched, c->unmatched_end, c->unclosed_begin, c->depth_overflow, c->untracked);
    for (uint32_t i = 0; i < c->names.n_entries; i++) {
        size_t n;
        const char *str = name_table_str(&c->names, i, &n);
        PUT("name %.*s %" PRIu64 " %" PRId64 "\n", (int)n, str, c->names.entries[i].count,
            slices ? c->names.entries[i].total_dur : 0);
    }
    PUT("threads seen %u\n", c->threads.n_seen);
    for (int64_t pid = 0; pid < 12; pid++) {
        const process_table *pt = &c->processes;
        for (uint32_t i = 0; i < pt->n_slots; i++) {
            const process_entry *p = &pt->slots[i];
            if (p->used && p->pid == pid)
                PUT("process %" PRId64 " %" PRIu64 " %u %.*s %d\n", p->pid, p->events,
                    p->threads, (int)p->label_len, process_label(pt, p), p->label_is_name);
        }
    }
    for (uint32_t i = 0; i < c->n_providers; i++)
        PUT("provider %u %" PRIu64 " %.*s\n", c->providers[i].id, c->providers[i].events,
            (int)c->providers[i].name_len, c->providers[i].name);
#undef PUT
    return s;
}

