/*
 * Sequence state and interning (pf_sequence.c): per-sequence validity,
 * the interning store, TracePacketDefaults, the sequence's thread
 * descriptor, and the interned bytes held (max_interned_bytes).
 */
#ifndef TREAD_PERFETTO_PF_SEQ_H
#define TREAD_PERFETTO_PF_SEQ_H

#include "perfetto/pf_context.h"
#include "perfetto/pf_args.h"

#define PF_MAX_SEQUENCES 65536      /* sequences tracked per parser */
#define PF_ARENA_BLOCK 16384        /* interning arena block size */
#define PF_INTERN_CACHE 64          /* interned lookups cached per sequence */

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

struct pf_seq {
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
    const unsigned char *ss_defaults; /* stack_sample_defaults (a
                                    StackSampleDefaults, in the arena) */
    size_t ss_defaults_len;
    /* ThreadDescriptor of the sequence (legacy thread-bound events) */
    int has_thread;
    int64_t pid, tid;
    int64_t ts_us, tt_us, ti;  /* legacy delta-encoded references */
    /* the sequence's thread for V8 profiles (pf_v8.c): the last
     * ThreadDescriptor, or TrackDescriptor with a thread with a pid and tid
     * (trace_processor takes them only while the incremental state is
     * valid; the records need it valid anyway, and a piece of a split
     * trace restates them before its state is) */
    int has_v8_thread;
    int64_t v8_pid, v8_tid;
    pf_args_ctx actx;          /* what lazy args look interned data up in */
    uint64_t redefined;        /* interned entries that replaced one with
                                  the same (field, iid): what caches
                                  derived from entries check */
    pf_clock_memo clock_memo;  /* the last clock its timestamps were on */
    /* recently found entries, direct-mapped on (field, iid); emptied when
     * the store moves or is cleared (entries are never removed otherwise) */
    struct pf_icache {
        uint64_t iid;
        uint32_t field;
        pf_entry *e;
    } icache[PF_INTERN_CACHE];
};

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
/* A slot of a pseudo-namespace of the store (ns above every InternedData
 * field: PF_NS_*), freed with the rest on a clear; NULL after tread__fail.
 * Entry pointers held before it may move. */
pf_entry *pf_seq_pseudo_slot(pf_decoder *d, pf_seq *s, uint32_t ns, uint64_t key, uint64_t off);
int pf_seq_set_defaults(pf_decoder *d, pf_seq *s, const unsigned char *msg, size_t len,
                        uint64_t off);
/* The string field (number 2 in EventName/EventCategory/InternedString ...)
 * of an interned message, NUL-terminated: 1, or 0 when it has none. */
int pf_interned_str(const pf_entry *e, tread_str *out);
/* Charges bytes against max_interned_bytes; -1 after tread__fail. */
int pf_charge(pf_decoder *d, size_t n, uint64_t off);
/* An interned string (field 2 of the entry), warned and counted when
 * missing (-1, out set to ""); shared by both readers. */
int pf_lookup_str(pf_decoder *d, pf_seq *s, uint32_t field, uint64_t iid, tread_str *out,
                  uint64_t off, const char *what);

#endif
