/*
 * Packet timestamps on the sequence's clocks to the trace clock (the
 * clocks themselves: pf_clock.h); a failure is kept raw and warned
 * (pf_time.c).
 */
#ifndef TREAD_PERFETTO_PF_TIME_H
#define TREAD_PERFETTO_PF_TIME_H

#include "perfetto/pf_context.h"
#include "perfetto/pf_seq.h"

/* A timestamp that did not convert (rc): kept raw in base, warned. */
void pf_set_ts_failed(pf_decoder *d, uint32_t clock, int rc, int64_t abs, pf_base *base);
/* Resolves a timestamp on clock to the trace clock into base. */
static inline void pf_set_ts(pf_decoder *d, pf_seq *s, uint32_t clock, uint64_t value,
                             pf_base *base)
{
    int64_t abs, out;
    int rc = s ? pf_clocks_convert_memo(d->clocks, &s->clock_memo, s->id, clock, (int64_t)value,
                                        &abs, &out)
               : pf_clocks_convert(d->clocks, 0, clock, (int64_t)value, &abs, &out);
    if (PF_LIKELY(rc == PF_CLOCK_OK)) {
        base->flags |= TREAD_HAS_TS;
        base->ts = out;
        return;
    }
    pf_set_ts_failed(d, clock, rc, abs, base);
}

#endif
