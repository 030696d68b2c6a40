/* split_perfetto's internals, shared by its files: the state it keeps
 * (split_pf_state.c), the references to interned entries
 * (split_pf_refs.c), the sequence clocks (split_pf_clocks.c), the
 * incremental counters (split_pf_counters.c) and the pieces
 * (split_perfetto.c); and small wire helpers. See split_perfetto.c. */
#ifndef TREAD_TOOLS_SPLIT_PF_INTERNAL_H
#define TREAD_TOOLS_SPLIT_PF_INTERNAL_H

#include "split_perfetto.h"

#include <stdlib.h>
#include <string.h>

/* TracePacket fields */
enum {
    F_CLOCK_SNAPSHOT = 6,
    F_TIMESTAMP = 8,
    F_SEQ_ID = 10,
    F_TRACK_EVENT = 11,
    F_INTERNED = 12,
    F_FLAGS = 13,
    F_LEGACY_CLEAR = 41,
    F_THREAD_DESC = 44,
    F_STREAMING_PROFILE = 54,
    F_CLOCK_ID = 58,
    F_POWER_RAILS = 40,
    F_DEFAULTS = 59,
    F_TRACK_DESC = 60
};
#define SEQ_CLEARED 1u
#define SPF_CLOCK_BOOTTIME 6u /* the trace clock without primary_trace_clock */


/* ---- bytes ------------------------------------------------------------ */

typedef struct buf {
    unsigned char *p;
    size_t len, cap;
} buf;

static inline int buf_reserve(buf *b, size_t n)
{
    if (n <= b->cap - b->len)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    unsigned char *p = realloc(b->p, cap);
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

static inline int buf_put(buf *b, const void *p, size_t n)
{
    if (buf_reserve(b, n))
        return -1;
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

/* v as a varint at t (room for 10 bytes); its length. */
static inline size_t varint_to(unsigned char *t, uint64_t v)
{
    size_t n = 0;
    do {
        t[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return n;
}

static inline int buf_varint(buf *b, uint64_t v)
{
    unsigned char t[10];
    return buf_put(b, t, varint_to(t, v));
}

static inline int buf_tag(buf *b, uint32_t field, int wire)
{
    return buf_varint(b, ((uint64_t)field << 3) | (uint64_t)wire);
}

static inline int buf_lenfield(buf *b, uint32_t field, const void *p, size_t n)
{
    return buf_tag(b, field, 2) || buf_varint(b, n) || buf_put(b, p, n);
}

static inline size_t varint_size(uint64_t v)
{
    size_t n = 1;
    while (v > 0x7f) {
        v >>= 7;
        n++;
    }
    return n;
}

/* ---- reading ---------------------------------------------------------- */

typedef struct rd {
    const unsigned char *p, *end;
} rd;

typedef struct fld {
    uint32_t num;
    int wire;
    uint64_t v;                /* varint, fixed */
    const unsigned char *data; /* length-delimited */
    size_t len;
    const unsigned char *start; /* the field's tag */
} fld;

/* A varint of 2 to 10 bytes with 10 bytes readable at p, a word at a
 * time (timestamps and track uuids are 8-10 bytes): its length, or 0 when
 * it is longer than 10 bytes. The bits of a tenth byte past the 64th are
 * dropped, as rd_varint's byte loop drops them. (The twin of
 * lib/perfetto/pf_wire.h's pf_varint_long: the tools read the library
 * through its public API only.) */
static inline unsigned rd_varint_long(const unsigned char *p, uint64_t *out)
{
    uint64_t w;
    memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    uint64_t stop = ~w & 0x8080808080808080ull;
    uint64_t x = w & 0x7f7f7f7f7f7f7f7full;
    unsigned n = 8;
    if (stop) {
        unsigned bit = (unsigned)__builtin_ctzll(stop);
        x &= ((uint64_t)2 << bit) - 1;
        n = (bit >> 3) + 1;
    }
    x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
    x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
    x = ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
    if (!stop) {
        x |= (uint64_t)(p[8] & 0x7f) << 56;
        n = 9;
        if (p[8] & 0x80) {
            if (p[9] & 0x80)
                return 0;
            x |= (uint64_t)p[9] << 63;
            n = 10;
        }
    }
    *out = x;
    return n;
}

static inline int rd_varint(rd *r, uint64_t *v)
{
    if (r->p < r->end && !(*r->p & 0x80)) { /* most are one byte */
        *v = *r->p++;
        return 0;
    }
    if (r->end - r->p >= 10) {
        unsigned n = rd_varint_long(r->p, v);
        r->p += n;
        return n ? 0 : -1;
    }
    uint64_t x = 0;
    for (int s = 0; s < 64; s += 7) {
        if (r->p >= r->end)
            return -1;
        unsigned char c = *r->p++;
        x |= (uint64_t)(c & 0x7f) << s;
        if (!(c & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* After a group's start tag of field num: on 0, r is just after its
 * matching end tag. Read as the decoder's reader reads groups (nested to
 * 64, lib/perfetto/pf_wire.c), so that both take the same fields. */
static inline int rd_skip_group(rd *r, uint32_t num)
{
    uint32_t open[64];
    int depth = 0;
    open[depth++] = num;
    while (depth > 0) {
        uint64_t tag, v;
        if (rd_varint(r, &tag) || (tag >> 3) == 0 || (tag >> 3) > UINT32_MAX)
            return -1;
        switch (tag & 7) {
        case 0:
            if (rd_varint(r, &v))
                return -1;
            break;
        case 1:
        case 5: {
            size_t w = (tag & 7) == 1 ? 8 : 4;
            if ((size_t)(r->end - r->p) < w)
                return -1;
            r->p += w;
            break;
        }
        case 2:
            if (rd_varint(r, &v) || v > (uint64_t)(r->end - r->p))
                return -1;
            r->p += v;
            break;
        case 3:
            if (depth == 64)
                return -1;
            open[depth++] = (uint32_t)(tag >> 3);
            break;
        case 4:
            if (open[depth - 1] != (uint32_t)(tag >> 3))
                return -1;
            depth--;
            break;
        default: return -1;
        }
    }
    return 0;
}

/* 1: a field; 0: the end; -1: malformed, as the decoder's reader finds it
 * (a group is one field, wire 3, with no value). */
static inline int rd_next(rd *r, fld *f)
{
    if (r->p >= r->end)
        return 0;
    f->start = r->p;
    uint64_t tag;
    if (rd_varint(r, &tag) || (tag >> 3) == 0 || (tag >> 3) > UINT32_MAX)
        return -1;
    f->num = (uint32_t)(tag >> 3);
    f->wire = (int)(tag & 7);
    f->data = NULL;
    f->len = 0;
    f->v = 0;
    switch (f->wire) {
    case 0: return rd_varint(r, &f->v) ? -1 : 1;
    case 1:
        if (r->end - r->p < 8)
            return -1;
        f->v = 0;
        for (int i = 7; i >= 0; i--)
            f->v = (f->v << 8) | r->p[i];
        r->p += 8;
        return 1;
    case 5:
        if (r->end - r->p < 4)
            return -1;
        f->v = (uint64_t)r->p[0] | (uint64_t)r->p[1] << 8 | (uint64_t)r->p[2] << 16 |
               (uint64_t)r->p[3] << 24;
        r->p += 4;
        return 1;
    case 2: {
        uint64_t n;
        if (rd_varint(r, &n) || n > (uint64_t)(r->end - r->p))
            return -1;
        f->data = r->p;
        f->len = (size_t)n;
        r->p += n;
        return 1;
    }
    case 3: return rd_skip_group(r, f->num) ? -1 : 1;
    default: return -1;
    }
}

static inline void rd_init(rd *r, const unsigned char *p, size_t n)
{
    r->p = p;
    r->end = n ? p + n : p; /* (an empty buf's p may be NULL) */
}

/* An interned entry's iid (its last field 1), as the decoder takes it
 * (lib/perfetto/pf_sequence.c): 1, or 0 for an entry that does not decode
 * or has none, which the decoder skips. */
static inline int rd_entry_iid(const unsigned char *m, size_t n, uint64_t *iid)
{
    rd r;
    fld f;
    int rc, have = 0;
    *iid = 0;
    rd_init(&r, m, n);
    while ((rc = rd_next(&r, &f)) > 0)
        if (f.num == 1 && f.wire == 0)
            *iid = f.v, have = 1;
    return rc == 0 && have;
}

static inline int put_packet_begin(buf *out, size_t *mark)
{
    /* Trace.packet with a 5-byte length patched by put_packet_end */
    static const unsigned char hdr[6] = {0x0a, 0x80, 0x80, 0x80, 0x80, 0x00};
    *mark = out->len;
    return buf_put(out, hdr, sizeof hdr);
}

static inline void put_packet_end(buf *out, size_t mark)
{
    size_t n = out->len - mark - 6;
    unsigned char *p = out->p + mark + 1;
    for (int i = 0; i < 5; i++) {
        p[i] = (unsigned char)((n & 0x7f) | (i < 4 ? 0x80 : 0));
        n >>= 7;
    }
}


/* ---- state ------------------------------------------------------------ */

typedef struct entry {         /* an interned entry of a sequence */
    uint64_t iid;
    uint32_t ns;               /* InternedData field; 0: empty slot */
    uint32_t len;
    size_t off;                /* in the sequence's arena */
    uint64_t piece;            /* the piece holding it (number + 1) */
} entry;

typedef struct seq_clock {     /* a sequence-scoped clock */
    uint32_t id;
    int incremental;
    uint64_t unit;
    int64_t base;              /* its value in the last snapshot */
    int64_t running;           /* incremental: the current value */
    buf snap;                  /* the last ClockSnapshot naming it */
} seq_clock;

typedef struct counter {       /* an incremental counter track's value */
    uint64_t uuid;
    int64_t ival;
    double dval;
    uint64_t piece;            /* the piece whose decoder has the value */
} counter;

typedef struct seqst {
    uint32_t id;
    int used;
    int valid;                 /* the whole file's state after its last packet */
    uint64_t piece;            /* in sync in this piece (number + 1) */
    buf defaults;
    int has_defaults;
    struct te_defaults *dflt;  /* the defaults' track_event_defaults, read
                                  once (split_pf_counters.c); dflt_ok while
                                  they have not changed */
    int dflt_ok;
    buf arena;
    entry *tab;
    size_t tab_size, tab_used;
    uint32_t ns[48];           /* namespaces present (for unknown references) */
    size_t n_ns;
    seq_clock *clk;            /* SPLIT_PF_MAX_SEQ_CLOCKS, made at the first */
    size_t n_clk;
    counter *ctr;
    size_t n_ctr;
    buf thread;                /* the last legacy ThreadDescriptor */
    int has_thread;            /* (an empty one is a thread: pid 0, tid 0) */
    buf thread_td;             /* the last TrackDescriptor with a thread
                                  with pid and tid: with the legacy one, the
                                  sequence's thread for V8 profiles */
    int thread_td_last;        /* it came after the legacy one */
    /* the legacy delta-encoded references (split_pf_legacy.c): the whole
     * file's decoder's, and the piece's decoder's in piece lg_piece */
    int64_t lg_whole[3], lg_pv[3];
    uint64_t lg_piece;
    uint64_t held;             /* bytes charged to SPLIT_PF_MAX_STATE_BYTES */
} seqst;

typedef struct track {
    uint64_t uuid;             /* 0: empty slot */
    uint64_t parent;
    int incremental;
    uint32_t seq;
    size_t off, len;           /* the TrackDescriptor, in tracks_arena */
    uint64_t piece;
    int parent_known;          /* its parent was described before it last was */
    uint64_t state_piece;      /* a TYPE_STATE state open on it, begun in
                                  this piece (number + 1; 0: none open) */
} track;

typedef struct spf_rail {      /* a PowerRails descriptor in force */
    uint32_t index;
    size_t off, len;           /* its bytes, in rails_arena */
    int kept;                  /* 0: over SPLIT_PF_MAX_STATE_BYTES */
    uint64_t piece;
} spf_rail;

typedef struct saved {         /* a trace-level packet or global snapshot */
    uint32_t field, seq;
    buf msg;
} saved;

typedef struct ref {
    uint32_t ns;               /* 0: any namespace (unknown reference) */
    uint64_t iid;
} ref;

struct split_perfetto {
    split_pieces *sp;
    split_perfetto_stats st;
    char err[512];
    int failed;
    uint64_t piece;            /* current piece number + 1; 0: none open */
    uint64_t piece_originals;  /* input packets in the current piece */

    seqst *seqs;               /* open addressing on the id */
    size_t seq_size, seq_used;
    track *tracks;
    size_t track_size, track_used;
    buf tracks_arena;
    uint64_t held;             /* state bytes held, all sequences and tracks */

    spf_rail *rails;           /* SPLIT_PF_MAX_RAILS, made at the first */
    size_t n_rails;
    buf rails_arena;

    saved trace_pk[SPLIT_PF_MAX_TRACE_PACKETS];
    size_t n_trace;
    size_t trace_bytes;
    saved snaps[SPLIT_PF_CLOCK_SNAPSHOTS]; /* in force, oldest first */
    size_t n_snaps;
    /* the whole file's decoder's trace clock before the held packet, and
     * whether a conversion fixed it (TREAD_PF_STATE_CLOCK_FIXED) */
    uint32_t trace_clock;
    int clock_fixed;

    /* the packet held until its events are seen */
    int have;
    tread_perfetto_packet pk;
    buf cur;
    uint64_t used_tracks[SPLIT_PF_MAX_PACKET_TRACKS];
    size_t n_used;
    uint64_t own_track;        /* the TrackDescriptor the packet holds */
    int pk_thread_td;          /* ...and it names a thread (spf_thread_td) */
    int pk_same_thread;        /* its ThreadDescriptor is the sequence's
                                  last one, byte for byte */
    /* its first two events, for TYPE_STATE (kind, named, track) */
    int ev_n;
    tread_event_kind ev_kind[2];
    int ev_named[2];
    uint64_t ev_track[2];
    const unsigned char *rails_msg; /* its power_rails the decoder reads */
    size_t rails_len;
    int own_desc_seen;         /* its event: seen, and with a pid (the */
    int own_desc_pid;          /* decoder found its parent's) */
    const unsigned char *pk_lo, *pk_hi; /* its bytes, as the decoder has them
                                           while it delivers the events */
    struct spf_switch {        /* its first sched_switch on each cpu */
        uint32_t cpu;
        int prev_lost;         /* compact, with the previous thread known */
    } sw[SPLIT_PF_PACKET_CPUS];
    size_t n_sw;
    struct spf_v8_pk {         /* its V8 profiles (split_pf_v8.c) */
        uint64_t key, id;
        int64_t ts;            /* the running time after the packet */
        int state;             /* ...SPF_V8_* after it */
        int act;               /* what its writing does: SPF_V8_ACT_* */
    } v8[SPLIT_PF_PACKET_V8];
    size_t n_v8;
    int v8_over;               /* more than SPLIT_PF_PACKET_V8 */
    struct spf_v8_prof *v8_tab; /* 2 x SPLIT_PF_MAX_V8_PROFILES, open
                                   addressing on the key */
    size_t v8_used;
    uint64_t *cpu_piece;       /* SPLIT_PF_MAX_CPUS: the piece whose decoder
                                  has seen a switch on the cpu (number + 1) */

    /* scratch */
    buf out;                   /* state packets for the packet being written */
    buf tmp, tmp2, tmp3;
    ref *refs;
    size_t n_refs, refs_cap;
    ref own[256];              /* entries the packet interns itself */
    size_t n_own;
    int own_overflow;
    const unsigned char *own_msg; /* the packet's InternedData (while its */
    size_t own_len;               /* references are resolved), or NULL */
    const tread_perfetto_msgtype *walk_stack[TREAD_PF_WALK_DEFAULT_MAX_DEPTH + 2];
    /* what a (message type, field number) refers to, looked up by name
     * once (split_pf_refs.c): direct-mapped */
    struct spf_ref_cache {
        const tread_perfetto_msgtype *type; /* NULL: empty */
        uint32_t num;
        int ns;
    } ref_cache[256];
    const tread_perfetto_msgtype *t_packet, *t_frame, *t_callstack, *t_mapping,
        *t_symbols, *t_v8fn, *t_asyncdesc, *t_unsym;
    struct spf_refs_memo *refs_memo; /* (split_pf_refs.c; NULL until used) */
};

#define TE_MAX_VALUES 64 /* the decoder's PF_MAX_EXTRA_COUNTERS */
typedef struct te_value {
    int is_double;
    int64_t iv;
    double dv;
    counter *ctr;              /* the incremental track's value, or NULL */
} te_value;

typedef struct te_counter {
    int has_main;
    te_value main;
    te_value xi[TE_MAX_VALUES], xd[TE_MAX_VALUES]; /* extra int / double values */
    size_t n_xi, n_xd;
} te_counter;

/* What the pass over a TrackEvent's fields finds for its counter values
 * besides te_counter: the track uuids and the extra values as read. */
typedef struct te_counter_raw {
    int has_ui, has_ud, has_uuid;
    uint64_t uuid;
    size_t n_ui, n_ud;
    uint64_t xi[TE_MAX_VALUES], xd[TE_MAX_VALUES], ui[TE_MAX_VALUES], ud[TE_MAX_VALUES];
} te_counter_raw;

/* An empty te_counter: only what is read before it is filled (its value
 * arrays are 4 KiB, set up to n_xi / n_xd; clearing them all took a
 * tenth of a split's instructions). */
static inline void spf_counter_clear(te_counter *tc)
{
    tc->has_main = 0;
    tc->main = (te_value){0};
    tc->n_xi = tc->n_xd = 0;
}


static inline uint64_t spf_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* What a packet's length-delimited field num does to its power rails
 * message: the decoder reads the last system data source field of a packet
 * (lib/perfetto/pf_system.h, pf_system_wants): 1 for PowerRails, -1 for
 * the other sources (no rails then), 0 for anything else. */
static inline int spf_rails_field(uint32_t num)
{
    switch (num) {
    case 1: case 7: case 9: case 38: case 39: return -1;
    case F_POWER_RAILS: return 1;
    default: return 0;
    }
}

static inline int spf_seq_scoped(uint64_t id)
{
    return id >= 64 && id <= 127;
}

int spf_fail(split_perfetto *s, const char *msg);
int spf_nomem(split_perfetto *s);
seqst *spf_seq_find(split_perfetto *s, uint32_t id, int create);
int spf_charge(split_perfetto *s, seqst *q, size_t n);
void spf_seq_clear(split_perfetto *s, seqst *q);
entry *spf_entry_find(const seqst *q, uint32_t ns, uint64_t iid);
int spf_entry_put(split_perfetto *s, seqst *q, uint32_t ns, uint64_t iid,
                  const unsigned char *msg, size_t len);
track *spf_track_find(split_perfetto *s, uint64_t uuid);
int spf_track_put(split_perfetto *s, uint32_t seq, const unsigned char *msg, size_t len);
int spf_note_trace_packet(split_perfetto *s, uint32_t field, uint32_t seq,
                          const unsigned char *m, size_t n);
int spf_collect_refs(split_perfetto *s, const tread_perfetto_msgtype *t,
                     const unsigned char *p, size_t n);
/* spf_collect_refs of a whole packet, remembered by its bytes after the
 * timestamp (the walk reads nothing but the bytes). */
int spf_collect_packet_refs(split_perfetto *s, const unsigned char *p, size_t n);
void spf_collect_own(split_perfetto *s, const unsigned char *p, size_t n);
int spf_is_own(const split_perfetto *s, uint32_t ns, uint64_t iid);
void spf_missing_entries(split_perfetto *s, seqst *q, int all, int every);
seq_clock *spf_seq_clock_get(split_perfetto *s, seqst *q, uint32_t id, int create);
int spf_note_snapshot(split_perfetto *s, seqst *q, uint32_t seq, const unsigned char *m,
                      size_t n);
int spf_seq_snapshots(split_perfetto *s, seqst *q, buf *out);
/* split_pf_v8.c: V8 profile records. An event of the whole file's decoder
 * for the held packet; before the packet is written into the piece, the
 * record that restates its profile's running time there (when the piece's
 * decoder lacks it) into out; once written, the bookkeeping and the count
 * of what could not be restated. 0 / -1. */
int spf_v8_event(split_perfetto *s, const tread_event *ev);
int spf_v8_restate(split_perfetto *s, buf *out);
int spf_v8_note(split_perfetto *s);
/* Whether a TrackDescriptor names a thread with a pid and tid, which the
 * decoder takes as its sequence's thread for V8 profiles. */
int spf_thread_td(const unsigned char *m, size_t n);
/* A restated ClockSnapshot m as a packet on seq, without its
 * primary_trace_clock (the piece's is set by spf_pin_trace_clock). */
int spf_put_snapshot(split_perfetto *s, buf *out, uint32_t seq, const unsigned char *m,
                     size_t n);
/* What a piece starts with so that its decoder's trace clock is the whole
 * file's, fixed when it is. */
int spf_pin_trace_clock(split_perfetto *s, buf *out);
counter *spf_counter_get(split_perfetto *s, seqst *q, uint64_t uuid);
/* A TrackEvent's counter values read in the one pass over its fields
 * (split_perfetto.c read_track_event): spf_counter_begin, spf_counter_field
 * for each field, then spf_read_counter finds their tracks (the event's,
 * or the sequence's defaults') and running values. */
void spf_counter_begin(te_counter_raw *cr, te_counter *tc);
void spf_counter_field(te_counter_raw *cr, te_counter *tc, const fld *f);
void spf_read_counter(split_perfetto *s, seqst *q, te_counter_raw *cr, te_counter *tc);
void spf_advance(split_perfetto *s, te_value *v);
int spf_rails_needs(split_perfetto *s, const unsigned char *m, size_t n, buf *out);
int spf_rails_note(split_perfetto *s, const unsigned char *m, size_t n);
int spf_rewrite_counters(split_perfetto *s, const unsigned char *p, size_t n,
                         const te_counter *tc, buf *out);

/* The legacy references: what a packet (its ThreadDescriptor and its
 * TrackEvent, te NULL when it has none that decodes) does to them. */
enum { LG_TS, LG_TT, LG_TI, LG_N };
typedef struct lg_packet {
    int any;                   /* it sets or moves any of them */
    int has_refs;              /* a ThreadDescriptor that decodes */
    int has_ref[LG_N];
    int64_t ref[LG_N];
    int has_delta[LG_N], has_abs[LG_N];
    int64_t delta[LG_N], abs[LG_N];
    int64_t piece[LG_N];       /* the piece's values after the packet */
    int64_t te[LG_N];          /* ...after its TrackEvent, before its
                                  streaming deltas: a rewritten delta's
                                  absolute */
    unsigned rewrite;          /* bit k: delta k written as an absolute;
                                  LG_STREAM: the streaming deltas' first
                                  one moved by stream_fix */
    /* a StreamingProfilePacket's timestamp deltas, which move the
     * timestamp after the TrackEvent's (lib/perfetto/pf_profile.c) */
    int has_stream;            /* it applied at least one */
    int64_t stream_sum, stream_fix;
} lg_packet;
#define LG_STREAM (1u << 8)
/* A packet's StreamingProfilePacket (its last, m[0..n)): the deltas the
 * decoder applies, into lp. */
void spf_legacy_stream(lg_packet *lp, const unsigned char *m, size_t n);
/* Reads them of the packet's ThreadDescriptor (NULL when it has none)
 * into an lg_packet it starts. */
void spf_legacy_refs(const unsigned char *thdesc, size_t thdesc_len, lg_packet *lp);
/* A TrackEvent field's delta or absolute (in the one pass over its
 * fields, split_perfetto.c read_track_event). */
void spf_legacy_field(lg_packet *t, const fld *f);
/* For the packet about to be written to the current piece (needs() done):
 * which deltas to rewrite, and the piece's values after it. */
void spf_legacy_plan(const split_perfetto *s, const seqst *q, lg_packet *lp);
/* The packet p[0..n) with the planned deltas as absolutes, into out; 0
 * when none is planned (out untouched), 1, or -1 after spf_nomem. */
int spf_legacy_rewrite(split_perfetto *s, const lg_packet *lp, const unsigned char *p, size_t n,
                       buf *out);
/* The whole file's decoder and the piece's after the packet. */
void spf_legacy_advance(const split_perfetto *s, seqst *q, const lg_packet *lp);

#endif
