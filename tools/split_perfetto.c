/* split_perfetto: see split_perfetto.h and doc/convert.md ("Perfetto pieces").
 *
 * The state a piece's decoder needs is the state the whole file's decoder
 * has at the same packet. This file keeps a copy of the part that packets
 * refer to (per sequence: validity, TracePacketDefaults, interned entries,
 * sequence-scoped clocks, incremental counter values, a legacy
 * ThreadDescriptor; globally: track descriptors, the latest clock
 * snapshots, trace-level packets), stamps each item with the piece that
 * holds it, and before a packet writes what it needs and the piece lacks.
 * A sequence's state in a piece is "in sync" from its first packet in the
 * piece on: from then the copied packets change both decoders alike. */
#include "split_pf_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Payloads that are the trace's, not a sequence's, and make no event:
 * repeated in every piece. */
static int trace_level(uint32_t f)
{
    switch (f) {
    case 33:  /* trace_config */
    case 45:  /* system_info */
    case 72:  /* extension_descriptor (the schema of extensions) */
    case 89:  /* trace_uuid */
    case 124: /* trace_provenance */
    case 126: /* trace_attributes */
        return 1;
    default:
        return 0;
    }
}


/* ---- pieces ----------------------------------------------------------- */

static int pieces_fail(split_perfetto *s)
{
    const char *e = split_pieces_error(s->sp);
    return spf_fail(s, e && *e ? e : "split: cannot write a piece");
}

/* A saved message as a packet {seq, field: msg}. */
static int put_saved(buf *out, const saved *sv)
{
    size_t mark;
    if (put_packet_begin(out, &mark))
        return -1;
    if (sv->seq && (buf_tag(out, F_SEQ_ID, 0) || buf_varint(out, sv->seq)))
        return -1;
    if (buf_lenfield(out, sv->field, sv->msg.p, sv->msg.len))
        return -1;
    put_packet_end(out, mark);
    return 0;
}

/* What every piece starts with: the whole file's trace clock, the global
 * clock snapshots in force, then the trace-level packets. */
static int piece_header(split_perfetto *s, buf *out)
{
    if (spf_pin_trace_clock(s, out))
        return -1;
    for (size_t i = 0; i < s->n_snaps; i++) {
        saved *sv = &s->snaps[i];
        if (spf_put_snapshot(s, out, sv->seq, sv->msg.p, sv->msg.len))
            return -1;
    }
    for (size_t i = 0; i < s->n_trace; i++)
        if (put_saved(out, &s->trace_pk[i]))
            return spf_nomem(s);
    return 0;
}

/* Track t's descriptor, if the piece lacks it, with its parents: in the
 * order the whole file had them when t was last described (the decoder
 * resolves a pid through the parent chain at each event, so the order
 * changes no pid; it keeps the piece's descriptor facts as the file's). */
static int put_track(split_perfetto *s, track *t, int depth)
{
    if (!t || t->piece == s->piece || depth >= SPLIT_PF_MAX_PARENT_DEPTH)
        return 0;
    t->piece = s->piece; /* (also ends a cycle) */
    track *parent = spf_track_find(s, t->parent);
    if (t->parent_known && put_track(s, parent, depth + 1))
        return -1;
    if (t->len) {
        buf *out = &s->out;
        size_t mark;
        if (put_packet_begin(out, &mark) ||
            (t->seq && (buf_tag(out, F_SEQ_ID, 0) || buf_varint(out, t->seq))) ||
            buf_lenfield(out, F_TRACK_DESC, s->tracks_arena.p + t->off, t->len))
            return spf_nomem(s);
        put_packet_end(out, mark);
    }
    return t->parent_known ? 0 : put_track(s, parent, depth + 1);
}

/* The state packets the held packet needs in the current piece, into
 * s->out (s->piece must be the piece they are for). Marks what they give
 * as held by the piece. */
static int needs(split_perfetto *s, seqst *qv, seqst *q, const unsigned char *interned,
                 size_t interned_len, int clears, int own_defaults)
{
    buf *out = &s->out;
    int fresh = q && q->piece != s->piece;
    /* the sequence's thread and clocks (not incremental state: given
     * whatever the state's validity) */
    if (fresh) {
        /* (both, the last one last: the decoder's V8 profiles take the
         * thread of whichever came last) */
        for (int k = 0; k < 2; k++) {
            int td = k == 0 ? !q->thread_td_last : q->thread_td_last;
            /* (not the thread TrackDescriptor when the packet is one, nor
             * the ThreadDescriptor when the packet is the same one: it
             * sets the thread itself, and a copy of it before it would be
             * a packet with its bytes and events, which the checker takes
             * for it: fuzz_split_perfetto, regress_thread_td_twin,
             * regress_thread_descriptor_twin) */
            if (td ? !q->thread_td.len || s->pk_thread_td : !q->has_thread || s->pk_same_thread)
                continue;
            const buf *b = td ? &q->thread_td : &q->thread;
            size_t mark;
            if (put_packet_begin(out, &mark) || buf_tag(out, F_SEQ_ID, 0) ||
                buf_varint(out, q->id) ||
                buf_lenfield(out, td ? F_TRACK_DESC : F_THREAD_DESC, b->p, b->len))
                return spf_nomem(s);
            put_packet_end(out, mark);
        }
        if (spf_seq_snapshots(s, q, out))
            return -1;
        /* defaults outlive data loss: an invalid sequence has them too
         * (unless the packet clears them or sets its own) */
        if (!qv && q->has_defaults && !clears && !own_defaults) {
            size_t mark;
            if (put_packet_begin(out, &mark) || buf_tag(out, F_SEQ_ID, 0) ||
                buf_varint(out, q->id) ||
                buf_lenfield(out, F_DEFAULTS, q->defaults.p, q->defaults.len))
                return spf_nomem(s);
            put_packet_end(out, mark);
        }
    }
    /* its incremental state: cleared, with the defaults and the interned
     * entries referenced, when the whole file's is valid (a packet that
     * clears it itself needs none) */
    s->n_refs = 0;
    s->n_own = 0;
    s->own_overflow = 0;
    s->own_msg = interned, s->own_len = interned_len;
    if (qv && !clears) {
        int every = spf_collect_packet_refs(s, s->cur.p, s->cur.len) < 0;
        s->st.unwalkable_packets += (uint64_t)every;
        if (interned)
            spf_collect_own(s, interned, interned_len);
        s->tmp.len = 0;
        if (fresh)
            for (size_t i = 0; i < qv->tab_size; i++)
                if (qv->tab[i].ns)
                    qv->tab[i].piece = 0; /* the piece's sequence starts empty */
        spf_missing_entries(s, qv, fresh, every);
        if (s->failed)
            return -1;
        if (fresh || s->tmp.len) {
            size_t mark;
            if (put_packet_begin(out, &mark) || buf_tag(out, F_SEQ_ID, 0) ||
                buf_varint(out, qv->id))
                return spf_nomem(s);
            if (fresh && (buf_tag(out, F_FLAGS, 0) || buf_varint(out, SEQ_CLEARED)))
                return spf_nomem(s);
            if (fresh && qv->has_defaults &&
                buf_lenfield(out, F_DEFAULTS, qv->defaults.p, qv->defaults.len))
                return spf_nomem(s);
            if (s->tmp.len && buf_lenfield(out, F_INTERNED, s->tmp.p, s->tmp.len))
                return spf_nomem(s);
            put_packet_end(out, mark);
        }
    }
    /* the power rails its energy data names */
    if (s->rails_msg && spf_rails_needs(s, s->rails_msg, s->rails_len, out))
        return -1;
    /* the tracks its events are on, and their parents */
    for (size_t i = 0; i < s->n_used; i++)
        if (s->used_tracks[i] != s->own_track && /* (the packet describes it) */
            put_track(s, spf_track_find(s, s->used_tracks[i]), 0))
            return -1;
    return 0;
}

static int begin_piece(split_perfetto *s)
{
    if (split_pieces_begin(s->sp))
        return pieces_fail(s);
    s->piece++;
    s->piece_originals = 0;
    s->out.len = 0;
    if (piece_header(s, &s->out))
        return -1;
    if (s->out.len && split_pieces_write(s->sp, s->out.p, s->out.len))
        return pieces_fail(s);
    split_pieces_header_end(s->sp);
    s->st.state_bytes += s->out.len;
    s->out.len = 0;
    return 0;
}

/* ---- one packet ------------------------------------------------------- */

static int frame_size(size_t n)
{
    return (int)(1 + varint_size(n));
}

/* One pass over a TrackEvent's fields: its legacy deltas and absolutes
 * into lp, its counter values into cr and tc, its type (field 9, the last
 * one read, as the decoder reads it) into *type. 1 when it decodes; else 0
 * and lp unchanged (the decoder skips such a TrackEvent, so nothing of it
 * moves any state on). It was three passes: 12% of splitting
 * chromium_startup. */
static int read_track_event(const unsigned char *te, size_t n, lg_packet *lp,
                            te_counter_raw *cr, te_counter *tc, int *type)
{
    lg_packet t = *lp;
    rd r;
    fld f;
    int rc;
    spf_counter_begin(cr, tc);
    *type = 0;
    rd_init(&r, te, n);
    while ((rc = rd_next(&r, &f)) > 0) {
        if (f.num == 9 && f.wire == 0)
            *type = (int)f.v;
        spf_legacy_field(&t, &f);
        spf_counter_field(cr, tc, &f);
    }
    if (rc < 0)
        return 0;
    *lp = t;
    return 1;
}

/* Writes the packet held, after what it needs; then moves the copy of the
 * state on as the whole file's decoder did. */
static int write_packet(split_perfetto *s)
{
    const tread_perfetto_packet *pk = &s->pk;
    const unsigned char *p = s->cur.p;
    size_t n = s->cur.len;
    rd r;
    fld f;
    int has_seq_field = 0, has_ts = 0;
    uint64_t ts = 0;
    const unsigned char *interned = NULL, *defaults = NULL, *snap = NULL, *tdesc = NULL;
    const unsigned char *thdesc = NULL, *te = NULL, *tl = NULL;
    size_t interned_len = 0, defaults_len = 0, snap_len = 0, tdesc_len = 0, thdesc_len = 0;
    size_t te_len = 0, tl_len = 0;
    const unsigned char *rails = NULL; /* the packet's PowerRails (spf_rails_field) */
    size_t rails_len = 0;
    const unsigned char *stream = NULL; /* its StreamingProfilePacket */
    size_t stream_len = 0;
    int has_defaults = 0;
    uint32_t tl_field = 0;
    rd_init(&r, p, n);
    /* (rd_next reads as the decoder does, groups included, and a field
     * that does not decode ends the reading: the decoder did not deliver
     * such a packet, so this is never short of what it read) */
    while (rd_next(&r, &f) > 0) {
        if (f.wire == 0) {
            if (f.num == F_SEQ_ID)
                has_seq_field = 1;
            else if (f.num == F_TIMESTAMP)
                has_ts = 1, ts = f.v;
            continue;
        }
        if (f.wire != 2)
            continue;
        int rf = spf_rails_field(f.num);
        if (rf)
            rails = rf > 0 ? f.data : NULL, rails_len = rf > 0 ? f.len : 0;
        switch (f.num) {
        case F_INTERNED: interned = f.data, interned_len = f.len; break;
        case F_DEFAULTS: has_defaults = 1, defaults = f.data, defaults_len = f.len; break;
        case F_CLOCK_SNAPSHOT: snap = f.data, snap_len = f.len; break;
        case F_TRACK_DESC: tdesc = f.data, tdesc_len = f.len; break;
        case F_THREAD_DESC: thdesc = f.data, thdesc_len = f.len; break;
        case F_TRACK_EVENT: te = f.data, te_len = f.len; break;
        case F_STREAMING_PROFILE: stream = f.data, stream_len = f.len; break;
        default:
            if (trace_level(f.num))
                tl = f.data, tl_len = f.len, tl_field = f.num;
            break;
        }
    }
    int clears = (pk->state & TREAD_PF_STATE_CLEARED) != 0;
    int dropped = (pk->state & TREAD_PF_STATE_DROPPED) != 0;
    int valid_after = (pk->state & TREAD_PF_STATE_VALID) != 0;
    /* (the decoder reads no system data source of a dropped packet) */
    s->rails_msg = dropped ? NULL : rails;
    s->rails_len = dropped ? 0 : rails_len;

    seqst *q = spf_seq_find(s, pk->seq_id, 1);
    if (s->failed)
        return -1;
    int valid_before = q && q->valid;
    /* what happens before the packet's content: its clear, its defaults */
    if (q && clears)
        spf_seq_clear(s, q);
    if (q && has_defaults) {
        q->defaults.len = 0;
        q->dflt_ok = 0;
        if (spf_charge(s, q, defaults_len) == 0) {
            if (buf_put(&q->defaults, defaults, defaults_len))
                return spf_nomem(s);
            q->has_defaults = 1;
        } else {
            q->has_defaults = 0;
        }
    }
    /* the track it describes needs its parents */
    s->own_track = 0;
    s->pk_thread_td = !dropped && tdesc && spf_thread_td(tdesc, tdesc_len);
    if (tdesc) {
        rd t;
        fld g;
        uint64_t parent = 0;
        rd_init(&t, tdesc, tdesc_len);
        while (rd_next(&t, &g) > 0) {
            if (g.num == 1 && g.wire == 0)
                s->own_track = g.v;
            else if (g.num == 5 && g.wire == 0)
                parent = g.v;
        }
        int have = 0;
        for (size_t i = 0; i < s->n_used; i++)
            have |= s->used_tracks[i] == parent;
        /* (only when the whole file's decoder had it: else the piece must
         * not have it either) */
        int resolved = (s->own_desc_seen && s->own_desc_pid) ||
                       spf_track_find(s, parent) != NULL;
        if (parent && !have && resolved && s->n_used < SPLIT_PF_MAX_PACKET_TRACKS)
            s->used_tracks[s->n_used++] = parent;
    }
    /* its incremental counter value, and its legacy references (of a
     * TrackEvent the decoder read: one that does not decode is skipped) */
    lg_packet lp;
    te_counter tc;
    te_counter_raw cr;
    int type = 0;
    spf_legacy_refs(dropped ? NULL : thdesc, thdesc_len, &lp);
    s->pk_same_thread = !dropped && thdesc && lp.has_refs && q && q->has_thread &&
                        q->thread.len == thdesc_len &&
                        (!thdesc_len || memcmp(q->thread.p, thdesc, thdesc_len) == 0);
    if (!dropped && te && read_track_event(te, te_len, &lp, &cr, &tc, &type) && q) {
        spf_read_counter(s, q, &cr, &tc);
        if (s->failed)
            return -1;
    } else {
        spf_counter_clear(&tc);
    }
    if (!dropped && stream && q)
        spf_legacy_stream(&lp, stream, stream_len);

    for (;;) {
        if (!s->piece || !split_pieces_is_open(s->sp)) {
            if (begin_piece(s))
                return -1;
        }
        s->out.len = 0;
        if (needs(s, valid_before ? q : NULL, q, interned, interned_len, clears, has_defaults) ||
            spf_v8_restate(s, &s->out))
            return -1;
        const unsigned char *body = p;
        size_t body_len = n;
        int rewritten = spf_rewrite_counters(s, p, n, &tc, &s->tmp);
        if (rewritten < 0)
            return -1;
        if (rewritten) {
            body = s->tmp.p;
            body_len = s->tmp.len;
        }
        int lrc = 0;
        if (q) {
            spf_legacy_plan(s, q, &lp);
            lrc = spf_legacy_rewrite(s, &lp, body, body_len, &s->tmp2);
            if (lrc < 0)
                return -1;
            if (lrc) {
                /* (tmp2 is free: the counters' rewrite used it only
                 * inside) */
                body = s->tmp2.p;
                body_len = s->tmp2.len;
            }
        }
        size_t seq_extra = 0;
        if (pk->seq_id && !has_seq_field)
            seq_extra = 1 + varint_size(pk->seq_id);
        uint64_t total = s->out.len + frame_size(body_len + seq_extra) + body_len + seq_extra;
        if (s->piece_originals && split_pieces_size(s->sp) + total > split_pieces_max(s->sp)) {
            if (split_pieces_end(s->sp))
                return pieces_fail(s);
            continue;
        }
        if (!s->piece_originals && split_pieces_size(s->sp) + total > split_pieces_max(s->sp))
            split_pieces_oversize(s->sp);
        if (s->out.len && split_pieces_write(s->sp, s->out.p, s->out.len))
            return pieces_fail(s);
        s->st.state_bytes += s->out.len;
        for (size_t i = 0; i < s->out.len;) { /* count the state packets */
            rd c;
            uint64_t len;
            rd_init(&c, s->out.p + i + 1, s->out.len - i - 1);
            if (rd_varint(&c, &len))
                break;
            i = (size_t)(c.p - s->out.p) + (size_t)len;
            s->st.state_packets++;
        }
        unsigned char hdr[16];
        size_t hl = 0;
        hdr[hl++] = 0x0a; /* Trace.packet */
        hl += varint_to(hdr + hl, body_len + seq_extra);
        if (split_pieces_write(s->sp, hdr, hl) || split_pieces_write(s->sp, body, body_len))
            return pieces_fail(s);
        if (seq_extra) {
            unsigned char t[8];
            size_t sl = varint_to(t, (uint64_t)F_SEQ_ID << 3);
            sl += varint_to(t + sl, pk->seq_id);
            if (split_pieces_write(s->sp, t, sl))
                return pieces_fail(s);
            s->st.seq_added++;
        }
        s->st.counters_rewritten += (uint64_t)rewritten;
        s->st.deltas_rewritten += (uint64_t)lrc;
        s->piece_originals++;
        s->st.packets++;
        break;
    }

    /* a TYPE_STATE state on its track (doc/formats/perfetto.md): the
     * piece's decoder has one open only when it began in this piece */
    if (te && !dropped && type == 5 && s->ev_n > 0) {
        int implicit_end = s->ev_n > 1 && s->ev_kind[0] == TREAD_EVENT_SLICE_END &&
                           !s->ev_named[0] && s->ev_kind[1] == TREAD_EVENT_SLICE_BEGIN &&
                           s->ev_track[0] == s->ev_track[1];
        uint64_t uuid = s->ev_track[implicit_end ? 1 : 0];
        track *t = uuid ? spf_track_find(s, uuid) : NULL;
        if (implicit_end && (!t || t->state_piece != s->piece))
            s->st.state_ends_lost++;
        if (t)
            t->state_piece = implicit_end || s->ev_kind[0] == TREAD_EVENT_SLICE_BEGIN
                                 ? s->piece : 0;
    }
    /* a V8 profile record in a piece after its profile's first */
    if (spf_v8_note(s) < 0)
        return -1;
    /* a compact switch first on its cpu in the piece: the piece's decoder
     * does not know the previous thread */
    if (s->n_sw && !s->cpu_piece) {
        s->cpu_piece = calloc(SPLIT_PF_MAX_CPUS, sizeof *s->cpu_piece);
        if (!s->cpu_piece)
            return spf_nomem(s);
    }
    for (size_t i = 0; i < s->n_sw; i++) {
        uint64_t *cp = &s->cpu_piece[s->sw[i].cpu];
        if (s->sw[i].prev_lost && *cp != s->piece)
            s->st.sched_prevs_lost++;
        *cp = s->piece;
    }
    /* the whole file's decoder after the packet */
    if (tc.has_main)
        spf_advance(s, &tc.main);
    for (size_t i = 0; i < tc.n_xi; i++)
        spf_advance(s, &tc.xi[i]);
    for (size_t i = 0; i < tc.n_xd; i++)
        spf_advance(s, &tc.xd[i]);
    if (!q)
        return 0;
    spf_legacy_advance(s, q, &lp);
    q->valid = valid_after;
    q->piece = s->piece;
    if (!dropped && interned && valid_after) {
        rd_init(&r, interned, interned_len);
        while (rd_next(&r, &f) > 0) {
            uint64_t iid;
            if (f.wire == 2 && rd_entry_iid(f.data, f.len, &iid) &&
                spf_entry_put(s, q, f.num, iid, f.data, f.len))
                return -1;
        }
    }
    /* (one the decoder ignored would stand in a piece for the snapshot
     * the whole converts with; fuzz_split_perfetto) */
    if (!dropped && snap && !(pk->state & TREAD_PF_STATE_CLOCK_BAD) &&
        spf_note_snapshot(s, q, pk->seq_id, snap, snap_len))
        return -1;
    if (!dropped && has_ts && spf_seq_scoped(pk->clock_id)) {
        seq_clock *k = spf_seq_clock_get(s, q, pk->clock_id, 0);
        if (k && k->incremental)
            k->running = (int64_t)((uint64_t)k->running + ts);
    }
    /* (one that does not decode the decoder skips: the thread before it
     * stays, and so the piece's copy; fuzz_split_perfetto) */
    if (!dropped && thdesc && lp.has_refs) {
        q->thread.len = 0;
        if (buf_put(&q->thread, thdesc, thdesc_len))
            return spf_nomem(s);
        q->has_thread = 1;
        q->thread_td_last = 0;
    }
    if (!dropped && tdesc && spf_track_put(s, pk->seq_id, tdesc, tdesc_len))
        return -1;
    if (!dropped && tdesc && spf_thread_td(tdesc, tdesc_len)) {
        q->thread_td.len = 0;
        if (buf_put(&q->thread_td, tdesc, tdesc_len))
            return spf_nomem(s);
        q->thread_td_last = 1;
    }
    if (s->rails_msg && spf_rails_note(s, s->rails_msg, s->rails_len))
        return -1;
    if (tl && spf_note_trace_packet(s, tl_field, pk->seq_id, tl, tl_len))
        return -1;
    return 0;
}

static int write_held(split_perfetto *s)
{
    if (write_packet(s))
        return -1;
    /* (the hook's clock fields are as after the packet: as before the
     * next) */
    s->trace_clock = s->pk.trace_clock_id;
    s->clock_fixed = (s->pk.state & TREAD_PF_STATE_CLOCK_FIXED) != 0;
    return 0;
}

/* ---- the interface ---------------------------------------------------- */

split_perfetto *split_perfetto_new(split_pieces *sp)
{
    split_perfetto *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->sp = sp;
    s->trace_clock = SPF_CLOCK_BOOTTIME;
    s->t_packet = tread_perfetto_msgtype_find("perfetto.protos.TracePacket");
    s->t_frame = tread_perfetto_msgtype_find("perfetto.protos.Frame");
    s->t_callstack = tread_perfetto_msgtype_find("perfetto.protos.Callstack");
    s->t_mapping = tread_perfetto_msgtype_find("perfetto.protos.Mapping");
    s->t_unsym = tread_perfetto_msgtype_find("perfetto.protos.UnsymbolizedSourceLocation");
    s->t_symbols = tread_perfetto_msgtype_find("perfetto.protos.ProfiledFrameSymbols");
    s->t_v8fn = tread_perfetto_msgtype_find("perfetto.protos.InternedV8JsFunction");
    s->t_asyncdesc =
        tread_perfetto_msgtype_find("perfetto.protos.StackSample.AsyncContextDescriptor");
    return s;
}

int split_perfetto_packet(split_perfetto *s, const tread_perfetto_packet *pk)
{
    if (s->failed)
        return -1;
    if (s->have && write_held(s))
        return -1;
    s->pk = *pk;
    s->pk_lo = pk->data;
    s->pk_hi = pk->data + pk->len;
    s->n_sw = 0;
    s->n_v8 = 0;
    s->v8_over = 0;
    s->pk.data = NULL;
    s->cur.len = 0;
    if (buf_put(&s->cur, pk->data, pk->len))
        return spf_nomem(s);
    s->n_used = 0;
    s->own_desc_seen = s->own_desc_pid = 0;
    s->ev_n = 0;
    s->have = 1;
    return 0;
}

int split_perfetto_event(split_perfetto *s, const tread_event *ev)
{
    if (s->failed)
        return -1;
    s->st.events++;
    if (ev->kind == TREAD_EVENT_METADATA && ev->meta == TREAD_META_TRACK_DESCRIPTOR &&
        !s->own_desc_seen) {
        s->own_desc_seen = 1;
        s->own_desc_pid = (ev->flags & TREAD_HAS_PID) != 0;
    }
    if (s->have && ev->kind == TREAD_EVENT_CONTEXT_SWITCH && (ev->flags & TREAD_HAS_CPU) &&
        ev->cpu >= 0 && ev->cpu < SPLIT_PF_MAX_CPUS) {
        /* The decoder gives a compact_sched switch its previous thread
         * from the cpu's last switch (lib/perfetto/pf_ftrace.c), which a
         * piece's decoder has only after a switch on that cpu in the
         * piece. A compact switch's args are the decoder's synthesized
         * message, not bytes of the packet; a full one names its previous
         * thread itself. */
        size_t i = 0;
        while (i < s->n_sw && s->sw[i].cpu != (uint32_t)ev->cpu)
            i++;
        if (i == s->n_sw && i < SPLIT_PF_PACKET_CPUS) {
            const unsigned char *a = ev->args.data;
            int compact = !(a >= s->pk_lo && a < s->pk_hi);
            s->sw[i].cpu = (uint32_t)ev->cpu;
            s->sw[i].prev_lost = compact && (ev->flags & (TREAD_HAS_PID | TREAD_HAS_TID));
            s->n_sw++;
        }
    }
    if (s->have && spf_v8_event(s, ev))
        return -1;
    /* the packet's first two events but its stack frames (an inline
     * callstack's come before the event that names them) */
    if (s->have && s->ev_n < 2 && ev->kind != TREAD_EVENT_STACK_FRAME) {
        s->ev_kind[s->ev_n] = ev->kind;
        s->ev_named[s->ev_n] = ev->name.len > 0;
        s->ev_track[s->ev_n] = (ev->flags & TREAD_HAS_TRACK) ? ev->track_uuid : 0;
        s->ev_n++;
    }
    if (!(ev->flags & TREAD_HAS_TRACK) || !ev->track_uuid || !s->have)
        return 0;
    for (size_t i = 0; i < s->n_used; i++)
        if (s->used_tracks[i] == ev->track_uuid)
            return 0;
    if (s->n_used >= SPLIT_PF_MAX_PACKET_TRACKS) {
        s->st.tracks_of_packet_not_kept++;
        return 0;
    }
    s->used_tracks[s->n_used++] = ev->track_uuid;
    return 0;
}

int split_perfetto_finish(split_perfetto *s)
{
    if (s->failed)
        return -1;
    if (s->have) {
        s->have = 0;
        if (write_held(s))
            return -1;
    }
    if (split_pieces_is_open(s->sp) && split_pieces_end(s->sp))
        return pieces_fail(s);
    return 0;
}

const char *split_perfetto_error(const split_perfetto *s)
{
    return s->failed ? s->err : "";
}

const split_perfetto_stats *split_perfetto_get_stats(const split_perfetto *s)
{
    return &s->st;
}

void split_perfetto_print_warnings(const split_perfetto *s, FILE *f)
{
    const split_perfetto_stats *t = &s->st;
    struct {
        uint64_t n;
        const char *what;
    } w[] = {
        {t->seq_not_kept, "packets of sequences beyond SPLIT_PF_MAX_SEQUENCES: copied without "
                          "their state"},
        {t->state_not_kept, "interned entries or descriptors beyond SPLIT_PF_MAX_STATE_BYTES: "
                            "not repeated in later pieces"},
        {t->tracks_not_kept, "track descriptors beyond SPLIT_PF_MAX_TRACKS: not repeated"},
        {t->trace_not_kept, "trace-level packets beyond SPLIT_PF_MAX_TRACE_PACKETS, "
                            "SPLIT_PF_MAX_TRACE_BYTES or SPLIT_PF_MAX_TRACE_PACKET_BYTES: only in "
                            "their own piece"},
        {t->refs_not_kept, "interned references beyond SPLIT_PF_MAX_REFS in one packet"},
        {t->tracks_of_packet_not_kept, "tracks beyond SPLIT_PF_MAX_PACKET_TRACKS in one packet"},
        {t->unknown_refs, "references to interned data of an unknown kind: every kind's entry "
                          "of that iid repeated"},
        {t->unwalkable_packets, "packets whose references could not all be read (malformed): "
                                "every interned entry of their sequence repeated"},
        {t->counters_not_kept, "incremental counters beyond SPLIT_PF_MAX_COUNTERS on a sequence"},
        {t->clocks_not_kept, "sequence clocks beyond SPLIT_PF_MAX_SEQ_CLOCKS"},
        {t->snapshots_not_kept, "global clock snapshots in force beyond "
                                "SPLIT_PF_CLOCK_SNAPSHOTS: the oldest not repeated"},
        {t->clock_shift_inexact, "clock snapshots moved by an amount their unit does not "
                                 "divide"},
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (w[i].n)
            fprintf(f, "tread: split: %" PRIu64 " %s\n", w[i].n, w[i].what);
}

uint64_t split_perfetto_lost(const split_perfetto *s)
{
    return s->st.state_ends_lost + s->st.sched_prevs_lost + s->st.v8_records_split;
}

void split_perfetto_print_losses(const split_perfetto *s, FILE *f)
{
    if (s->st.state_ends_lost)
        fprintf(f, "tread: left out %" PRIu64 " slice_end events: the implicit end of a "
                "TYPE_STATE state begun in an earlier piece\n", s->st.state_ends_lost);
    if (s->st.sched_prevs_lost)
        fprintf(f, "tread: left out the previous thread of %" PRIu64 " compact sched_switch "
                "events: the first on their CPU in a piece, whose decoder cannot know it\n",
                s->st.sched_prevs_lost);
    if (s->st.v8_records_split)
        fprintf(f, "tread: %" PRIu64 " V8 profile records are in a piece whose parser cannot "
                "be given their profile's running time: their samples' times may be missing or "
                "differ, their frames may lack a parent\n", s->st.v8_records_split);
}

void split_perfetto_free(split_perfetto *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->seq_size; i++) {
        seqst *q = &s->seqs[i];
        if (!q->used)
            continue;
        free(q->defaults.p);
        free(q->dflt);
        free(q->arena.p);
        free(q->tab);
        for (size_t k = 0; k < q->n_clk; k++)
            free(q->clk[k].snap.p);
        free(q->clk);
        free(q->ctr);
        free(q->thread.p);
        free(q->thread_td.p);
    }
    free(s->refs_memo);
    free(s->seqs);
    free(s->tracks);
    free(s->tracks_arena.p);
    free(s->rails);
    free(s->rails_arena.p);
    for (size_t i = 0; i < SPLIT_PF_MAX_TRACE_PACKETS; i++)
        free(s->trace_pk[i].msg.p);
    for (size_t i = 0; i < SPLIT_PF_CLOCK_SNAPSHOTS; i++)
        free(s->snaps[i].msg.p);
    free(s->cur.p);
    free(s->out.p);
    free(s->tmp.p);
    free(s->tmp2.p);
    free(s->tmp3.p);
    free(s->refs);
    free(s->cpu_piece);
    free(s->v8_tab);
    free(s);
}
