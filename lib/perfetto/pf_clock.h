/*
 * Perfetto clocks: ClockSnapshot bookkeeping and conversion of a packet's
 * timestamp to the trace clock (perfetto_reference.txt: ClockSnapshot,
 * BuiltinClock, TracePacket.timestamp_clock_id).
 *
 * Owned by the Perfetto decoder, one per parser. Memory is bounded: at most
 * PF_CLOCK_MAX_SNAPSHOTS_PER_DOMAIN snapshots are kept per pair of clock
 * domains (the oldest is dropped), at most PF_CLOCK_MAX_DOMAINS domains and
 * PF_CLOCK_MAX_PAIRS pairs (the least recently snapshotted is dropped).
 * The choices made where the reference is silent are listed at the top of
 * pf_clock.c.
 */
#ifndef TREAD_PERFETTO_PF_CLOCK_H
#define TREAD_PERFETTO_PF_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include "core/alloc.h"

#define PF_CLOCK_BOOTTIME 6          /* BuiltinClock BUILTIN_CLOCK_BOOTTIME */
#define PF_CLOCK_FIRST_SEQ_SCOPED 64 /* 64..127 are sequence-scoped */
#define PF_CLOCK_LAST_SEQ_SCOPED 127

/* A clock domain is a (clock id, sequence) for ids 64..127, a clock id
 * otherwise. */
#define PF_CLOCK_MAX_DOMAINS 4096
/* Snapshots kept per pair of domains that appeared in one snapshot. */
#define PF_CLOCK_MAX_SNAPSHOTS_PER_DOMAIN 64
/* Pairs of domains linked by snapshots, in all. */
#define PF_CLOCK_MAX_PAIRS 8192
/* Clocks in one ClockSnapshot; more is treated as malformed. */
#define PF_CLOCK_MAX_CLOCKS_PER_SNAPSHOT 64
/* Longest conversion path, in snapshots (trace_processor's limit too). */
#define PF_CLOCK_MAX_HOPS 4
/* Entries of the conversion cache (a power of two). */
#define PF_CLOCK_CACHE_SIZE 256

typedef struct pf_clocks pf_clocks;

enum {
    PF_CLOCK_OK = 0,
    PF_CLOCK_NO_PATH = 1,   /* no snapshot links this clock to the trace
                               clock (yet): the value stays raw */
    PF_CLOCK_OVERFLOW = 2,  /* the result is out of int64 ns */
    PF_CLOCK_BAD = -1,      /* malformed ClockSnapshot message */
    PF_CLOCK_NOMEM = -2
};

pf_clocks *pf_clocks_create(const tread_alloc *a);
void pf_clocks_free(pf_clocks *c);

/* A ClockSnapshot message (the bytes of TracePacket.clock_snapshot) seen on
 * sequence seq. Records its clocks (clock_id, timestamp, is_incremental,
 * unit_multiplier_ns), resets the running value of each incremental clock
 * it names to the snapshot's timestamp, and takes primary_trace_clock as
 * the trace clock if set and no timestamp was converted yet (as
 * trace_processor does). A malformed snapshot (PF_CLOCK_BAD) is ignored
 * as a whole. Returns PF_CLOCK_OK, PF_CLOCK_BAD or PF_CLOCK_NOMEM. */
int pf_clocks_add_snapshot(pf_clocks *c, uint32_t seq, const unsigned char *msg, size_t len);

/* Whether clock_id (on seq) was declared incremental by a snapshot. */
int pf_clocks_is_incremental(const pf_clocks *c, uint32_t seq, uint32_t clock_id);

/* The absolute value, in clock_id's own units, of a packet timestamp on
 * clock_id: for an incremental clock the running value plus value (and
 * the running value moves there); otherwise value itself. A running value
 * that would leave int64 saturates (see pf_clocks_absolute_checked). */
int64_t pf_clocks_absolute(pf_clocks *c, uint32_t seq, uint32_t clock_id, int64_t value);

/* The same, reporting a running value that would leave int64 as
 * PF_CLOCK_OVERFLOW (the running value is then left unchanged). */
int pf_clocks_absolute_checked(pf_clocks *c, uint32_t seq, uint32_t clock_id, int64_t value,
                               int64_t *out);

/* Converts value (absolute, in clock_id's units) to trace-clock ns in
 * *out, through as many snapshots as needed, using for each hop the
 * latest snapshot at or before the value (the earliest when none is).
 * The trace clock itself converts to value unchanged. Returns PF_CLOCK_OK,
 * PF_CLOCK_NO_PATH or PF_CLOCK_OVERFLOW (value * unit_multiplier_ns or the
 * result out of int64 ns). */
int pf_clocks_to_trace(pf_clocks *c, uint32_t seq, uint32_t clock_id, int64_t value,
                       int64_t *out);

/* pf_clocks_absolute then pf_clocks_to_trace, in one step: *abs is the
 * absolute value, the result and *out those of pf_clocks_to_trace. */
int pf_clocks_convert(pf_clocks *c, uint32_t seq, uint32_t clock_id, int64_t value,
                      int64_t *abs, int64_t *out);

/* The first member of pf_clocks: its generation, which moves whenever a
 * snapshot is added (every cached path, and every memo, is then stale). */
typedef struct pf_clocks_head {
    uint64_t gen;
} pf_clocks_head;

static inline uint64_t pf_clocks_generation(const pf_clocks *c)
{
    return ((const pf_clocks_head *)(const void *)c)->gen;
}

/* A memo of one clock's conversion (kept per sequence by the decoder):
 * what pf_clocks_convert would do for the clock while the generation
 * stays the same, read without a call. Only conversions that succeed are
 * taken from it; anything else goes to pf_clocks_convert, which then
 * refills it. */
typedef struct pf_clock_memo {
    uint64_t gen;              /* 0: empty */
    uint32_t clock_id;
    int to_trace;              /* the trace clock: the value unchanged */
    int64_t *running;          /* an incremental clock's running value */
    int64_t unit, lo, hi, off; /* otherwise: source ns in [lo, hi] -> + off */
} pf_clock_memo;

/* Fills m for clock_id on seq after pf_clocks_convert returned
 * PF_CLOCK_OK for it (left empty when there is nothing to memo). */
void pf_clocks_memo_fill(pf_clocks *c, uint32_t seq, uint32_t clock_id, pf_clock_memo *m);

/* pf_clocks_convert through the memo m (on seq): the same results and
 * the same state changes. */
static inline int pf_clocks_convert_memo(pf_clocks *c, pf_clock_memo *m, uint32_t seq,
                                         uint32_t clock_id, int64_t value, int64_t *abs,
                                         int64_t *out)
{
    if (m->gen == pf_clocks_generation(c) && m->clock_id == clock_id) {
        int64_t v = value, ns;
        /* (a running value that would saturate: pf_clocks_convert) */
        if (!m->running || !__builtin_add_overflow(*m->running, value, &v)) {
            ns = v; /* the trace clock: the value itself */
            if (!m->to_trace &&
                !((m->unit == 1 || !__builtin_mul_overflow(v, m->unit, &ns)) && ns >= m->lo &&
                  ns <= m->hi && !__builtin_add_overflow(ns, m->off, &ns)))
                goto full;
            if (m->running)
                *m->running = v;
            *abs = v;
            *out = ns;
            return PF_CLOCK_OK;
        }
    }
full:;
    int rc = pf_clocks_convert(c, seq, clock_id, value, abs, out);
    if (rc == PF_CLOCK_OK)
        pf_clocks_memo_fill(c, seq, clock_id, m);
    return rc;
}

/* The trace clock: primary_trace_clock when a snapshot gave one, else
 * BOOTTIME. */
uint32_t pf_clocks_trace_clock(const pf_clocks *c);
/* 1 once a timestamp has been converted: the trace clock is fixed. */
int pf_clocks_fixed(const pf_clocks *c);
/* Fixes the trace clock as a conversion does, for one that comes later in
 * the same packet. */
void pf_clocks_fix(pf_clocks *c);

/* Counters: snapshots recorded, malformed snapshots ignored, conversions
 * that found no path, conversions that overflowed. */
uint64_t pf_clocks_snapshots(const pf_clocks *c);
uint64_t pf_clocks_bad_snapshots(const pf_clocks *c);
uint64_t pf_clocks_no_path(const pf_clocks *c);
uint64_t pf_clocks_overflows(const pf_clocks *c);

#endif
