/* stats_rank: see stats_rank.h. Ties break on the name (or pid) so the
 * output does not depend on hash order. */
#include "stats_rank.h"

#include <stdlib.h>
#include <string.h>

#include "topn.h"

static int name_less(const name_table *t, uint32_t a, uint32_t b)
{
    size_t la, lb;
    const char *sa = name_table_str(t, a, &la);
    const char *sb = name_table_str(t, b, &lb);
    int c = memcmp(sa, sb, la < lb ? la : lb);
    if (c != 0)
        return c < 0;
    if (la != lb)
        return la < lb;
    return a < b;
}

static int count_eligible(const void *ctx, uint32_t i)
{
    const name_table *t = ctx;
    return t->entries[i].count > 0;
}

static int count_before(const void *ctx, uint32_t a, uint32_t b)
{
    const name_table *t = ctx;
    uint64_t ca = t->entries[a].count, cb = t->entries[b].count;
    if (ca != cb)
        return ca > cb;
    return name_less(t, a, b);
}

static int duration_eligible(const void *ctx, uint32_t i)
{
    const name_table *t = ctx;
    return t->entries[i].total_dur > 0;
}

static int duration_before(const void *ctx, uint32_t a, uint32_t b)
{
    const name_table *t = ctx;
    int64_t da = t->entries[a].total_dur, db = t->entries[b].total_dur;
    if (da != db)
        return da > db;
    return name_less(t, a, b);
}

static int process_eligible(const void *ctx, uint32_t i)
{
    const process_table *t = ctx;
    return t->slots[i].used;
}

static int process_before(const void *ctx, uint32_t a, uint32_t b)
{
    const process_table *t = ctx;
    const process_entry *pa = &t->slots[a], *pb = &t->slots[b];
    if (pa->events != pb->events)
        return pa->events > pb->events;
    return pa->pid < pb->pid;
}

int stats_rank(stats_ranking *r, const stats_collector *c, size_t top)
{
    const name_table *names = &c->names;
    const process_table *procs = &c->processes;
    size_t k_names = top < names->n_entries ? top : names->n_entries;
    size_t k_procs = top < procs->n_used ? top : procs->n_used;

    memset(r, 0, sizeof *r);
    /* +1: malloc(0) may return NULL, which would look like a failure. */
    r->by_count = malloc((k_names + 1) * sizeof *r->by_count);
    r->by_duration = malloc((k_names + 1) * sizeof *r->by_duration);
    r->processes = malloc((k_procs + 1) * sizeof *r->processes);
    if (!r->by_count || !r->by_duration || !r->processes) {
        stats_ranking_free(r);
        return -1;
    }
    r->n_by_count = topn_select(names, names->n_entries, count_eligible,
                                count_before, r->by_count, k_names);
    r->n_by_duration = topn_select(names, names->n_entries,
                                   duration_eligible, duration_before,
                                   r->by_duration, k_names);
    r->n_processes = topn_select(procs, procs->n_slots, process_eligible,
                                 process_before, r->processes, k_procs);
    return 0;
}

void stats_ranking_free(stats_ranking *r)
{
    free(r->by_count);
    free(r->by_duration);
    free(r->processes);
    memset(r, 0, sizeof *r);
}
