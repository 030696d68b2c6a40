/*
 * The Perfetto decoder's internal interfaces: the decoder state shared by
 * pf_decoder.c (framing, packets, compressed packets, pause/resume),
 * pf_sequence.c (sequence state, interning store), pf_tracks.c (track
 * table, descriptors), pf_track_event.c (TrackEvent) and pf_chrome.c
 * (ChromeEventBundle). doc/formats/perfetto.md describes the mapping.
 */
#ifndef TREAD_PERFETTO_PF_INTERNAL_H
#define TREAD_PERFETTO_PF_INTERNAL_H

#include <tread.h>
#include <tread/perfetto.h>
#include "core/parser.h"
#include "core/worker.h"
#include "perfetto/pf_wire.h"
#include "perfetto/pf_clock.h"
#include "perfetto/pf_args.h"

/* Named bounds (each overflow is counted, never unbounded memory). */
#define PF_MAX_SEQUENCES 65536      /* sequences tracked per parser */
#define PF_MAX_TRACKS 65536         /* track descriptors kept per parser */
#define PF_ARENA_BLOCK 16384        /* interning arena block size */
#define PF_ZOUT_CHUNK 65536         /* decompressed bytes per step */
#define PF_TRACK_CACHE 64           /* track lookups cached (a power of two) */
#define PF_INTERN_CACHE 64          /* interned lookups cached per sequence */

/* TracePacket fields. */
enum {
    PF_PKT_PROCESS_TREE = 2,
    PF_PKT_CHROME_EVENTS = 5,
    PF_PKT_CLOCK_SNAPSHOT = 6,
    PF_PKT_TIMESTAMP = 8,
    PF_PKT_SEQ_ID = 10,
    PF_PKT_TRACK_EVENT = 11,
    PF_PKT_INTERNED_DATA = 12,
    PF_PKT_SEQUENCE_FLAGS = 13,
    PF_PKT_INCREMENTAL_STATE_CLEARED = 41,
    PF_PKT_PREVIOUS_PACKET_DROPPED = 42,
    PF_PKT_PROCESS_DESCRIPTOR = 43,
    PF_PKT_THREAD_DESCRIPTOR = 44,
    PF_PKT_COMPRESSED = 50,
    PF_PKT_TIMESTAMP_CLOCK_ID = 58,
    PF_PKT_DEFAULTS = 59,
    PF_PKT_TRACK_DESCRIPTOR = 60,
    PF_PKT_FIRST_PACKET_ON_SEQUENCE = 87,
    PF_PKT_ZSTD_COMPRESSED = 133
};

#define PF_SEQ_INCREMENTAL_STATE_CLEARED 1u
#define PF_SEQ_NEEDS_INCREMENTAL_STATE 2u

/* InternedData fields used by the decoder itself. */
enum {
    PF_INTERN_EVENT_CATEGORIES = 1,
    PF_INTERN_EVENT_NAMES = 2,
    PF_INTERN_MAX_FIELD = 0x1fffffff
};
/* Pseudo-namespace of the interning store: an incremental counter's
 * running value per track uuid (reset with the rest on a clear). */
#define PF_NS_COUNTER_VALUE 0xffffffffu

/* One interning entry (or running counter value). */
typedef struct pf_entry {
    uint64_t iid;
    uint32_t field;            /* 0: empty slot */
    uint32_t len;
    const unsigned char *msg;  /* the whole interned message, in the arena */
    const char *str;           /* its field 2 string (the name, for every
                                  string-like entry), NUL-terminated copy in
                                  the arena; NULL when it has none */
    size_t str_len;
    int64_t ival;              /* PF_NS_COUNTER_VALUE: running values */
    double dval;
} pf_entry;

typedef struct pf_block {
    struct pf_block *next;
    size_t used, cap;
    unsigned char data[];
} pf_block;

typedef struct pf_seq {
    uint32_t id;
    int seen;                  /* a packet was seen on it */
    int valid;                 /* incremental state valid */
    uint64_t packets;
    /* interning store: open addressing, size a power of two */
    pf_entry *tab;
    size_t tab_size, tab_used;
    pf_block *blocks;
    uint64_t bytes;            /* held, counted against max_interned_bytes */
    /* TracePacketDefaults */
    int has_default_clock;
    uint32_t default_clock;
    int has_default_track;
    uint64_t default_track;
    pf_u64list default_extra[2]; /* extra_counter_track_uuids, and the
                                    extra_double_ ones, parsed once */
    /* ThreadDescriptor of the sequence (legacy thread-bound events) */
    int has_thread;
    int64_t pid, tid;
    int64_t ts_us, tt_us, ti;  /* legacy delta-encoded references */
    pf_args_ctx actx;          /* what lazy args look interned data up in */
    pf_clock_memo clock_memo;  /* the last clock its timestamps were on */
    /* recently found entries, direct-mapped on (field, iid); emptied when
     * the store moves or is cleared (entries are never removed otherwise) */
    struct pf_icache {
        uint64_t iid;
        uint32_t field;
        pf_entry *e;
    } icache[PF_INTERN_CACHE];
} pf_seq;

typedef struct pf_track {
    uint64_t uuid;             /* 0: empty slot */
    uint64_t parent;
    tread_track_kind kind;
    int has_pid, has_tid;
    int64_t pid, tid;
    int64_t unit_multiplier;   /* 1 when not given */
    int is_incremental;
    int is_counter;
    size_t name_off, name_len; /* in the decoder's track-name buffer */
    unsigned char hier;        /* PF_HIER_*: is the parent chain whole? */
    unsigned char state_open;  /* a TYPE_STATE state is open on it */
} pf_track;

/* pf_track.hier: unchecked (new, or its descriptor was read again), every
 * ancestor known (stays so), or a parent uuid without a descriptor (checked
 * again at each event until the descriptor comes). */
enum { PF_HIER_UNCHECKED = 0, PF_HIER_OK, PF_HIER_MISSING };
/* Longest parent chain followed (a longer one, or a cycle, counts as
 * whole). */
#define PF_MAX_TRACK_DEPTH 64

/* What every event of a packet shares (set once per packet). */
typedef struct pf_base {
    uint64_t offset;
    uint32_t flags;            /* TREAD_HAS_SEQ, TREAD_HAS_TS / _RAW_TS */
    uint32_t seq_id;
    uint32_t clock_id;
    int64_t ts, raw_ts;
    const void *raw;
} pf_base;

/* Bits of pf_qitem.nul: strings already NUL-terminated in memory that
 * outlives the delivery (arena copies, static text, the decoder's own
 * buffers), which delivery need not copy. */
#define PF_NUL_NAME 1u
#define PF_NUL_CAT 2u
#define PF_NUL_META 4u
#define PF_NUL_SERIES 8u

/* One queued delivery: the raw hook or an event. Pointers in ev may point
 * into the packet (relocated on pause) or into the interning arena;
 * strings are copied NUL-terminated at delivery. */
typedef struct pf_qitem {
    int is_hook;
    int general;               /* filled by the general reader: members
                                  outside pf_reset_event_common may be set */
    int plain;                 /* (fast reader) every string NUL-terminated
                                  in place, nothing to format at delivery */
    unsigned nul;              /* PF_NUL_* */
    int fmt_id;                /* print id_num as the id text */
    int fmt_bind;              /* print bind_num as bind_id text */
    uint64_t bind_num;
    pf_seq *seq;               /* for lazy args */
    tread_event ev;
} pf_qitem;

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

/* pf_fast.c: the fast reader of the common TrackEvent packets (see there).
 * PF_FAST_DONE: the packet was read (events delivered, or the rest queued
 * after a stop: stop_requested is then set); PF_FAST_ERROR: after
 * tread__fail; any other value: a reason it was not taken, nothing changed
 * (the general reader reads the packet). */
enum {
    PF_FAST_DONE = 0,
    PF_FAST_ERROR,
    PF_FAST_NO_HOOK,         /* the perfetto_packet raw hook is set */
    PF_FAST_PACKET_FIELD,    /* a packet field other than timestamp, clock
                                id, sequence id and flags, trusted uid/pid,
                                one interned_data and one track_event */
    PF_FAST_MALFORMED,       /* a packet or TrackEvent field that does not
                                decode, or a known field of the wrong type */
    PF_FAST_NO_TRACK_EVENT,  /* no track_event, or more than one */
    PF_FAST_NO_TIMESTAMP,
    PF_FAST_SEQUENCE,        /* first packet of its sequence, or a sequence
                                not kept */
    PF_FAST_SEQ_STATE,       /* clears the incremental state, or needs it
                                while it is invalid */
    PF_FAST_TE_FIELD,        /* a TrackEvent field the fast reader leaves
                                to the general one (legacy event, its own
                                timestamps, categories as strings, extra
                                counter uuids, correlation ids, ...) */
    PF_FAST_TE_TYPE,         /* no type, or not one of the four */
    PF_FAST_CATEGORIES,      /* more than 8 category iids (pf_fast.c
                                FAST_MAX_CATS), or an empty packed list */
    PF_FAST_EXTRA_COUNTERS,  /* extra counter values beyond the sequence's
                                default uuids (or more than
                                PF_MAX_EXTRA_COUNTERS) */
    PF_FAST_REASONS_
};
/* One compressed packet's stream (pf_expand.c), stepped by the decoder or
 * by its worker thread, which then owns it. */
typedef struct pf_zjob {
    int kind;                  /* 1 zlib (compressed_packets), 2 zstd */
    int done;                  /* zlib: stream end seen, adler32 matched */
    int stop;                  /* zlib: wrapper damaged or cut: inflate no more */
    int bad;                   /* the data does not decompress */
    uint32_t adler;            /* zlib: adler32 of what came out */
    tread_inflater inf;        /* raw deflate: pf_expand.c reads the wrapper */
    tread_decompressor dz;
    const unsigned char *in;
    size_t in_len;
} pf_zjob;

/* How an expansion ended (pf_z_next). */
enum { PF_ZEND_OK = 0, PF_ZEND_BAD, PF_ZEND_CUT, PF_ZEND_TRAILING };

typedef struct pf_decoder {
    tread_parser *p;
    pf_clocks *clocks;

    pf_framer top, inner;

    /* sequences: open addressing on the id */
    pf_seq **seqs;
    size_t seq_size, seq_used;
    pf_seq *last_seq;

    /* tracks */
    pf_track *tracks;
    size_t track_size, track_used;
    /* recently found tracks, direct-mapped on the uuid; emptied when the
     * table moves (tracks are never removed otherwise) */
    struct pf_tcache {
        uint64_t uuid;
        pf_track *t;
    } tcache[PF_TRACK_CACHE];
    tread_buf track_names;
    uint64_t interned_total;   /* all sequences + track names */

    /* the packet being delivered */
    const unsigned char *cur;  /* the top-level packet (for relocation) */
    size_t cur_len;
    int cur_owned;
    tread_buf hold;            /* a paused packet's copy */
    tread_perfetto_packet pkt;
    pf_qitem *q;
    size_t q_len, q_cap, q_pos;
    /* the fast reader's own event, delivered without the queue (pf_fast.c
     * emit_direct): zeroed when made, and only the members
     * pf_reset_event_common names are ever set in it. 64-byte aligned
     * (tread_malloc_line; fev_mem is the allocation): inside the decoder,
     * the 16-byte store of pid and tid happened to straddle a page
     * boundary, and that one store made count_events 11% slower on
     * chromium_startup */
    tread_event *fev;
    void *fev_mem;
    tread_buf strbuf;          /* NUL-terminated copies at delivery */
    tread_buf catbuf;          /* joined categories of the TrackEvent */
    tread_buf flowbuf;         /* the TrackEvent's flow ids */
    tread_buf tflowbuf;        /* ...and terminating flow ids */

    /* compressed packet expansion (pf_expand.c) */
    int z_active;
    int z_threaded;            /* this expansion runs on zw */
    pf_zjob zj;                /* zw's while z_threaded */
    tread_worker *zw;          /* the expanding thread, made at first use */
    int zw_failed;             /* no thread could be had: expand inline */
    tread_buf z_copy;          /* the compressed bytes, zw's own copy */
    uint64_t z_total;          /* bytes expanded from this packet */
    uint64_t z_off;            /* offset of the compressed packet */
    unsigned char *z_out;      /* inline: the one piece */
    const unsigned char *z_piece; /* the piece being framed */
    size_t z_out_len, z_out_pos;

    /* ChromeEventBundle legacy JSON through a nested JSON decoder */
    int chrome_active;
    void *chrome_dec;
    const unsigned char *chrome_json;
    size_t chrome_json_len, chrome_json_pos, chrome_json_resume_pos;
    int chrome_stage;          /* 0 "[", 1 data, 2 "]", 3 finish */
    const unsigned char *chrome_bundle; /* remaining bundle fields */
    size_t chrome_bundle_len;
    uint64_t chrome_off;
    uint64_t chrome_fed;       /* bytes the nested decoder consumed */

    int finished;

    struct pf_sys *sys;        /* system data sources (pf_system.h) */

    /* counters */
    uint64_t n_packets, n_packets_inner, n_zero_len, n_skipped_top;
    uint64_t n_dropped_invalid, n_data_loss[32], n_data_loss_packets;
    uint64_t n_interning_misses, n_clock_fail, n_compressed, n_compressed_bytes;
    uint64_t n_track_events, n_tracks_dropped, n_seq_dropped, n_unknown_track;
    uint64_t n_parent_missing;  /* events marked TREAD_TRACK_UNRESOLVED */
    uint64_t n_tracks_parent_missing_end; /* tracks still so at the end */
    uint64_t n_descriptors, n_chrome_json, n_chrome_events, n_interned_entries;
    uint64_t n_clears, n_bad_packets, n_interned_ignored;
    /* packets the fast reader left to the general one, by reason
     * (PF_FAST_*; internal, for the unit tests) */
    uint64_t n_fast_declined[PF_FAST_REASONS_];
} pf_decoder;

/* Microseconds to ns: 0, or -1 when the result leaves int64. */
/* The raw hook's view of the packet being read: both readers (pf_decoder.c,
 * pf_fast.c) describe it the same way. */
static inline void pf_describe_packet(pf_decoder *d, const unsigned char *data, size_t len,
                                      uint32_t seq_id, uint32_t clock_id, const pf_base *base,
                                      uint32_t sequence_flags, uint32_t state, uint64_t off)
{
    d->pkt.data = data;
    d->pkt.len = len;
    d->pkt.seq_id = seq_id;
    d->pkt.clock_id = clock_id;
    d->pkt.ts = (base->flags & TREAD_HAS_TS) ? base->ts : base->raw_ts;
    d->pkt.sequence_flags = sequence_flags;
    d->pkt.state = state;
    d->pkt.offset = off;
}

static inline int pf_us_to_ns(int64_t us, int64_t *ns)
{
    if (us > INT64_MAX / 1000 || us < INT64_MIN / 1000)
        return -1;
    *ns = us * 1000;
    return 0;
}

/* Running sums written by the producer wrap rather than overflow. */
static inline int64_t pf_wrap_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* pf_adler32.c: zlib's adler32(), faster. */
uint32_t pf_adler32(uint32_t adler, const unsigned char *p, size_t len);

/* pf_sequence.c */
pf_seq *pf_seq_get(pf_decoder *d, uint32_t id);
void pf_seq_clear(pf_decoder *d, pf_seq *s);
void pf_seqs_free(pf_decoder *d);
/* Stores every entry of an InternedData message. 0, or -1 after
 * tread__fail (limit or memory). */
int pf_seq_intern(pf_decoder *d, pf_seq *s, const unsigned char *msg, size_t len, uint64_t off);
const pf_entry *pf_seq_lookup(const pf_seq *s, uint32_t field, uint64_t iid);
/* The running value slot of an incremental counter; NULL when out of
 * memory (after tread__fail). */
pf_entry *pf_seq_counter_slot(pf_decoder *d, pf_seq *s, uint64_t track, uint64_t off);

static inline struct pf_icache *pf_icache_of(pf_seq *s, uint32_t field, uint64_t iid)
{
    return &s->icache[(iid ^ (iid >> 7) ^ ((uint64_t)field * 5)) & (PF_INTERN_CACHE - 1)];
}

/* pf_seq_lookup through the sequence's cache (s may be NULL). */
static inline const pf_entry *pf_seq_find(pf_seq *s, uint32_t field, uint64_t iid)
{
    if (!s)
        return NULL;
    struct pf_icache *c = pf_icache_of(s, field, iid);
    if (c->e && c->iid == iid && c->field == field)
        return c->e;
    const pf_entry *e = pf_seq_lookup(s, field, iid);
    if (e) {
        c->iid = iid;
        c->field = field;
        c->e = (pf_entry *)(uintptr_t)e;
    }
    return e;
}

static inline pf_entry *pf_seq_counter(pf_decoder *d, pf_seq *s, uint64_t track, uint64_t off)
{
    struct pf_icache *c = pf_icache_of(s, PF_NS_COUNTER_VALUE, track);
    /* (not when the slot path would grow the store first: the interned
     * bytes held, and the limit, stay what they were without the cache) */
    if (c->e && c->iid == track && c->field == PF_NS_COUNTER_VALUE &&
        (s->tab_used + 1) * 2 <= s->tab_size)
        return c->e;
    pf_entry *e = pf_seq_counter_slot(d, s, track, off);
    if (e) {
        c->iid = track;
        c->field = PF_NS_COUNTER_VALUE;
        c->e = e;
    }
    return e;
}
int pf_seq_set_defaults(pf_decoder *d, pf_seq *s, const unsigned char *msg, size_t len,
                        uint64_t off);
/* The string field (number 2 in EventName/EventCategory/InternedString ...)
 * of an interned message, NUL-terminated: 1, or 0 when it has none. */
int pf_interned_str(const pf_entry *e, tread_str *out);

/* pf_tracks.c */
pf_track *pf_track_lookup(pf_decoder *d, uint64_t uuid);
/* The track of uuid, NULL when unknown (or uuid 0); cached. */
static inline pf_track *pf_track_find(pf_decoder *d, uint64_t uuid)
{
    struct pf_tcache *c = &d->tcache[(uuid ^ (uuid >> 17)) & (PF_TRACK_CACHE - 1)];
    if (c->t && c->uuid == uuid)
        return c->t;
    pf_track *t = pf_track_lookup(d, uuid);
    if (t) {
        c->uuid = uuid;
        c->t = t;
    }
    return t;
}
/* TrackDescriptor / ProcessDescriptor / ThreadDescriptor / ProcessTree:
 * updates the tables and queues metadata events. -1 after tread__fail. */
int pf_track_descriptor(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len,
                        const pf_base *base);
int pf_process_descriptor(pf_decoder *d, const unsigned char *m, size_t len,
                          const pf_base *base);
int pf_thread_descriptor(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len,
                         const pf_base *base);
int pf_process_tree(pf_decoder *d, const unsigned char *m, size_t len, const pf_base *base);
/* The track's name (NUL-terminated in the track-name buffer), or {NULL, 0}. */
static inline tread_str pf_track_name(const pf_decoder *d, const pf_track *t)
{
    tread_str s = {NULL, 0};
    if (t && t->name_len) {
        s.ptr = (const char *)d->track_names.data + t->name_off;
        s.len = t->name_len;
    }
    return s;
}

/* 1 when a parent uuid on t's chain has no descriptor (pf_tracks.c). */
int pf_track_parent_missing(pf_decoder *d, pf_track *t);
/* How many known tracks have such a chain (at the end of the trace: what
 * trace_processor, which sees the whole trace first, would find). */
uint64_t pf_tracks_parent_missing(pf_decoder *d);

/* Sets the track fields of ev from uuid (0: the sequence's thread). */
static inline const pf_track *pf_resolve_track(pf_decoder *d, pf_seq *s, uint64_t uuid,
                                               tread_event *ev)
{
    if (uuid) {
        pf_track *t = pf_track_find(d, uuid);
        ev->flags |= TREAD_HAS_TRACK;
        ev->track_uuid = uuid;
        if (!t) {
            d->n_unknown_track++;
            ev->track_kind = TREAD_TRACK_NONE;
            return NULL;
        }
        ev->track_kind = t->kind;
        if (t->parent && t->hier != PF_HIER_OK && pf_track_parent_missing(d, t)) {
            ev->flags |= TREAD_TRACK_UNRESOLVED;
            d->n_parent_missing++;
        }
        if (t->has_pid) {
            ev->flags |= TREAD_HAS_PID;
            ev->pid = ev->tid = t->pid;
        }
        if (t->has_tid) {
            ev->flags |= TREAD_HAS_TID;
            ev->tid = t->tid;
        }
        return t;
    }
    if (s && s->has_thread) {
        ev->flags |= TREAD_HAS_TRACK | TREAD_HAS_PID | TREAD_HAS_TID;
        ev->track_kind = TREAD_TRACK_THREAD;
        ev->pid = s->pid;
        ev->tid = s->tid;
    }
    return NULL;
}

void pf_tracks_free(pf_decoder *d);

/* pf_track_event.c, shared with the fast reader (pf_fast.c): an interned
 * string, warned and counted when missing (-1, out set to ""). */
int pf_lookup_str(pf_decoder *d, pf_seq *s, uint32_t field, uint64_t iid, tread_str *out,
                  uint64_t off, const char *what);

/* A counter value on track t: unit_multiplier, then is_incremental (the
 * running value in the sequence's store). -1 after tread__fail. */
static inline int pf_set_counter_ev(pf_decoder *d, pf_seq *s, const pf_track *t, tread_event *ev,
                                    unsigned *nul, int is_int, int64_t iv, double dv)
{
    int64_t mult = t ? t->unit_multiplier : 1;
    if (t && t->is_incremental && s) {
        pf_entry *run = pf_seq_counter(d, s, t->uuid, ev->offset);
        if (!run)
            return -1;
        if (is_int) {
            run->ival = pf_wrap_add(run->ival, iv);
            iv = run->ival;
        } else {
            run->dval += dv;
            dv = run->dval;
        }
    }
    ev->flags |= TREAD_HAS_VALUE;
    if (is_int) {
        ev->value_int = (int64_t)((uint64_t)iv * (uint64_t)mult);
        ev->flags |= TREAD_VALUE_IS_INT;
        ev->value = (double)ev->value_int;
    } else {
        ev->value = dv * (double)mult;
    }
    /* track names are NUL-terminated in the decoder's buffer */
    tread_str tn = pf_track_name(d, t);
    ev->series = tn;
    *nul |= PF_NUL_SERIES;
    if ((!ev->name.ptr || !ev->name.len) && tn.ptr) {
        ev->name = tn;
        *nul |= PF_NUL_NAME;
    }
    return 0;
}

/* A queued extra counter value's event (TrackEvent extra_counter_values):
 * the time and category of the event before it (main_ev, with its nul
 * bits main_nul), on the sequence s; the caller resolves its track and
 * sets its value. */
static inline void pf_extra_counter_event(pf_qitem *xq, pf_seq *s, const tread_event *main_ev,
                                          unsigned main_nul)
{
    tread_event *xe = &xq->ev;
    xq->seq = s;
    xe->kind = TREAD_EVENT_COUNTER;
    xe->phase = 'C';
    xe->ts = main_ev->ts;
    xe->flags = main_ev->flags & (TREAD_HAS_TS | TREAD_HAS_RAW_TS | TREAD_HAS_SEQ);
    xe->raw_ts = main_ev->raw_ts;
    xe->clock_id = main_ev->clock_id;
    xe->cat = main_ev->cat;
    xq->nul |= main_nul & PF_NUL_CAT;
}

/* Appends s NUL-terminated to b (room reserved by the caller) and points
 * s at the copy: a string delivered with an event. (inline: most events
 * have several absent strings) */
static inline PF_ALWAYS_INLINE void pf_put_str(tread_buf *b, tread_str *s)
{
    if (!s->ptr)
        return;
    char *dst = (char *)b->data + b->len;
    if (s->len)
        memcpy(dst, s->ptr, s->len);
    dst[s->len] = 0;
    b->len += s->len + 1;
    s->ptr = dst;
}

/* The same, on a queued event. */
static inline int pf_set_counter(pf_decoder *d, pf_seq *s, const pf_track *t, pf_qitem *q,
                                 int is_int, int64_t iv, double dv)
{
    return pf_set_counter_ev(d, s, t, &q->ev, &q->nul, is_int, iv, dv);
}

/* pf_fast.c: the fast reader (PF_FAST_* above). */
int pf_fast_packet(pf_decoder *d, const unsigned char *data, size_t len, uint64_t off,
                   int level);

/* pf_track_event.c: the events of one TrackEvent. base has the packet's
 * common fields (offset, seq, ts). -1 after tread__fail. */
int pf_track_event(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len,
                   const pf_base *base);

/* pf_chrome.c: a ChromeEventBundle. Queues its metadata and legacy
 * events, and sets up the legacy JSON for pf_chrome_continue. */
int pf_chrome_bundle(pf_decoder *d, const unsigned char *m, size_t len, const pf_base *base);
/* Feeds queued legacy JSON to the nested JSON decoder. */
tread_status pf_chrome_continue(pf_decoder *d);
void pf_chrome_free(pf_decoder *d);

/* pf_expand.c: a compressed packet's expansion. pf_z_start: 0, or -1
 * after tread__fail. pf_z_next: the next piece's length (> 0) with *out,
 * 0 at the end with *end (PF_ZEND_*), -1 out of memory; the piece stays
 * valid until the next call. pf_z_end ends an expansion (early or not);
 * pf_z_free also frees the thread and buffers. */
int pf_z_start(pf_decoder *d, int zstd, const unsigned char *in, size_t len, uint64_t off);
long pf_z_next(pf_decoder *d, const unsigned char **out, int *end);
void pf_z_end(pf_decoder *d);
void pf_z_free(pf_decoder *d);

/* Resetting an event: queue slots are zeroed once when the queue grows;
 * after that only the members the Perfetto decoder ever sets (in
 * pf_decoder.c, pf_track_event.c, pf_fast.c, pf_tracks.c, pf_chrome.c, and
 * tread__emit's format) are reset. Every other member (pid_str,
 * cname, sf, stack, value_text, provider, ...) stays zero. Measured:
 * clearing all 560 bytes per event was ~9% of the instructions on
 * chromium_startup. The common members are what the fast reader sets
 * (pf_fast.c); the rare ones only the general reader sets, so they are
 * reset only in a slot the general reader filled last (pf_qitem.general). */
static inline void pf_event_set_base(tread_event *ev, const pf_base *base)
{
    ev->offset = base->offset;
    ev->flags = base->flags;
    ev->seq_id = base->seq_id;
    ev->ts = base->ts;
    ev->raw_ts = base->raw_ts;
    ev->clock_id = base->clock_id;
    ev->raw = base->raw;
}

static inline void pf_reset_event_common(tread_event *ev, const pf_base *base)
{
    static const tread_str z = {NULL, 0};
    pf_event_set_base(ev, base);
    ev->kind = TREAD_EVENT_UNKNOWN;
    ev->format = TREAD_FORMAT_UNKNOWN;
    ev->phase = 0;
    ev->pid = ev->tid = 0;
    ev->name = z;
    ev->cat = z;
    ev->series = z;
    ev->value = 0;
    ev->value_int = 0;
    ev->args.data = NULL;
    ev->args.len = 0;
    ev->args.encoding = TREAD_ARGS_TOKENS;
    ev->args.ctx = NULL;
    ev->track_uuid = 0;
    ev->track_kind = TREAD_TRACK_NONE;
    ev->flow_ids.v = NULL;
    ev->flow_ids.n = 0;
    ev->terminating_flow_ids.v = NULL;
    ev->terminating_flow_ids.n = 0;
}

static inline void pf_reset_event_rare(tread_event *ev)
{
    static const tread_str z = {NULL, 0};
    ev->dur = ev->tts = ev->tdur = 0;
    ev->id = z;
    ev->id_num = 0;
    ev->id_scope = z;
    ev->bind_id = z;
    ev->scope = TREAD_SCOPE_NONE;
    ev->tidelta = ev->ticount = 0;
    ev->meta = TREAD_META_NONE;
    ev->meta_str = z;
    ev->meta_num = 0;
    ev->cpu = 0; /* the system data sources' counters and ftrace events */
}

/* pf_decoder.c */
/* Doubles the queue (new slots zeroed). -1 after tread__fail. */
int pf_queue_grow(pf_decoder *d, uint64_t off);
/* A new queue slot, reset, with base's fields (NULL base: the raw hook's
 * slot); NULL after tread__fail. */
pf_qitem *pf_queue_event(pf_decoder *d, const pf_base *base);
/* A new queue slot whose event is not reset: for a caller that resets the
 * whole event itself (tread__ftrace_event_init). NULL after tread__fail. */
pf_qitem *pf_queue_slot(pf_decoder *d, uint64_t off);
/* A copy of bytes in the track-name buffer (interned bytes accounting).
 * -1 after tread__fail. */
int pf_keep_name(pf_decoder *d, const char *s, size_t len, size_t *off);
/* Charges bytes against max_interned_bytes; -1 after tread__fail. */
int pf_charge(pf_decoder *d, size_t n, uint64_t off);
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
