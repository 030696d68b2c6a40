/* split_pf_run: split_perfetto over a trace in memory, into pieces_mem
 * (see split_pf_check.h). Apart from split_pf_check.c, which a program
 * linked with the real split_pieces.c uses too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tread.h>
#include <tread/perfetto.h>

#include "split_pf_check.h"

/* ---- running the split ------------------------------------------------ */

typedef struct run {
    split_perfetto *s;
    int failed;
} run;

static int run_packet(void *user, const tread_perfetto_packet *pk)
{
    run *r = user;
    if (split_perfetto_packet(r->s, pk))
        r->failed = 1;
    return 0;
}

static int run_event(void *user, const tread_event *ev)
{
    run *r = user;
    if (split_perfetto_event(r->s, ev))
        r->failed = 1;
    return 0;
}


int split_pf_run(const void *in, size_t len, uint64_t max_bytes, size_t chunk, pieces_mem *pm,
                 split_perfetto_stats *st, char *err, size_t errlen)
{
    split_pieces *sp;
    split_pieces_config cfg = {"mem", "pftrace", max_bytes, 0};
    memset(pm, 0, sizeof *pm);
    if (split_pieces_new(&sp, &cfg, err, errlen))
        return -1;
    run r = {split_perfetto_new(sp), 0};
    if (!r.s)
        abort();
    tread_callbacks cb = {.event = run_event, .perfetto_packet = run_packet};
    tread_parser *p = tread_parser_create(NULL);
    if (!p)
        abort();
    tread_set_callbacks(p, &cb, &r);
    tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_PERFETTO);
    split_pf_feed(p, in, len, chunk);
    tread_parser_free(p);
    int rc = 0;
    if (r.failed || split_perfetto_finish(r.s)) {
        snprintf(err, errlen, "%s", split_perfetto_error(r.s));
        rc = -1;
    }
    if (st)
        *st = *split_perfetto_get_stats(r.s);
    split_perfetto_free(r.s);
    pieces_mem_take(sp, pm);
    split_pieces_free(sp);
    return rc;
}

