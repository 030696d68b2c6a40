/* ChromeEventBundle (TracePacket.chrome_events): metadata entries become
 * TREAD_META_TRACE events, ChromeTraceEvents (with the bundle's string
 * table) become events, and each USER_TRACE legacy_json_trace is read by a
 * nested JSON decoder as "[" data "]": its events reach the same
 * callbacks, and a stop inside it resumes inside it. */
#include "perfetto/pf_chrome.h"
#include "perfetto/pf_queue.h"
#include "core/phase.h"

#include <string.h>

extern const tread_decoder_ops tread__json_decoder;

#define PF_CHROME_MAX_STRING_INDEX 65536 /* string table indices kept */

/* The string table of a bundle: index -> string, in a temporary array. */
static int string_table(pf_decoder *d, const unsigned char *m, size_t len, tread_buf *tab)
{
    pf_reader r, er;
    pf_field f, ef;
    pf_reader_init(&r, m, len);
    while (pf_next(&r, &f) == PF_OK) {
        if (f.num != 3 || f.wire != PF_WIRE_LEN)
            continue;
        tread_str v = {NULL, 0};
        uint64_t idx = 0;
        pf_reader_init(&er, f.data, f.len);
        while (pf_next(&er, &ef) == PF_OK) {
            if (ef.num == 1 && ef.wire == PF_WIRE_LEN)
                v.ptr = (const char *)ef.data, v.len = ef.len;
            else if (ef.num == 2 && ef.wire == PF_WIRE_VARINT)
                idx = ef.v;
        }
        if (idx >= PF_CHROME_MAX_STRING_INDEX || !v.ptr) {
            tread__warn(d->p, TREAD_WARN_BAD_RECORD, d->chrome_off,
                        "chrome string table entry %llu unusable: skipped",
                        (unsigned long long)idx);
            continue;
        }
        size_t need = (idx + 1) * sizeof(tread_str);
        if (tab->len < need) {
            if (tread_buf_reserve(tab, need - tab->len))
                return -1;
            memset(tab->data + tab->len, 0, need - tab->len);
            tab->len = need;
        }
        memcpy(tab->data + idx * sizeof(tread_str), &v, sizeof v);
    }
    return 0;
}

/* idx is the input's: (idx + 1) * size wrapped for idx >= 2^60 - 1 and
 * read before the table or nowhere (fuzz_split_perfetto) */
static tread_str table_get(const tread_buf *tab, uint64_t idx)
{
    tread_str s = {NULL, 0};
    if (idx < tab->len / sizeof(tread_str))
        memcpy(&s, tab->data + idx * sizeof(tread_str), sizeof s);
    return s;
}

static int metadata(pf_decoder *d, const unsigned char *m, size_t len, const pf_base *base)
{
    pf_reader r;
    pf_field f;
    tread_str name = {NULL, 0}, str = {NULL, 0};
    int has_num = 0;
    int64_t num = 0;
    pf_reader_init(&r, m, len);
    while (pf_next(&r, &f) == PF_OK) {
        if (f.wire == PF_WIRE_LEN && f.num == 1)
            name.ptr = (const char *)f.data, name.len = f.len;
        else if (f.wire == PF_WIRE_LEN && (f.num == 2 || f.num == 5))
            str.ptr = (const char *)f.data, str.len = f.len;
        else if (f.wire == PF_WIRE_VARINT && (f.num == 3 || f.num == 4))
            has_num = 1, num = (int64_t)f.v;
    }
    pf_qitem *q = pf_queue_event(d, base);
    if (!q)
        return -1;
    q->ev.kind = TREAD_EVENT_METADATA;
    q->ev.phase = 'M';
    q->ev.meta = TREAD_META_TRACE;
    q->ev.name = name;
    q->ev.meta_str = str;
    if (has_num) {
        q->ev.flags |= TREAD_HAS_META_NUM;
        q->ev.meta_num = num;
    }
    return 0;
}

/* A microsecond field as ns, or warned when out of range. */
static void us_field(pf_decoder *d, uint64_t v, int64_t *dst, uint32_t flag, tread_event *ev,
                     const pf_base *base)
{
    if (pf_us_to_ns((int64_t)v, dst) == 0) {
        ev->flags |= flag;
        if (flag == TREAD_HAS_TS) /* the event's own time replaces a raw packet time */
            ev->flags &= ~(uint32_t)TREAD_HAS_RAW_TS;
        return;
    }
    tread__warn(d->p, TREAD_WARN_NUMBER_RANGE, base->offset,
                "chrome trace event time of %lld us is out of the int64 ns range: ignored",
                (long long)v);
}

/* A ChromeTraceEvent (the pre-TrackEvent protobuf form of a JSON event). */
static int trace_event(pf_decoder *d, const unsigned char *m, size_t len, const tread_buf *tab,
                       const pf_base *base)
{
    pf_reader r;
    pf_field f;
    int rc;
    pf_qitem *q = pf_queue_event(d, base);
    if (!q)
        return -1;
    tread_event *ev = &q->ev;
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.wire == PF_WIRE_LEN) {
            tread_str s = {(const char *)f.data, f.len};
            if (f.num == 1)
                ev->name = s;
            else if (f.num == 10)
                ev->cat = s;
            else if (f.num == 7)
                ev->id_scope = s;
            continue;
        }
        if (f.wire != PF_WIRE_VARINT)
            continue;
        switch (f.num) {
        case 2: us_field(d, f.v, &ev->ts, TREAD_HAS_TS, ev, base); break;
        case 3: ev->phase = (int)(int32_t)f.v; break;
        case 4: ev->flags |= TREAD_HAS_TID, ev->tid = (int64_t)(int32_t)f.v; break;
        case 5: us_field(d, f.v, &ev->dur, TREAD_HAS_DUR, ev, base); break;
        case 6: us_field(d, f.v, &ev->tdur, TREAD_HAS_TDUR, ev, base); break;
        case 8:
            ev->flags |= TREAD_HAS_ID | TREAD_HAS_ID_NUM;
            ev->id_num = f.v;
            q->fmt_id = 1;
            break;
        case 11: ev->flags |= TREAD_HAS_PID, ev->pid = (int64_t)(int32_t)f.v; break;
        case 12: us_field(d, f.v, &ev->tts, TREAD_HAS_TTS, ev, base); break;
        case 13: q->fmt_bind = 1, q->bind_num = f.v; break;
        case 15: ev->name = table_get(tab, f.v); break;
        case 16: ev->cat = table_get(tab, f.v); break;
        }
    }
    if (!(ev->flags & TREAD_HAS_TID))
        ev->tid = ev->pid;
    if (rc == PF_BAD) {
        d->q_len--; /* not delivered */
        tread__warn(d->p, TREAD_WARN_BAD_RECORD, base->offset,
                    "chrome trace event does not decode: skipped");
        return 0;
    }
    ev->kind = tread__kind_of_phase(ev->phase);
    if (ev->kind == TREAD_EVENT_METADATA)
        ev->meta = TREAD_META_OTHER; /* every METADATA event says what it sets */
    if (ev->kind == TREAD_EVENT_UNKNOWN)
        tread__warn(d->p, TREAD_WARN_UNKNOWN_PHASE, base->offset,
                    "chrome trace event phase %d: delivered as an unknown event", ev->phase);
    d->n_chrome_events++;
    return 0;
}

int pf_chrome_bundle(pf_decoder *d, const unsigned char *m, size_t len, const pf_base *base)
{
    pf_reader r;
    pf_field f;
    int rc;
    tread_buf tab;
    tread_buf_init(&tab, &d->p->alloc, (size_t)PF_CHROME_MAX_STRING_INDEX * sizeof(tread_str));
    d->chrome_off = base->offset;
    int have_table = 0, ret = 0;
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.wire != PF_WIRE_LEN)
            continue;
        if (f.num == 1) {
            if (!have_table) {
                have_table = 1;
                if (string_table(d, m, len, &tab)) {
                    tread__fail(d->p, TREAD_ERROR_NOMEM, base->offset, "out of memory");
                    ret = -1;
                    break;
                }
            }
            if (trace_event(d, f.data, f.len, &tab, base)) {
                ret = -1;
                break;
            }
        } else if (f.num == 2) {
            if (metadata(d, f.data, f.len, base)) {
                ret = -1;
                break;
            }
        }
    }
    tread_buf_free(&tab);
    if (ret)
        return ret;
    if (rc == PF_BAD) {
        tread__warn(d->p, TREAD_WARN_BAD_RECORD, base->offset,
                    "chrome_events does not decode: the rest of it is skipped");
        len = (size_t)(r.p - m);
    }
    /* legacy JSON: after the queued events, by pf_chrome_continue */
    d->chrome_bundle = m;
    d->chrome_bundle_len = len;
    d->chrome_active = 1;
    return 0;
}

/* The next USER_TRACE legacy_json_trace of the bundle, or 0. */
static int next_json(pf_decoder *d)
{
    pf_reader r, jr;
    pf_field f, jf;
    pf_reader_init(&r, d->chrome_bundle, d->chrome_bundle_len);
    while (pf_next(&r, &f) == PF_OK) {
        if (f.num != 5 || f.wire != PF_WIRE_LEN)
            continue;
        uint64_t type = 0;
        const unsigned char *data = NULL;
        size_t dlen = 0;
        pf_reader_init(&jr, f.data, f.len);
        while (pf_next(&jr, &jf) == PF_OK) {
            if (jf.num == 1 && jf.wire == PF_WIRE_VARINT)
                type = jf.v;
            else if (jf.num == 2 && jf.wire == PF_WIRE_LEN)
                data = jf.data, dlen = jf.len;
        }
        /* move past this field for the next call */
        d->chrome_bundle_len -= (size_t)(r.p - d->chrome_bundle);
        d->chrome_bundle = r.p;
        if (type != 0) {
            tread__warn(d->p, TREAD_WARN_UNKNOWN_RECORD, d->chrome_off,
                        "legacy_json_trace of type %llu (not JSON events): skipped",
                        (unsigned long long)type);
            return next_json(d);
        }
        if (!data)
            return next_json(d);
        /* Chrome writes the array's elements, sometimes after a comma */
        while (dlen && (*data == ' ' || *data == '\n' || *data == '\r' || *data == '\t'))
            data++, dlen--;
        if (dlen && *data == ',')
            data++, dlen--;
        d->chrome_json = data;
        d->chrome_json_len = dlen;
        return 1;
    }
    d->chrome_bundle_len = 0;
    return 0;
}

tread_status pf_chrome_continue(pf_decoder *d)
{
    tread_parser *p = d->p;
    const tread_decoder_ops *ops = &tread__json_decoder;
    while (d->chrome_active) {
        if (!d->chrome_dec) {
            if (!next_json(d)) {
                d->chrome_active = 0;
                break;
            }
            d->chrome_dec = ops->create(p);
            if (!d->chrome_dec)
                return tread__fail(p, TREAD_ERROR_NOMEM, d->chrome_off, "out of memory");
            d->chrome_stage = 0;
            d->chrome_json_pos = 0;
            d->chrome_fed = 0;
            d->n_chrome_json++;
        }
        int saved_state = p->state;
        uint64_t saved_offset = p->dec_offset;
        tread_status st = TREAD_STATUS_OK;
        size_t c = 0;
        if (d->chrome_stage < 3 && d->chrome_json_pos == (size_t)-1) {
            /* resuming inside the record the nested decoder stopped in */
            d->chrome_json_pos = d->chrome_json_resume_pos;
            p->dec_offset = d->chrome_off + d->chrome_fed;
            st = ops->feed(d->chrome_dec, NULL, 0, &c);
            p->dec_offset = saved_offset;
        }
        if (st == TREAD_STATUS_OK && d->chrome_stage < 3) {
            const unsigned char *piece;
            size_t plen;
            if (d->chrome_stage == 0)
                piece = (const unsigned char *)"[", plen = 1;
            else if (d->chrome_stage == 1)
                piece = d->chrome_json, plen = d->chrome_json_len;
            else
                piece = (const unsigned char *)"]", plen = 1;
            c = 0;
            /* offsets inside the embedded JSON: the packet's offset plus the
             * offset in "[" data "]", whatever the chunking */
            p->dec_offset = d->chrome_off + d->chrome_fed;
            st = ops->feed(d->chrome_dec, piece + d->chrome_json_pos, plen - d->chrome_json_pos,
                           &c);
            p->dec_offset = saved_offset;
            d->chrome_fed += c;
            if (st == TREAD_STATUS_OK) {
                d->chrome_stage++;
                d->chrome_json_pos = 0;
            } else if (st == TREAD_STATUS_PAUSED) {
                d->chrome_json_resume_pos = d->chrome_json_pos + c;
                d->chrome_json_pos = (size_t)-1;
            }
        } else if (st == TREAD_STATUS_OK) {
            p->dec_offset = d->chrome_off + d->chrome_fed;
            st = ops->finish(d->chrome_dec);
            p->dec_offset = saved_offset;
            if (st == TREAD_STATUS_OK) {
                ops->destroy(d->chrome_dec);
                d->chrome_dec = NULL;
            }
        }
        if (st == TREAD_STATUS_PAUSED)
            return st;
        if (st == TREAD_STATUS_ERROR) {
            if (p->err == TREAD_ERROR_NOMEM)
                return st;
            /* a damaged embedded JSON trace does not end the Perfetto one */
            char msg[sizeof p->err_msg];
            memcpy(msg, p->err_msg, sizeof msg);
            p->state = saved_state;
            p->err = TREAD_ERROR_NONE;
            p->err_msg[0] = 0;
            tread__warn(p, TREAD_WARN_BAD_RECORD, d->chrome_off,
                        "embedded legacy JSON trace: %s: the rest of it is skipped", msg);
            ops->destroy(d->chrome_dec);
            d->chrome_dec = NULL;
        }
    }
    return TREAD_STATUS_OK;
}

void pf_chrome_free(pf_decoder *d)
{
    if (d->chrome_dec)
        tread__json_decoder.destroy(d->chrome_dec);
    d->chrome_dec = NULL;
    d->chrome_active = 0;
}
