/* V8 CPU profiles in legacy TrackEvents (pf_v8.h).
 *
 * What trace_processor does (TrackEventTokenizer::TokenizeLegacySampleEvent,
 * read through the search tool): for a legacy event of phase 'P', each
 * debug annotation named "data" with a legacy_json_value is a V8 profile
 * record; a startTime (us, CLOCK_MONOTONIC) moved to the trace clock starts
 * the profile of (id, pid), a chunk's cpuProfile.nodes define callsites
 * and its samples pair with timeDeltas added to the profile's running
 * time; pid and tid are the sequence's thread (its last ThreadDescriptor,
 * or TrackDescriptor with a thread, read with valid incremental state;
 * here whatever the state, pf_seq.h).
 *
 * Here the JSON decoder's expansion does the rest (json_profile.c), so a
 * profile gives the same events in a Perfetto trace as in a JSON one; the
 * Profile record itself is a METADATA event, a chunk's is replaced by its
 * frames and samples, as in JSON. Where trace_processor drops a chunk whose
 * samples and timeDeltas differ in length, the expansion pairs what it can
 * and warns (doc/formats/json.md). */
#include "perfetto/pf_v8.h"
#include "perfetto/pf_queue.h"
#include "json/json_profile.h"
#include "json/json_tokens.h"
#include "core/args.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define PF_V8_MONOTONIC 3          /* BuiltinClock MONOTONIC */
#define PF_INTERN_DEBUG_NAMES 3    /* InternedData.debug_annotation_names */

typedef struct pf_v8 {
    pf_decoder *d;
    json_profiles t;
    tread_buf tok;     /* the record's args: {"data": <its tokens>} */
    tread_buf str;     /* the template's name, category and id, NUL-ended */
    tread_event tmpl;
    int kind;          /* JP_REC_*; 0: nothing pending */
    int resume;        /* the expansion has begun: go on where it stopped */
    uint32_t seq;
    uint64_t n_records, n_not_json;
} pf_v8;

static int to_trace(void *ctx, int64_t ns, int64_t *out)
{
    pf_v8 *v = ctx;
    return pf_clocks_to_trace(v->d->clocks, v->seq, PF_V8_MONOTONIC, ns, out) == PF_CLOCK_OK ? 0
                                                                                        : -1;
}

static pf_v8 *v8_get(pf_decoder *d)
{
    if (d->v8)
        return d->v8;
    tread_parser *p = d->p;
    pf_v8 *v = tread_malloc(&p->alloc, sizeof *v);
    if (!v)
        return NULL;
    memset(v, 0, sizeof *v);
    v->d = d;
    json_profiles_init(&v->t, p);
    v->t.map_start = to_trace;
    v->t.map_ctx = v;
    /* (a number token costs its text plus 6 bytes: a sample "1," is 7) */
    size_t lim = p->max_event_bytes > SIZE_MAX / 8 ? SIZE_MAX : p->max_event_bytes * 8;
    tread_buf_init(&v->tok, &p->alloc, lim);
    tread_buf_init(&v->str, &p->alloc, 2 * p->max_string_bytes + 64);
    d->v8 = v;
    return v;
}

/* The record's "data": the first debug annotation so named with a
 * legacy_json_value. 1 with *json, else 0. */
static int find_data(pf_decoder *d, pf_seq *s, const unsigned char *te, size_t len, uint64_t off,
                     tread_str *json)
{
    pf_reader r, ar;
    pf_field f, af;
    pf_reader_init(&r, te, len);
    while (pf_next(&r, &f) == PF_OK) {
        if (f.num != 4 || f.wire != PF_WIRE_LEN)
            continue;
        tread_str name = {NULL, 0}, val = {NULL, 0};
        uint64_t iid = 0;
        int has_iid = 0;
        pf_reader_init(&ar, f.data, f.len);
        while (pf_next(&ar, &af) == PF_OK) {
            if (af.num == 1 && af.wire == PF_WIRE_VARINT)
                has_iid = 1, iid = af.v;
            else if (af.num == 10 && af.wire == PF_WIRE_LEN)
                name = (tread_str){(const char *)af.data, af.len};
            else if (af.num == 9 && af.wire == PF_WIRE_LEN)
                val = (tread_str){(const char *)af.data, af.len};
        }
        if (!val.ptr)
            continue;
        if (!name.ptr && has_iid && s &&
            pf_lookup_str(d, s, PF_INTERN_DEBUG_NAMES, iid, &name, off, "debug annotation name"))
            continue;
        if (name.len == 4 && memcmp(name.ptr, "data", 4) == 0) {
            *json = val;
            return 1;
        }
    }
    return 0;
}

/* Appends s NUL-ended to b; its offset in *at. */
static int keep(tread_buf *b, const char *s, size_t n, size_t *at)
{
    *at = b->len;
    return tread_buf_append(b, s, n) || tread_buf_append(b, "", 1);
}

int pf_v8_take(pf_decoder *d, pf_seq *s, pf_qitem *q, const unsigned char *te, size_t te_len,
               uint64_t off)
{
    const tread_event *ev = &q->ev;
    int kind = json_profile_kind((const unsigned char *)ev->name.ptr, ev->name.len, ev->phase,
                                 NULL);
    if (kind != JP_REC_PROFILE && kind != JP_REC_CHUNK)
        return 0;
    tread_str json;
    if (!find_data(d, s, te, te_len, off, &json))
        return 0;
    pf_v8 *v = v8_get(d);
    if (!v)
        goto nomem;
    tread_buf *tok = &v->tok;
    tok->len = 0;
    if (args_put_tok(tok, TOK_DICT_BEGIN) || args_put_str(tok, TOK_KEY, "data", 4))
        goto nomem;
    const char *why = NULL;
    size_t at = 0;
    int rc = json_text_tokens(&d->p->alloc, (const unsigned char *)json.ptr, json.len,
                              d->p->max_depth, tok, &why, &at);
    if (rc == -2)
        goto nomem;
    if (rc == 0 && args_put_tok(tok, TOK_DICT_END))
        rc = -1, why = "its tokens larger than their limit", at = json.len;
    if (rc) {
        v->n_not_json++;
        tread__warn(d->p, TREAD_WARN_BAD_FIELD, off,
                    "%.*s \"data\" is %s (at byte %zu of it): delivered as it is",
                    (int)ev->name.len, ev->name.ptr, why, at);
        return 0;
    }

    /* the template: the event, on the sequence's thread, with its own
     * copies of what it names (the packet may move if a stop pauses it) */
    tread_buf *b = &v->str;
    b->len = 0;
    size_t name_at, cat_at = 0, id_at = 0;
    int has_id_text = 0;
    char idt[24];
    if (keep(b, ev->name.ptr, ev->name.len, &name_at) ||
        (ev->cat.ptr && keep(b, ev->cat.ptr, ev->cat.len, &cat_at)))
        goto nomem;
    if (ev->flags & TREAD_HAS_ID_NUM) {
        int n = snprintf(idt, sizeof idt, "0x%" PRIx64, ev->id_num);
        if (keep(b, idt, (size_t)n, &id_at))
            goto nomem;
        has_id_text = 1;
    } else if ((ev->flags & TREAD_HAS_ID) && ev->id.ptr) {
        if (keep(b, ev->id.ptr, ev->id.len, &id_at))
            goto nomem;
        has_id_text = 1;
    }
    tread_event *t = &v->tmpl;
    memset(t, 0, sizeof *t);
    t->kind = TREAD_EVENT_SAMPLE; /* (the expansion makes a Profile METADATA) */
    t->format = ev->format;
    t->phase = 'P';
    t->flags = ev->flags & (TREAD_HAS_TS | TREAD_HAS_SEQ | TREAD_HAS_ID | TREAD_HAS_ID_NUM |
                            TREAD_ID_LOCAL | TREAD_ID_GLOBAL);
    t->ts = ev->ts;
    t->seq_id = ev->seq_id;
    t->id_num = ev->id_num;
    t->offset = ev->offset;
    t->raw = ev->raw;
    if (s && s->has_v8_thread) {
        t->flags |= TREAD_HAS_PID | TREAD_HAS_TID;
        t->pid = s->v8_pid;
        t->tid = s->v8_tid;
    }
    t->name = (tread_str){(const char *)b->data + name_at, ev->name.len};
    if (ev->cat.ptr)
        t->cat = (tread_str){(const char *)b->data + cat_at, ev->cat.len};
    if (has_id_text)
        t->id = (tread_str){(const char *)b->data + id_at, strlen((const char *)b->data + id_at)};
    t->args = (tread_args){.data = tok->data + 1, .len = tok->len - 2,
                           .encoding = TREAD_ARGS_TOKENS};
    v->kind = kind;
    v->resume = 0;
    v->seq = ev->seq_id;
    v->n_records++;
    /* (the start moves to the trace clock as the packet is read, so that
     * its raw hook says the trace clock is fixed, as after the packet's
     * own timestamp) */
    if (kind == JP_REC_PROFILE)
        pf_clocks_fix(d->clocks);
    return 1;
nomem:
    tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
    return -1;
}

int pf_v8_pending(const pf_decoder *d)
{
    return d->v8 && d->v8->kind;
}

tread_status pf_v8_continue(pf_decoder *d)
{
    pf_v8 *v = d->v8;
    if (!v || !v->kind)
        return TREAD_STATUS_OK;
    jp_host h = {d->p, &v->t, &v->tok, 1};
    int stopped = json_profile_expand(&h, &v->tmpl, v->kind, v->resume);
    if (d->p->state == P_ERROR) {
        v->kind = 0;
        return TREAD_STATUS_ERROR;
    }
    if (stopped) {
        v->resume = 1;
        return TREAD_STATUS_PAUSED;
    }
    v->kind = 0;
    return TREAD_STATUS_OK;
}

void pf_v8_free(pf_decoder *d)
{
    pf_v8 *v = d->v8;
    if (!v)
        return;
    json_profiles_free(&v->t);
    tread_buf_free(&v->tok);
    tread_buf_free(&v->str);
    tread_free(&d->p->alloc, v);
    d->v8 = NULL;
}

size_t pf_v8_counters(const pf_decoder *d, tread_counter *out, size_t max, size_t n)
{
    const pf_v8 *v = d->v8;
    n = tread__counter_put(out, max, n, "v8_profile_records", v ? v->n_records : 0);
    n = tread__counter_put(out, max, n, "v8_profile_data_not_json", v ? v->n_not_json : 0);
    return n;
}
