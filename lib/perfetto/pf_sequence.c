/* Per-sequence state: incremental-state validity, the interning store
 * (whole interned messages in an arena of blocks + an open-addressing hash
 * keyed by (InternedData field, iid)), TracePacketDefaults, and the
 * sequence's thread descriptor. Everything here is freed on a clear. */
#include "perfetto/pf_seq.h"

#include <string.h>

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static int seq_lookup_fn(const void *seqp, uint32_t field, uint64_t iid, const unsigned char **msg,
                         size_t *len)
{
    const pf_entry *e = pf_seq_lookup(seqp, field, iid);
    if (!e || !e->msg)
        return 0;
    *msg = e->msg;
    *len = e->len;
    return 1;
}

static int seqs_grow(pf_decoder *d)
{
    size_t n = d->seq_size ? d->seq_size * 2 : 64;
    pf_seq **t = tread_malloc(&d->p->alloc, n * sizeof *t);
    if (!t)
        return -1;
    memset(t, 0, n * sizeof *t);
    for (size_t i = 0; i < d->seq_size; i++) {
        pf_seq *s = d->seqs[i];
        if (!s)
            continue;
        size_t j = mix(s->id) & (n - 1);
        while (t[j])
            j = (j + 1) & (n - 1);
        t[j] = s;
    }
    tread_free(&d->p->alloc, d->seqs);
    d->seqs = t;
    d->seq_size = n;
    return 0;
}

pf_seq *pf_seq_get(pf_decoder *d, uint32_t id)
{
    if (d->last_seq && d->last_seq->id == id)
        return d->last_seq;
    if (d->seq_size) {
        size_t j = mix(id) & (d->seq_size - 1);
        while (d->seqs[j]) {
            if (d->seqs[j]->id == id)
                return d->last_seq = d->seqs[j];
            j = (j + 1) & (d->seq_size - 1);
        }
    }
    if (d->seq_used >= PF_MAX_SEQUENCES)
        return NULL; /* counted by the caller */
    if ((d->seq_used + 1) * 2 > d->seq_size && seqs_grow(d))
        return NULL;
    pf_seq *s = tread_malloc(&d->p->alloc, sizeof *s);
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);
    s->id = id;
    s->actx.lookup = seq_lookup_fn;
    s->actx.seq = s;
    size_t j = mix(id) & (d->seq_size - 1);
    while (d->seqs[j])
        j = (j + 1) & (d->seq_size - 1);
    d->seqs[j] = s;
    d->seq_used++;
    return d->last_seq = s;
}

static void seq_free_store(pf_decoder *d, pf_seq *s)
{
    const tread_alloc *a = &d->p->alloc;
    for (pf_block *b = s->blocks, *n; b; b = n) {
        n = b->next;
        tread_free(a, b);
    }
    s->blocks = NULL;
    tread_free(a, s->tab);
    s->tab = NULL;
    memset(s->icache, 0, sizeof s->icache);
    s->tab_size = s->tab_used = 0;
    d->interned_total -= s->bytes;
    s->bytes = 0;
}

void pf_seq_clear(pf_decoder *d, pf_seq *s)
{
    seq_free_store(d, s);
    s->has_default_clock = s->has_default_track = 0;
    s->ss_defaults = NULL;
    s->ss_defaults_len = 0;
    for (int i = 0; i < 2; i++)
        s->default_extra[i].n = 0, s->default_extra[i].present = 0;
    s->valid = 1;
    d->n_clears++;
}

void pf_seqs_free(pf_decoder *d)
{
    for (size_t i = 0; i < d->seq_size; i++) {
        if (d->seqs[i]) {
            seq_free_store(d, d->seqs[i]);
            tread_free(&d->p->alloc, d->seqs[i]);
        }
    }
    tread_free(&d->p->alloc, d->seqs);
    d->seqs = NULL;
    d->seq_size = d->seq_used = 0;
    d->last_seq = NULL;
}

int pf_charge(pf_decoder *d, size_t n, uint64_t off)
{
    if (d->interned_total + n > d->p->max_interned_bytes) {
        tread__fail(d->p, TREAD_ERROR_LIMIT_MEMORY, off,
                    "interned data larger than the limit of %llu bytes "
                    "(TREAD_OPT_MAX_INTERNED_BYTES)",
                    (unsigned long long)d->p->max_interned_bytes);
        return -1;
    }
    d->interned_total += n;
    return 0;
}

static int nomem(pf_decoder *d, uint64_t off)
{
    tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
    return -1;
}

static int tab_grow(pf_decoder *d, pf_seq *s, uint64_t off)
{
    size_t n = s->tab_size ? s->tab_size * 2 : 16;
    if (pf_charge(d, (n - s->tab_size) * sizeof(pf_entry), off))
        return -1;
    s->bytes += (n - s->tab_size) * sizeof(pf_entry);
    pf_entry *t = tread_malloc(&d->p->alloc, n * sizeof *t);
    if (!t)
        return nomem(d, off);
    memset(t, 0, n * sizeof *t);
    for (size_t i = 0; i < s->tab_size; i++) {
        pf_entry *e = &s->tab[i];
        if (!e->field)
            continue;
        size_t j = mix(e->iid * 0x9e3779b97f4a7c15ULL + e->field) & (n - 1);
        while (t[j].field)
            j = (j + 1) & (n - 1);
        t[j] = *e;
    }
    tread_free(&d->p->alloc, s->tab);
    s->tab = t;
    memset(s->icache, 0, sizeof s->icache);
    s->tab_size = n;
    return 0;
}

/* The slot of (field, iid): found, or empty (field 0) where it would go. */
static pf_entry *slot(const pf_seq *s, uint32_t field, uint64_t iid)
{
    size_t j = mix(iid * 0x9e3779b97f4a7c15ULL + field) & (s->tab_size - 1);
    for (;;) {
        pf_entry *e = &s->tab[j];
        if (!e->field || (e->field == field && e->iid == iid))
            return e;
        j = (j + 1) & (s->tab_size - 1);
    }
}

const pf_entry *pf_seq_lookup(const pf_seq *s, uint32_t field, uint64_t iid)
{
    if (!s || !s->tab_size)
        return NULL;
    const pf_entry *e = slot(s, field, iid);
    return e->field ? e : NULL;
}

static pf_entry *insert(pf_decoder *d, pf_seq *s, uint32_t field, uint64_t iid, uint64_t off)
{
    if ((s->tab_used + 1) * 2 > s->tab_size && tab_grow(d, s, off))
        return NULL;
    pf_entry *e = slot(s, field, iid);
    if (!e->field) {
        e->field = field;
        e->iid = iid;
        e->msg = NULL;
        e->len = 0;
        e->str = NULL;
        e->str_len = 0;
        e->ival = 0;
        e->dval = 0;
        s->tab_used++;
    }
    return e;
}

static unsigned char *arena_put(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len,
                                uint64_t off)
{
    /* what is charged is the entries' bytes: the slack of the current
     * block (< PF_ARENA_BLOCK per sequence) is not */
    if (pf_charge(d, len, off))
        return NULL;
    s->bytes += len;
    pf_block *b = s->blocks;
    if (!b || b->cap - b->used < len) {
        size_t cap = len > PF_ARENA_BLOCK ? len : PF_ARENA_BLOCK;
        b = tread_malloc(&d->p->alloc, sizeof *b + cap);
        if (!b) {
            nomem(d, off);
            return NULL;
        }
        b->cap = cap;
        b->used = 0;
        /* a big entry gets a block of its own behind the current one, so
         * the current block's free space stays usable */
        if (len > PF_ARENA_BLOCK && s->blocks) {
            b->next = s->blocks->next;
            s->blocks->next = b;
        } else {
            b->next = s->blocks;
            s->blocks = b;
        }
    }
    unsigned char *dst = b->data + b->used;
    if (m && len)
        memcpy(dst, m, len);
    b->used += len;
    return dst;
}

int pf_seq_intern(pf_decoder *d, pf_seq *s, const unsigned char *msg, size_t len, uint64_t off)
{
    pf_reader r;
    pf_field f;
    int rc;
    pf_reader_init(&r, msg, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.wire != PF_WIRE_LEN)
            continue;
        /* every entry message has its iid in field 1 */
        pf_reader er;
        pf_field ef;
        uint64_t iid = 0;
        int have = 0, erc;
        const unsigned char *str = NULL;
        size_t str_len = 0;
        pf_reader_init(&er, f.data, f.len);
        while ((erc = pf_next(&er, &ef)) == PF_OK) {
            if (ef.num == 1 && ef.wire == PF_WIRE_VARINT) {
                iid = ef.v;
                have = 1;
            } else if (ef.num == 2 && ef.wire == PF_WIRE_LEN) {
                str = ef.data;
                str_len = ef.len;
            }
        }
        if (erc == PF_BAD || !have) {
            tread__warn(d->p, TREAD_WARN_BAD_RECORD, off,
                        "interned entry (field %u) %s: skipped", (unsigned)f.num,
                        erc == PF_BAD ? "does not decode" : "has no iid");
            continue;
        }
        unsigned char *copy = arena_put(d, s, f.data, f.len, off);
        if (!copy)
            return -1;
        /* the name again, NUL-terminated: events point at it directly */
        unsigned char *scopy = NULL;
        if (str) {
            scopy = arena_put(d, s, NULL, str_len + 1, off);
            if (!scopy)
                return -1;
            if (str_len)
                memcpy(scopy, str, str_len);
            scopy[str_len] = 0;
        }
        pf_entry *e = insert(d, s, f.num, iid, off);
        if (!e)
            return -1;
        if (e->msg)
            s->redefined++;
        e->msg = copy;
        e->len = (uint32_t)f.len;
        e->str = (const char *)scopy;
        e->str_len = str_len;
        d->n_interned_entries++;
    }
    if (rc == PF_BAD)
        tread__warn(d->p, TREAD_WARN_BAD_RECORD, off,
                    "interned_data does not decode: the rest of it is skipped");
    return 0;
}

pf_entry *pf_seq_counter_slot(pf_decoder *d, pf_seq *s, uint64_t track, uint64_t off)
{
    return insert(d, s, PF_NS_COUNTER_VALUE, track, off);
}

pf_entry *pf_seq_pseudo_slot(pf_decoder *d, pf_seq *s, uint32_t ns, uint64_t key, uint64_t off)
{
    return insert(d, s, ns, key, off);
}

int pf_seq_set_defaults(pf_decoder *d, pf_seq *s, const unsigned char *msg, size_t len,
                        uint64_t off)
{
    /* parsed once here: what events need of it is kept in the sequence */
    s->has_default_clock = s->has_default_track = 0;
    s->ss_defaults = NULL;
    s->ss_defaults_len = 0;
    for (int i = 0; i < 2; i++)
        s->default_extra[i].n = 0, s->default_extra[i].present = 0;
    pf_reader r;
    pf_field f;
    pf_reader_init(&r, msg, len);
    while (pf_next(&r, &f) == PF_OK) {
        if (f.num == 58 && f.wire == PF_WIRE_VARINT) {
            s->has_default_clock = 1;
            s->default_clock = (uint32_t)f.v;
        } else if (f.num == 11 && f.wire == PF_WIRE_LEN) {
            pf_reader tr;
            pf_field tf;
            pf_reader_init(&tr, f.data, f.len);
            while (pf_next(&tr, &tf) == PF_OK) {
                if (tf.num == 11 && tf.wire == PF_WIRE_VARINT) {
                    s->has_default_track = 1;
                    s->default_track = tf.v;
                } else if (tf.num == 31 || tf.num == 45) {
                    /* extra_counter_track_uuids, extra_double_counter_track_uuids */
                    if (pf_read_repeated(&tf, 0, &s->default_extra[tf.num == 45]))
                        tread__warn(d->p, TREAD_WARN_BAD_FIELD, off,
                                    "track_event_defaults extra counter uuids have the wrong "
                                    "type: ignored");
                }
            }
        } else if (f.num == 100 && f.wire == PF_WIRE_LEN) {
            /* stack_sample_defaults: kept whole, read by pf_profile.c
             * (in the arena: counted, freed with the interned state) */
            unsigned char *copy = arena_put(d, s, f.data, f.len, off);
            if (!copy)
                return -1;
            s->ss_defaults = copy;
            s->ss_defaults_len = f.len;
        }
    }
    return 0;
}

int pf_interned_str(const pf_entry *e, tread_str *out)
{
    if (!e->str)
        return 0;
    out->ptr = e->str;
    out->len = e->str_len;
    return 1;
}

/* An interned string (EventName, EventCategory, InternedString: the
 * string is field 2) on the sequence; a miss is warned and counted. */
int pf_lookup_str(pf_decoder *d, pf_seq *s, uint32_t field, uint64_t iid, tread_str *out,
                  uint64_t off, const char *what)
{
    const pf_entry *e = pf_seq_find(s, field, iid);
    if (e && pf_interned_str(e, out))
        return 0;
    d->n_interning_misses++;
    tread__warn(d->p, TREAD_WARN_UNRESOLVED_REF, off,
                "%s iid %llu is not interned on sequence %u", what, (unsigned long long)iid,
                (unsigned)(s ? s->id : 0));
    out->ptr = "";
    out->len = 0;
    return -1;
}
