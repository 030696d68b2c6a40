/*
 * The Perfetto decoder: framing of the Trace stream (field 1 = TracePacket,
 * every other top-level field skipped by its wire type, groups included),
 * one pass over each packet's top-level fields, sequence state, dispatch
 * of the payloads, compressed packets expanded as a stream, and delivery
 * with pause/resume at every event boundary.
 *
 * Packets are decoded in place when they lie whole in the fed chunk; a
 * packet that straddles chunks is gathered in a buffer bounded by
 * max_event_bytes. The events of one packet are built into a queue first
 * (all state changes happen then, exactly once), then delivered; a stop
 * in the middle of the queue copies the packet (if it is still the
 * caller's memory) so that resume delivers the rest from the copy.
 */
#include "perfetto/pf_context.h"
#include "perfetto/pf_seq.h"
#include "perfetto/pf_time.h"
#include "perfetto/pf_tracks.h"
#include "perfetto/pf_queue.h"
#include "perfetto/pf_fast.h"
#include "perfetto/pf_track_event.h"
#include "perfetto/pf_chrome.h"
#include "perfetto/pf_system.h"
#include "perfetto/pf_v8.h"
#include "perfetto/pf_profile.h"
#include "perfetto/pf_expand.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define D pf_decoder *d = (pf_decoder *)dec

/* A framer reads a stream of top-level Trace fields (the file, or the
 * expansion of one compressed packet) pushed in pieces of any size. */
enum { PF_F_HDR = 0, PF_F_PACKET, PF_F_SKIP, PF_F_VARINT };
typedef struct pf_framer {
    int level;                 /* 0: the file; 1: inside a compressed packet */
    int state;
    unsigned char hdr[24];
    size_t hdr_len;
    uint64_t need;             /* PACKET: bytes still missing; SKIP: bytes to skip */
    uint64_t field_off;        /* offset of the current field (level 0) */
    tread_buf carry;           /* a packet that straddles pieces */
    uint32_t groups[PF_MAX_GROUP_DEPTH];
    int ngroups;
} pf_framer;

/* The decoder: the state the stages share (pf_context.h; first, so that a
 * pf_dec is a pf_decoder) and its own framing, pause and expansion state,
 * which no other file sees. */
typedef struct pf_dec {
    pf_decoder d;
    pf_framer top, inner;
    /* the packet being delivered */
    const unsigned char *cur;  /* the top-level packet (for relocation) */
    size_t cur_len;
    int cur_owned;
    tread_buf hold;            /* a paused packet's copy */
    pf_zstate z;               /* compressed packet expansion (pf_expand.c) */
    int finished;
} pf_dec;

#define PRIV(d) ((pf_dec *)(d))

/* ---- delivery --------------------------------------------------------- */

static tread_status deliver(pf_decoder *d, pf_qitem *it)
{
    tread_parser *p = d->p;
    if (it->skip) /* (replaced by what follows the queue: pf_v8.c) */
        return TREAD_STATUS_OK;
    if (it->is_hook) {
        /* (the packet's own timestamps are read by now, its events queued
         * after this item) */
        pf_emit_packet_hook(d);
        return TREAD_STATUS_OK;
    }
    tread_event *ev = &it->ev;
    if (it->plain)
        goto emit;
    unsigned nul = it->nul;
    /* the common event: every string already NUL-terminated (interned
     * names and categories, track names) or absent, nothing to format */
    if ((!ev->name.ptr || (nul & PF_NUL_NAME)) && (!ev->cat.ptr || (nul & PF_NUL_CAT)) &&
        (!ev->meta_str.ptr || (nul & PF_NUL_META)) &&
        (!ev->series.ptr || (nul & PF_NUL_SERIES)) && !ev->id_scope.ptr && !ev->id.ptr &&
        !it->fmt_id && !it->fmt_bind)
        goto emit;
    size_t need = ((nul & PF_NUL_NAME) ? 0 : ev->name.len) + ((nul & PF_NUL_CAT) ? 0 : ev->cat.len) +
                  ((nul & PF_NUL_META) ? 0 : ev->meta_str.len) +
                  ((nul & PF_NUL_SERIES) ? 0 : ev->series.len) + ev->id.len + ev->id_scope.len +
                  2 * 24 + 8;
    d->strbuf.len = 0;
    if (tread_buf_reserve(&d->strbuf, need))
        return tread__fail(p, TREAD_ERROR_NOMEM, ev->offset, "out of memory");
    if (!(nul & PF_NUL_NAME))
        pf_put_str(&d->strbuf, &ev->name);
    if (!(nul & PF_NUL_CAT))
        pf_put_str(&d->strbuf, &ev->cat);
    if (!(nul & PF_NUL_META))
        pf_put_str(&d->strbuf, &ev->meta_str);
    if (!(nul & PF_NUL_SERIES))
        pf_put_str(&d->strbuf, &ev->series);
    if (ev->id_scope.ptr)
        pf_put_str(&d->strbuf, &ev->id_scope);
    if (it->fmt_id) {
        char *dst = (char *)d->strbuf.data + d->strbuf.len;
        int n = snprintf(dst, 24, "0x%" PRIx64, ev->id_num);
        ev->id.ptr = dst;
        ev->id.len = (size_t)n;
        d->strbuf.len += (size_t)n + 1;
    } else if (ev->id.ptr) {
        pf_put_str(&d->strbuf, &ev->id);
    }
    if (it->fmt_bind) {
        char *dst = (char *)d->strbuf.data + d->strbuf.len;
        int n = snprintf(dst, 24, "0x%" PRIx64, it->bind_num);
        ev->bind_id.ptr = dst;
        ev->bind_id.len = (size_t)n;
        d->strbuf.len += (size_t)n + 1;
    }
emit:
    if (ev->flow_ids.n)
        ev->flow_ids.v = (const uint64_t *)(const void *)d->flowbuf.data;
    if (ev->terminating_flow_ids.n)
        ev->terminating_flow_ids.v = (const uint64_t *)(const void *)d->tflowbuf.data;
    if (it->seq)
        ev->args.ctx = &it->seq->actx;
    (void)tread__emit_inline(p, ev);
    return TREAD_STATUS_OK;
}

static tread_status drain(pf_decoder *d)
{
    while (d->q_pos < d->q_len) {
        pf_qitem *it = &d->q[d->q_pos++];
        if (deliver(d, it) != TREAD_STATUS_OK)
            return TREAD_STATUS_ERROR;
        if (d->p->stop_requested)
            return TREAD_STATUS_PAUSED;
    }
    d->q_pos = d->q_len = 0;
    return TREAD_STATUS_OK;
}

/* ---- packets ---------------------------------------------------------- */

static const char *const loss_names[32] = {
    "previous_packet_dropped_by_cause.present",
    "previous_packet_dropped_by_cause.read_gap",
    "previous_packet_dropped_by_cause.chunk_corrupted",
    "previous_packet_dropped_by_cause.orphan_continuation",
    "previous_packet_dropped_by_cause.reassembly_gap",
    "previous_packet_dropped_by_cause.reassembly_broken_chain",
    "previous_packet_dropped_by_cause.overwrite",
    "previous_packet_dropped_by_cause.writer_abort",
    "previous_packet_dropped_by_cause.smb_full",
#define BITNAME(n) "previous_packet_dropped_by_cause.bit" #n
    BITNAME(9), BITNAME(10), BITNAME(11), BITNAME(12), BITNAME(13), BITNAME(14), BITNAME(15),
    BITNAME(16), BITNAME(17), BITNAME(18), BITNAME(19), BITNAME(20), BITNAME(21), BITNAME(22),
    BITNAME(23), BITNAME(24), BITNAME(25), BITNAME(26), BITNAME(27), BITNAME(28), BITNAME(29),
    BITNAME(30), BITNAME(31)
#undef BITNAME
};

static tread_status framer_feed(pf_decoder *d, pf_framer *fr, const unsigned char *data,
                                size_t len, uint64_t base_off, size_t *consumed);

/* Expands the current compressed packet, feeding what comes out to the
 * inner framer; returns PAUSED from inside it. */
static tread_status expand(pf_decoder *d)
{
    tread_parser *p = d->p;
    pf_zstate *z = &PRIV(d)->z;
    while (z->z_active) {
        if (z->z_out_pos < z->z_out_len) {
            size_t c = 0;
            tread_status st = framer_feed(d, &PRIV(d)->inner, z->z_piece + z->z_out_pos,
                                          z->z_out_len - z->z_out_pos, z->z_off, &c);
            z->z_out_pos += c;
            if (st != TREAD_STATUS_OK)
                return st;
            continue;
        }
        int end = 0;
        long n = pf_z_next(z, &z->z_piece, &end);
        if (n < 0) {
            pf_z_end(z);
            return tread__fail(p, TREAD_ERROR_NOMEM, z->z_off, "out of memory");
        }
        z->z_total += (uint64_t)n;
        if (z->z_total > p->max_decompressed_bytes) {
            pf_z_end(z);
            return tread__fail(p, TREAD_ERROR_LIMIT_MEMORY, z->z_off,
                               "compressed packet expands to more than %llu bytes "
                               "(TREAD_OPT_MAX_DECOMPRESSED_BYTES)",
                               (unsigned long long)p->max_decompressed_bytes);
        }
        d->n_compressed_bytes += (uint64_t)n;
        z->z_out_pos = 0;
        z->z_out_len = (size_t)n;
        if (n)
            continue;
        /* nothing more comes out: the end of this compressed packet */
        if (end == PF_ZEND_BAD)
            tread__warn(p, TREAD_WARN_BAD_RECORD, z->z_off,
                        "compressed packet does not decompress: the rest of it is skipped");
        else if (end == PF_ZEND_CUT)
            tread__warn(p, TREAD_WARN_COMPRESSED_TRUNCATED, z->z_off,
                        "compressed packet ends inside its stream: what came out was read");
        else if (end == PF_ZEND_TRAILING)
            tread__warn(p, TREAD_WARN_TRAILING_DATA, z->z_off,
                        "%zu bytes after the end of a compressed packet's stream: ignored",
                        z->zj.in_len);
        if (PRIV(d)->inner.state != PF_F_HDR || PRIV(d)->inner.hdr_len || PRIV(d)->inner.ngroups)
            tread__warn(p, TREAD_WARN_TRUNCATED_EVENT, z->z_off,
                        "a packet inside the compressed packet is cut off: dropped");
        d->n_compressed++;
        pf_z_end(z);
    }
    return TREAD_STATUS_OK;
}

/* What remains of the packet being delivered: its queue, the expansion of
 * its V8 profile record, the legacy JSON of its chrome_events, and (outside a compressed packet) the rest of the
 * expansion it belongs to. */
static tread_status run_pending(pf_decoder *d, int with_expansion)
{
    tread_status st = drain(d);
    if (st == TREAD_STATUS_OK && pf_v8_pending(d))
        st = pf_v8_continue(d);
    if (st == TREAD_STATUS_OK && d->chrome_active)
        st = pf_chrome_continue(d);
    if (st == TREAD_STATUS_OK && with_expansion && PRIV(d)->z.z_active)
        st = expand(d);
    return st;
}

static int in_range(const void *x, const unsigned char *a, size_t n)
{
    const unsigned char *c = x;
    return c && c >= a && c < a + n;
}

#define REBASE(ptr, type)                                                              \
    do {                                                                               \
        if (in_range((ptr), old, n))                                                   \
            (ptr) = (type)(const void *)(nw + ((const unsigned char *)(ptr) - old));   \
    } while (0)

/* A stop inside a packet that still lies in the caller's memory: copy it,
 * and move every pointer into it to the copy. */
static int relocate(pf_decoder *d, uint64_t off)
{
    const unsigned char *old = PRIV(d)->cur;
    size_t n = PRIV(d)->cur_len;
    PRIV(d)->hold.len = 0;
    if (tread_buf_append(&PRIV(d)->hold, old, n)) {
        tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
        return -1;
    }
    const unsigned char *nw = PRIV(d)->hold.data;
    for (size_t i = d->q_pos; i < d->q_len; i++) {
        if (d->q[i].is_hook)
            continue; /* no event in it */
        tread_event *ev = &d->q[i].ev;
        REBASE(ev->name.ptr, const char *);
        REBASE(ev->cat.ptr, const char *);
        REBASE(ev->meta_str.ptr, const char *);
        REBASE(ev->series.ptr, const char *);
        REBASE(ev->id.ptr, const char *);
        REBASE(ev->id_scope.ptr, const char *);
        REBASE(ev->args.data, const unsigned char *);
    }
    REBASE(d->pkt.data, const unsigned char *);
    if (PRIV(d)->z.z_active && !PRIV(d)->z.z_threaded) /* (the worker reads its own copy) */
        REBASE(PRIV(d)->z.zj.in, const unsigned char *);
    if (d->chrome_active) {
        REBASE(d->chrome_bundle, const unsigned char *);
        REBASE(d->chrome_json, const unsigned char *);
    }
    PRIV(d)->cur = nw;
    PRIV(d)->cur_owned = 1;
    return 0;
}

static tread_status process_packet(pf_decoder *d, const unsigned char *data, size_t len,
                                   uint64_t off, int level)
{
    tread_parser *p = d->p;
    pf_reader r;
    pf_field f;
    int rc;
    int has_ts = 0, has_clk = 0, has_ppd = 0, first_flag = 0, legacy_clear = 0;
    uint64_t ts = 0, ppd = 0;
    uint32_t clk = 0, seq_id = 0, flags = 0;
    const unsigned char *defaults = NULL, *interned = NULL, *te = NULL, *clock = NULL;
    const unsigned char *tdesc = NULL, *pdesc = NULL, *thdesc = NULL, *ptree = NULL;
    const unsigned char *chrome = NULL, *comp = NULL;
    size_t defaults_len = 0, interned_len = 0, te_len = 0, clock_len = 0, tdesc_len = 0;
    size_t pdesc_len = 0, thdesc_len = 0, ptree_len = 0, chrome_len = 0, comp_len = 0;
    int has_defaults = 0, zstd = 0;
    const unsigned char *sys = NULL; /* a system data source (pf_system.h) */
    size_t sys_len = 0;
    uint32_t sys_num = 0;
    const unsigned char *prof = NULL; /* CPU samples (pf_profile.h) */
    size_t prof_len = 0;
    uint32_t prof_num = 0;

    pf_reader_init(&r, data, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.wire == PF_WIRE_VARINT) {
            switch (f.num) {
            case PF_PKT_TIMESTAMP: has_ts = 1, ts = f.v; break;
            case PF_PKT_SEQ_ID: seq_id = (uint32_t)f.v; break;
            case PF_PKT_SEQUENCE_FLAGS: flags = (uint32_t)f.v; break;
            case PF_PKT_TIMESTAMP_CLOCK_ID: has_clk = 1, clk = (uint32_t)f.v; break;
            case PF_PKT_PREVIOUS_PACKET_DROPPED: has_ppd = 1, ppd = f.v; break;
            case PF_PKT_FIRST_PACKET_ON_SEQUENCE: first_flag = f.v != 0; break;
            case PF_PKT_INCREMENTAL_STATE_CLEARED: legacy_clear = f.v != 0; break;
            }
            continue;
        }
        if (f.wire != PF_WIRE_LEN)
            continue;
        switch (f.num) {
        case PF_PKT_TRACK_EVENT: te = f.data, te_len = f.len; break;
        case PF_PKT_INTERNED_DATA: interned = f.data, interned_len = f.len; break;
        case PF_PKT_DEFAULTS: has_defaults = 1, defaults = f.data, defaults_len = f.len; break;
        case PF_PKT_CLOCK_SNAPSHOT: clock = f.data, clock_len = f.len; break;
        case PF_PKT_TRACK_DESCRIPTOR: tdesc = f.data, tdesc_len = f.len; break;
        case PF_PKT_PROCESS_DESCRIPTOR: pdesc = f.data, pdesc_len = f.len; break;
        case PF_PKT_THREAD_DESCRIPTOR: thdesc = f.data, thdesc_len = f.len; break;
        case PF_PKT_PROCESS_TREE: ptree = f.data, ptree_len = f.len; break;
        case PF_PKT_CHROME_EVENTS: chrome = f.data, chrome_len = f.len; break;
        case PF_PKT_COMPRESSED: comp = f.data, comp_len = f.len, zstd = 0; break;
        case PF_PKT_ZSTD_COMPRESSED: comp = f.data, comp_len = f.len, zstd = 1; break;
        default:
            if (pf_system_wants(f.num))
                sys = f.data, sys_len = f.len, sys_num = f.num;
            else if (pf_profile_wants(f.num))
                prof = f.data, prof_len = f.len, prof_num = f.num;
            break;
        }
    }
    if (rc == PF_BAD) {
        d->n_bad_packets++;
        tread__warn(p, TREAD_WARN_BAD_RECORD, off,
                    "a packet's fields overrun its %zu bytes: the packet is skipped", len);
        return TREAD_STATUS_OK;
    }
    if (comp) {
        if (level > 0) {
            tread__warn(p, TREAD_WARN_BAD_RECORD, off,
                        "a compressed packet inside a compressed packet: skipped");
            return TREAD_STATUS_OK;
        }
        if (pf_z_start(&PRIV(d)->z, p, zstd, comp, comp_len, off))
            return TREAD_STATUS_ERROR;
        PRIV(d)->inner.state = PF_F_HDR;
        PRIV(d)->inner.hdr_len = 0;
        PRIV(d)->inner.ngroups = 0;
        return TREAD_STATUS_OK;
    }
    if (level)
        d->n_packets_inner++;
    else
        d->n_packets++;

    pf_seq *s = pf_seq_get(d, seq_id);
    if (!s) {
        if (d->seq_used < PF_MAX_SEQUENCES)
            return tread__fail(p, TREAD_ERROR_NOMEM, off, "out of memory");
        d->n_seq_dropped++;
        tread__warn(p, TREAD_WARN_BAD_RECORD, off,
                    "more than %d sequences: packet of sequence %u skipped", PF_MAX_SEQUENCES,
                    (unsigned)seq_id);
        return TREAD_STATUS_OK;
    }
    uint32_t state = level ? TREAD_PF_STATE_COMPRESSED : 0;
    int first = !s->seen;
    s->seen = 1;
    s->packets++;
    if (first)
        state |= TREAD_PF_STATE_FIRST;
    if (has_ppd && ppd && !first && !first_flag) {
        /* data loss: the incremental state cannot be trusted until the
         * next clear */
        d->n_data_loss_packets++;
        s->valid = 0;
        state |= TREAD_PF_STATE_DATA_LOSS;
        for (int b = 0; b < 32; b++) {
            if (!(ppd & ((uint64_t)1 << b)))
                continue;
            d->n_data_loss[b]++;
            tread__warn(p, TREAD_WARN_DATA_LOSS, off,
                        "sequence %u lost data before this packet (%s)", (unsigned)seq_id,
                        loss_names[b] + sizeof "previous_packet_dropped_by_cause." - 1);
        }
    }
    if ((flags & PF_SEQ_INCREMENTAL_STATE_CLEARED) || legacy_clear) {
        pf_seq_clear(d, s);
        state |= TREAD_PF_STATE_CLEARED;
    }
    if (has_defaults && pf_seq_set_defaults(d, s, defaults, defaults_len, off))
        return TREAD_STATUS_ERROR;
    int dropped = (flags & PF_SEQ_NEEDS_INCREMENTAL_STATE) && !s->valid;
    if (s->valid)
        state |= TREAD_PF_STATE_VALID;
    if (dropped) {
        state |= TREAD_PF_STATE_DROPPED;
        d->n_dropped_invalid++;
        tread__warn(p, TREAD_WARN_DROPPED_PACKET, off,
                    "packet needs the incremental state of sequence %u, which is not valid: "
                    "dropped",
                    (unsigned)seq_id);
    } else if (interned) {
        if (s->valid) {
            if (pf_seq_intern(d, s, interned, interned_len, off))
                return TREAD_STATUS_ERROR;
        } else {
            d->n_interned_ignored++;
        }
    }

    pf_base base;
    memset(&base, 0, sizeof base);
    base.offset = off;
    base.flags = TREAD_HAS_SEQ;
    base.seq_id = seq_id;
    base.raw = &d->pkt;
    uint32_t cid = has_clk ? clk
                           : s->has_default_clock ? s->default_clock
                                                  : pf_clocks_trace_clock(d->clocks);
    if (!dropped && clock) {
        int crc = pf_clocks_add_snapshot(d->clocks, seq_id, clock, clock_len);
        if (crc == PF_CLOCK_NOMEM)
            return tread__fail(p, TREAD_ERROR_NOMEM, off, "out of memory");
        if (crc == PF_CLOCK_BAD) {
            tread__warn(p, TREAD_WARN_BAD_RECORD, off,
                        "clock_snapshot does not decode: skipped");
            state |= TREAD_PF_STATE_CLOCK_BAD;
        }
    }
    if (has_ts && !dropped) {
        pf_set_ts(d, s, cid, ts, &base);
        state |= TREAD_PF_STATE_HAS_TS;
        if (base.flags & TREAD_HAS_RAW_TS)
            state |= TREAD_PF_STATE_TS_RAW;
    }

    pf_describe_packet(d, data, len, seq_id, cid, &base, flags, state, off);
    if (p->cb.perfetto_packet) {
        pf_qitem *hook = pf_queue_event(d, NULL);
        if (!hook)
            return TREAD_STATUS_ERROR;
        hook->is_hook = 1;
    } else {
        p->stats.records++; /* what tread__emit_perfetto_packet counts */
    }
    if (dropped)
        return TREAD_STATUS_OK;

    if (clock) {
        pf_qitem *q = pf_queue_event(d, &base);
        if (!q)
            return TREAD_STATUS_ERROR;
        q->ev.kind = TREAD_EVENT_CLOCK_SYNC;
        q->ev.phase = 'c';
        q->ev.name.ptr = "clock_snapshot";
        q->ev.name.len = sizeof "clock_snapshot" - 1;
        q->nul |= PF_NUL_NAME;
    }
    if (pdesc && pf_process_descriptor(d, pdesc, pdesc_len, &base))
        return TREAD_STATUS_ERROR;
    if (thdesc && pf_thread_descriptor(d, s, thdesc, thdesc_len, &base))
        return TREAD_STATUS_ERROR;
    if (tdesc && pf_track_descriptor(d, s, tdesc, tdesc_len, &base))
        return TREAD_STATUS_ERROR;
    if (ptree && pf_process_tree(d, ptree, ptree_len, &base))
        return TREAD_STATUS_ERROR;
    if (te && pf_track_event(d, s, te, te_len, &base))
        return TREAD_STATUS_ERROR;
    if (chrome && pf_chrome_bundle(d, chrome, chrome_len, &base))
        return TREAD_STATUS_ERROR;
    if (sys && pf_system_packet(d, s, sys_num, sys, sys_len, &base))
        return TREAD_STATUS_ERROR;
    if (prof && pf_profile_packet(d, s, prof_num, prof, prof_len, &base))
        return TREAD_STATUS_ERROR;
    pf_profile_packet_done(d);
    return TREAD_STATUS_OK;
}

/* What the fast reader left (frc its reason), read by the general reader;
 * apart, so that the fast reader's packets do not pay for its registers
 * and stack (0.3% of the instructions of bench/run's Perfetto file). */
static PF_NOINLINE tread_status handle_general(pf_decoder *d, const unsigned char *data,
                                               size_t len, uint64_t off, int level, int frc)
{
    if (frc == PF_FAST_ERROR)
        return TREAD_STATUS_ERROR;
    if (frc != PF_FAST_REASONS_)
        d->n_fast_declined[frc]++;
    tread_status st = process_packet(d, data, len, off, level);
    if (st == TREAD_STATUS_OK)
        st = run_pending(d, level == 0);
    return st;
}

static tread_status handle_packet(pf_decoder *d, const unsigned char *data, size_t len,
                                  uint64_t off, int level, int owned)
{
    if (level == 0) {
        PRIV(d)->cur = data;
        PRIV(d)->cur_len = len;
        PRIV(d)->cur_owned = owned;
    }
    /* the fast reader first; what it leaves, the general reader reads.
     * The queue is empty here (a packet's events are all delivered before
     * the framer reads the next one, or the parser pauses): the fast
     * reader delivers its events directly, so it must never run while an
     * earlier packet's events wait in the queue. */
    tread_status st;
    int frc = d->p->perfetto_fast_path && !d->q_len ? pf_fast_packet(d, data, len, off, level)
                                                    : PF_FAST_REASONS_;
    if (PF_LIKELY(frc == PF_FAST_DONE)) {
        /* nothing but the queue: no packet leaves chrome JSON or an
         * expansion pending when the next one is read, and the fast reader
         * starts neither. Its events went straight to the callback
         * (pf_fast.c emit_direct); a stop there leaves the rest queued for
         * tread_resume. */
        st = d->p->stop_requested ? TREAD_STATUS_PAUSED : TREAD_STATUS_OK;
    } else {
        st = handle_general(d, data, len, off, level, frc);
    }
    if (st == TREAD_STATUS_PAUSED && level == 0 && !PRIV(d)->cur_owned && relocate(d, off))
        return TREAD_STATUS_ERROR;
    return st;
}

/* ---- framing ---------------------------------------------------------- */

/* A varint at p (n bytes): its length, 0 when more bytes are needed, -1
 * when malformed (longer than 10 bytes). */
static int vread(const unsigned char *p, size_t n, uint64_t *v)
{
    uint64_t x = 0;
    for (size_t i = 0; i < 10; i++) {
        if (i >= n)
            return 0;
        x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *v = x;
            return (int)i + 1;
        }
    }
    return -1;
}

/* A field header (tag, and the value of a varint field or the length of a
 * length-delimited one): its length, 0 for more bytes, -1 malformed. */
static int parse_hdr(const unsigned char *p, size_t n, uint32_t *num, int *wire, uint64_t *val)
{
    uint64_t tag;
    int a = vread(p, n, &tag);
    if (a <= 0)
        return a;
    if ((tag >> 3) == 0 || (tag >> 3) > UINT32_MAX)
        return -1;
    *num = (uint32_t)(tag >> 3);
    *wire = (int)(tag & 7);
    *val = 0;
    if (*wire == PF_WIRE_VARINT || *wire == PF_WIRE_LEN) {
        int b = vread(p + a, n - (size_t)a, val);
        if (b <= 0)
            return b;
        return a + b;
    }
    if (*wire == 6 || *wire == 7)
        return -1;
    return a;
}

static tread_status framer_feed(pf_decoder *d, pf_framer *fr, const unsigned char *data,
                                size_t len, uint64_t base_off, size_t *consumed)
{
    tread_parser *p = d->p;
    size_t pos = 0;
    tread_status st;
    while (pos < len) {
        switch (fr->state) {
        case PF_F_HDR: {
            /* the common case: whole packets (tag 0x0a, a length of up to
             * three bytes) one after the other in this piece */
            if (!fr->hdr_len && !fr->ngroups) {
                while (len - pos >= 2 && data[pos] == 0x0a) {
                    const unsigned char *h = data + pos + 1;
                    size_t avail = len - pos - 1, hl;
                    uint64_t val;
                    if (!(h[0] & 0x80)) {
                        val = h[0];
                        hl = 1;
                    } else if (avail >= 2 && !(h[1] & 0x80)) {
                        val = (uint64_t)(h[0] & 0x7f) | ((uint64_t)h[1] << 7);
                        hl = 2;
                    } else if (avail >= 3 && (h[1] & 0x80) && !(h[2] & 0x80)) {
                        val = (uint64_t)(h[0] & 0x7f) | ((uint64_t)(h[1] & 0x7f) << 7) |
                              ((uint64_t)h[2] << 14);
                        hl = 3;
                    } else {
                        break;
                    }
                    if (!val || val > p->max_event_bytes || avail - hl < val)
                        break; /* the general path below */
                    fr->field_off = fr->level ? base_off : base_off + pos;
                    pos += 1 + hl;
                    st = handle_packet(d, data + pos, (size_t)val, fr->field_off, fr->level,
                                       fr->level > 0);
                    pos += (size_t)val;
                    if (st != TREAD_STATUS_OK) {
                        *consumed = pos;
                        return st;
                    }
                }
                if (pos >= len)
                    break;
            }
            size_t old = fr->hdr_len;
            unsigned char tmp[sizeof fr->hdr + 24];
            const unsigned char *hp;
            size_t hn;
            if (old) {
                size_t take = len - pos < 22 ? len - pos : 22;
                memcpy(tmp, fr->hdr, old);
                memcpy(tmp + old, data + pos, take);
                hp = tmp;
                hn = old + take;
            } else {
                fr->field_off = fr->level ? base_off : base_off + pos;
                hp = data + pos;
                hn = len - pos;
            }
            uint32_t num = 0; /* (set by parse_hdr when hl > 0; gcc -O1 cannot tell) */
            int wire = 0;
            uint64_t val = 0;
            int hl = parse_hdr(hp, hn, &num, &wire, &val);
            if (hl == 0) {
                memmove(fr->hdr, hp, hn); /* hn < 20: a header is at most 20 bytes */
                fr->hdr_len = hn;
                pos = len;
                break;
            }
            if (hl < 0) {
                *consumed = pos;
                return tread__fail(p, TREAD_ERROR_SYNTAX, fr->field_off,
                                   "malformed field header in the %s",
                                   fr->level ? "expansion of a compressed packet"
                                             : "trace (not a Perfetto TracePacket stream?)");
            }
            pos += (size_t)hl - old;
            fr->hdr_len = 0;
            switch (wire) {
            case PF_WIRE_VARINT:
                if (!fr->ngroups)
                    d->n_skipped_top++;
                break;
            case PF_WIRE_FIXED64:
            case PF_WIRE_FIXED32:
                if (!fr->ngroups)
                    d->n_skipped_top++;
                fr->need = wire == PF_WIRE_FIXED64 ? 8 : 4;
                fr->state = PF_F_SKIP;
                break;
            case PF_WIRE_LEN:
                if (fr->ngroups || num != 1) {
                    if (!fr->ngroups)
                        d->n_skipped_top++;
                    fr->need = val;
                    fr->state = val ? PF_F_SKIP : PF_F_HDR;
                    break;
                }
                if (val > p->max_event_bytes) {
                    *consumed = pos;
                    return tread__fail(p, TREAD_ERROR_LIMIT_EVENT, fr->field_off,
                                       "packet of %llu bytes is larger than the limit of %zu "
                                       "bytes (TREAD_OPT_MAX_EVENT_BYTES)",
                                       (unsigned long long)val, p->max_event_bytes);
                }
                if (val == 0) {
                    d->n_zero_len++;
                    break;
                }
                if (len - pos >= val) {
                    st = handle_packet(d, data + pos, (size_t)val, fr->field_off, fr->level,
                                       fr->level > 0);
                    pos += (size_t)val;
                    if (st != TREAD_STATUS_OK) {
                        *consumed = pos;
                        return st;
                    }
                    break;
                }
                fr->carry.len = 0;
                if (tread_buf_reserve(&fr->carry, (size_t)val)) {
                    *consumed = pos;
                    return tread__fail(p, TREAD_ERROR_NOMEM, fr->field_off, "out of memory");
                }
                fr->need = val;
                fr->state = PF_F_PACKET;
                break;
            case PF_WIRE_GROUP_START:
                if (!fr->ngroups)
                    d->n_skipped_top++;
                if (fr->ngroups == PF_MAX_GROUP_DEPTH) {
                    *consumed = pos;
                    return tread__fail(p, TREAD_ERROR_LIMIT_DEPTH, fr->field_off,
                                       "groups nested deeper than %d", PF_MAX_GROUP_DEPTH);
                }
                fr->groups[fr->ngroups++] = num;
                break;
            default: /* group end */
                if (!fr->ngroups || fr->groups[fr->ngroups - 1] != num) {
                    *consumed = pos;
                    return tread__fail(p, TREAD_ERROR_SYNTAX, fr->field_off,
                                       "group end (field %u) without its start", (unsigned)num);
                }
                fr->ngroups--;
                break;
            }
            break;
        }
        case PF_F_PACKET: {
            size_t take = len - pos < fr->need ? len - pos : (size_t)fr->need;
            memcpy(fr->carry.data + fr->carry.len, data + pos, take);
            fr->carry.len += take;
            fr->need -= take;
            pos += take;
            if (fr->need)
                break;
            fr->state = PF_F_HDR;
            st = handle_packet(d, fr->carry.data, fr->carry.len, fr->field_off, fr->level, 1);
            if (st != TREAD_STATUS_OK) {
                *consumed = pos;
                return st;
            }
            break;
        }
        default: { /* PF_F_SKIP */
            size_t take = len - pos < fr->need ? len - pos : (size_t)fr->need;
            fr->need -= take;
            pos += take;
            if (!fr->need)
                fr->state = PF_F_HDR;
            break;
        }
        }
    }
    *consumed = pos;
    return TREAD_STATUS_OK;
}

/* ---- the decoder interface -------------------------------------------- */

static tread_status pf_feed(void *dec, const unsigned char *data, size_t len, size_t *consumed)
{
    D;
    *consumed = 0;
    tread_status st = run_pending(d, 1);
    if (st != TREAD_STATUS_OK || !len)
        return st;
    return framer_feed(d, &PRIV(d)->top, data, len, d->p->dec_offset, consumed);
}

static tread_status pf_finish(void *dec)
{
    D;
    if (PRIV(d)->finished)
        return TREAD_STATUS_OK;
    tread_status st = run_pending(d, 1);
    if (st != TREAD_STATUS_OK)
        return st;
    pf_framer *fr = &PRIV(d)->top;
    if (fr->state != PF_F_HDR || fr->hdr_len)
        tread__warn(d->p, TREAD_WARN_TRUNCATED_EVENT, fr->field_off,
                    "input ends inside a %s that starts at byte %llu: dropped",
                    fr->state == PF_F_PACKET ? "packet" : "field",
                    (unsigned long long)fr->field_off);
    else if (fr->ngroups)
        tread__warn(d->p, TREAD_WARN_TRUNCATED_EVENT, d->p->dec_offset,
                    "input ends inside a top-level group: dropped");
    d->n_tracks_parent_missing_end = pf_tracks_parent_missing(d);
    PRIV(d)->finished = 1;
    return TREAD_STATUS_OK;
}

static void pf_destroy(void *dec)
{
    D;
    const tread_alloc *a = &d->p->alloc;
    pf_z_free(&PRIV(d)->z, a);
    pf_chrome_free(d);
    pf_system_free(d);
    pf_profile_free(d);
    pf_v8_free(d);
    pf_seqs_free(d);
    pf_tracks_free(d);
    if (d->clocks)
        pf_clocks_free(d->clocks);
    tread_buf_free(&PRIV(d)->top.carry);
    tread_buf_free(&PRIV(d)->inner.carry);
    tread_buf_free(&PRIV(d)->hold);
    tread_buf_free(&d->strbuf);
    tread_buf_free(&d->catbuf);
    tread_buf_free(&d->flowbuf);
    tread_buf_free(&d->tflowbuf);
    tread_free(a, d->q);
    tread_free(a, d->fev_mem);
    tread_free(a, d);
}

static void *pf_create(tread_parser *p)
{
    pf_dec *x = tread_malloc(&p->alloc, sizeof *x);
    if (!x)
        return NULL;
    memset(x, 0, sizeof *x);
    pf_decoder *d = &x->d;
    d->p = p;
    x->inner.level = 1;
    tread_buf_init(&x->top.carry, &p->alloc, p->max_event_bytes);
    tread_buf_init(&x->inner.carry, &p->alloc, p->max_event_bytes);
    tread_buf_init(&x->z.z_copy, &p->alloc, p->max_event_bytes);
    tread_buf_init(&x->hold, &p->alloc, p->max_event_bytes);
    tread_buf_init(&d->strbuf, &p->alloc, (size_t)-1);
    tread_buf_init(&d->catbuf, &p->alloc, p->max_event_bytes);
    tread_buf_init(&d->flowbuf, &p->alloc, p->max_event_bytes * 8);
    tread_buf_init(&d->tflowbuf, &p->alloc, p->max_event_bytes * 8);
    tread_buf_init(&d->track_names, &p->alloc, (size_t)-1);
    d->clocks = pf_clocks_create(&p->alloc);
    d->fev = tread_malloc_line(&p->alloc, sizeof *d->fev, &d->fev_mem);
    if (!d->clocks || !d->fev) {
        pf_destroy(d);
        return NULL;
    }
    memset(d->fev, 0, sizeof *d->fev);
    return d;
}

static size_t pf_counters(const void *dec, tread_counter *out, size_t max)
{
    const pf_decoder *d = dec;
    size_t n = 0;
    n = tread__counter_put(out, max, n, "packets", d->n_packets);
    n = tread__counter_put(out, max, n, "packets_in_compressed", d->n_packets_inner);
    n = tread__counter_put(out, max, n, "zero_length_packets", d->n_zero_len);
    n = tread__counter_put(out, max, n, "skipped_top_level_fields", d->n_skipped_top);
    n = tread__counter_put(out, max, n, "bad_packets", d->n_bad_packets);
    n = tread__counter_put(out, max, n, "sequences", d->seq_used);
    n = tread__counter_put(out, max, n, "sequences_not_kept", d->n_seq_dropped);
    n = tread__counter_put(out, max, n, "incremental_state_clears", d->n_clears);
    n = tread__counter_put(out, max, n, "packets_dropped_invalid_state", d->n_dropped_invalid);
    n = tread__counter_put(out, max, n, "data_loss_packets", d->n_data_loss_packets);
    for (int b = 0; b < 32; b++)
        if (b < 9 || d->n_data_loss[b])
            n = tread__counter_put(out, max, n, loss_names[b], d->n_data_loss[b]);
    n = tread__counter_put(out, max, n, "interned_entries", d->n_interned_entries);
    n = tread__counter_put(out, max, n, "interned_data_ignored_invalid_state",
                           d->n_interned_ignored);
    n = tread__counter_put(out, max, n, "interning_misses", d->n_interning_misses);
    n = tread__counter_put(out, max, n, "interned_bytes_held", d->interned_total);
    n = tread__counter_put(out, max, n, "clock_snapshots",
                           d->clocks ? pf_clocks_snapshots(d->clocks) : 0);
    n = tread__counter_put(out, max, n, "clock_conversion_failures", d->n_clock_fail);
    n = tread__counter_put(out, max, n, "compressed_packets_expanded", d->n_compressed);
    n = tread__counter_put(out, max, n, "compressed_bytes_expanded", d->n_compressed_bytes);
    n = tread__counter_put(out, max, n, "track_events", d->n_track_events);
    n = tread__counter_put(out, max, n, "descriptors", d->n_descriptors);
    n = tread__counter_put(out, max, n, "tracks", d->track_used);
    n = tread__counter_put(out, max, n, "tracks_not_kept", d->n_tracks_dropped);
    n = tread__counter_put(out, max, n, "unknown_track_refs", d->n_unknown_track);
    n = tread__counter_put(out, max, n, "track_parent_missing", d->n_parent_missing);
    n = tread__counter_put(out, max, n, "tracks_parent_missing_at_end",
                           d->n_tracks_parent_missing_end);
    n = tread__counter_put(out, max, n, "chrome_legacy_json_traces", d->n_chrome_json);
    n = tread__counter_put(out, max, n, "chrome_trace_events", d->n_chrome_events);
    n = pf_system_counters(d, out, max, n);
    n = pf_profile_counters(d, out, max, n);
    n = pf_v8_counters(d, out, max, n);
    return n;
}

const tread_decoder_ops tread__perfetto_decoder = {
    .format = TREAD_FORMAT_PERFETTO,
    .create = pf_create,
    .feed = pf_feed,
    .finish = pf_finish,
    .destroy = pf_destroy,
    .counters = pf_counters,
};
