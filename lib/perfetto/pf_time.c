/*
 * Packet timestamps to the trace clock: a timestamp that does not convert
 * is kept raw, warned and counted (pf_set_ts in pf_time.h does the rest).
 */
#include "perfetto/pf_time.h"

#include <inttypes.h>

void pf_set_ts_failed(pf_decoder *d, uint32_t clock, int rc, int64_t abs, pf_base *ev)
{
    ev->flags |= TREAD_HAS_RAW_TS;
    ev->raw_ts = abs;
    ev->clock_id = clock;
    d->n_clock_fail++;
    tread__warn(d->p, TREAD_WARN_CLOCK, ev->offset,
                rc == PF_CLOCK_OVERFLOW
                    ? "timestamp %" PRId64 " on clock %u is out of range on the trace clock: kept raw"
                    : "timestamp %" PRId64 " on clock %u has no path to the trace clock: kept raw",
                abs, (unsigned)clock);
}
