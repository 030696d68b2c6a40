/* ndjson_fields: see ndjson_fields.h. */
#include "ndjson_fields.h"

#include <string.h>

#include "json_write.h"

enum {
    F_KIND, F_FORMAT, F_TS, F_DUR, F_END, F_PID, F_TID, F_NAME, F_CAT, F_ID, F_PH,
    F_TTS, F_TDUR, F_CPU, F_SERIES, F_VALUE, F_META, F_META_STR, F_ARGS, F_COUNT
};

static const char *const field_names[F_COUNT] = {
    "kind", "format", "ts_ns", "dur_ns", "end_ns", "pid", "tid", "name", "cat", "id", "ph",
    "tts_ns", "tdur_ns", "cpu", "series", "value", "meta", "meta_str", "args"};

const char *ndjson_fields_names(void)
{
    return "kind,format,ts_ns,dur_ns,end_ns,pid,tid,name,cat,id,ph,tts_ns,tdur_ns,cpu,"
           "series,value,meta,meta_str,args";
}

int ndjson_fields_parse(ndjson_fields *f, const char *list, const char **bad, size_t *bad_len)
{
    f->n = 0;
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int found = -1;
        for (int i = 0; i < F_COUNT; i++)
            if (strlen(field_names[i]) == len && memcmp(field_names[i], p, len) == 0)
                found = i;
        if (found < 0 || f->n == NDJSON_MAX_FIELDS) {
            *bad = p;
            *bad_len = len;
            return -1;
        }
        f->which[f->n++] = (unsigned char)found;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

static void i64_or_null(out_buf *o, int has, int64_t v)
{
    if (has)
        json_write_i64(o, v);
    else
        out_buf_write(o, "null", 4);
}

static void str_or_null(out_buf *o, tread_str s)
{
    if (s.ptr)
        json_write_string(o, s.ptr, s.len);
    else
        out_buf_write(o, "null", 4);
}

int ndjson_write_fields(ndjson_writer *w, const ndjson_fields *f, const tread_event *ev)
{
    out_buf *o = w->out;
    uint32_t fl = ev->flags;
    w->nomem = 0;
    out_buf_putc(o, '{');
    for (int i = 0; i < f->n; i++) {
        int k = f->which[i];
        if (i)
            out_buf_putc(o, ',');
        json_write_cstring(o, field_names[k]);
        out_buf_putc(o, ':');
        switch (k) {
        case F_KIND: json_write_cstring(o, tread_event_kind_name(ev->kind)); break;
        case F_FORMAT: json_write_cstring(o, tread_format_name(ev->format)); break;
        case F_TS: i64_or_null(o, fl & TREAD_HAS_TS, ev->ts); break;
        case F_DUR: i64_or_null(o, fl & TREAD_HAS_DUR, ev->dur); break;
        case F_END: {
            int has = (fl & TREAD_HAS_TS) && (fl & TREAD_HAS_DUR) && ev->dur >= 0 &&
                      !(ev->ts > 0 && ev->dur > INT64_MAX - ev->ts);
            i64_or_null(o, has, has ? ev->ts + ev->dur : 0);
            break;
        }
        case F_PID: i64_or_null(o, fl & TREAD_HAS_PID, ev->pid); break;
        case F_TID: i64_or_null(o, fl & TREAD_HAS_TID, ev->tid); break;
        case F_NAME: str_or_null(o, ev->name); break;
        case F_CAT: str_or_null(o, ev->cat); break;
        case F_ID:
            if (ev->id.ptr) {
                json_write_string(o, ev->id.ptr, ev->id.len);
            } else if (fl & TREAD_HAS_ID_NUM) {
                out_buf_putc(o, '"');
                json_write_u64(o, ev->id_num);
                out_buf_putc(o, '"');
            } else {
                out_buf_write(o, "null", 4);
            }
            break;
        case F_PH:
            if (ev->phase > 0 && ev->phase < 256) {
                char ph = (char)ev->phase;
                json_write_string(o, &ph, 1);
            } else {
                out_buf_write(o, "null", 4);
            }
            break;
        case F_TTS: i64_or_null(o, fl & TREAD_HAS_TTS, ev->tts); break;
        case F_TDUR: i64_or_null(o, fl & TREAD_HAS_TDUR, ev->tdur); break;
        case F_CPU: i64_or_null(o, fl & TREAD_HAS_CPU, ev->cpu); break;
        case F_SERIES: str_or_null(o, ev->series); break;
        case F_VALUE:
            if (fl & TREAD_HAS_VALUE)
                json_write_double(o, ev->value, ev->value_text.ptr, ev->value_text.len);
            else
                out_buf_write(o, "null", 4);
            break;
        case F_META:
            if (ev->meta != TREAD_META_NONE)
                json_write_cstring(o, tread_meta_name(ev->meta));
            else
                out_buf_write(o, "null", 4);
            break;
        case F_META_STR: str_or_null(o, ev->meta_str); break;
        case F_ARGS: ndjson_write_args(w, &ev->args, 1); break;
        default: break;
        }
    }
    out_buf_write(o, "}\n", 2);
    return w->nomem ? -1 : 0;
}
