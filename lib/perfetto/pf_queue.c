/*
 * The event queue: the events of one packet are built into it first (all
 * state changes happen then, exactly once), then pf_decoder.c delivers
 * them, and a stop in the middle leaves the rest here for resume. Every
 * payload handler builds its events through these slots.
 */
#include "perfetto/pf_queue.h"

#include <string.h>

int pf_queue_grow(pf_decoder *d, uint64_t off)
{
    size_t n = d->q_cap ? d->q_cap * 2 : 16;
    pf_qitem *q = tread_realloc(&d->p->alloc, d->q, n * sizeof *q);
    if (!q) {
        tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
        return -1;
    }
    memset(q + d->q_cap, 0, (n - d->q_cap) * sizeof *q);
    d->q = q;
    d->q_cap = n;
    return 0;
}

pf_qitem *pf_queue_slot(pf_decoder *d, uint64_t off)
{
    if (d->q_len == d->q_cap && pf_queue_grow(d, off))
        return NULL;
    pf_qitem *it = &d->q[d->q_len++];
    it->is_hook = it->skip = it->fmt_id = it->fmt_bind = 0;
    it->nul = 0;
    it->plain = 0;
    it->bind_num = 0;
    it->seq = NULL;
    it->general = 1;
    return it;
}

pf_qitem *pf_queue_event(pf_decoder *d, const pf_base *base)
{
    pf_qitem *it = pf_queue_slot(d, base ? base->offset : 0);
    if (!it || !base)
        return it; /* (the raw hook: no event) */
    tread_event *ev = &it->ev;
    pf_reset_event_common(ev, base);
    pf_reset_event_rare(ev);
    return it;
}
