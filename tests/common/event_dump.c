#include "event_dump.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dump_init(dump *d) { memset(d, 0, sizeof *d); }

void dump_free(dump *d)
{
    free(d->text);
    memset(d, 0, sizeof *d);
}

void dump_printf(dump *d, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        size_t room = d->cap - d->len;
        va_start(ap, fmt);
        int n = vsnprintf(d->text ? d->text + d->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if ((size_t)n < room) {
            d->len += (size_t)n;
            return;
        }
        size_t cap = d->cap ? d->cap * 2 : 4096;
        while (cap - d->len <= (size_t)n)
            cap *= 2;
        char *t = realloc(d->text, cap);
        if (!t)
            abort();
        d->text = t;
        d->cap = cap;
    }
}

static void dump_str(dump *d, const char *label, tread_str s)
{
    if (!s.ptr)
        return;
    dump_printf(d, " %s=\"", label);
    for (size_t i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7f)
            dump_printf(d, "\\x%02x", c);
        else
            dump_printf(d, "%c", c);
    }
    dump_printf(d, "\"");
}

void dump_args(dump *d, const tread_args *a)
{
    tread_args_iter it;
    tread_arg v;
    tread_args_iter_init(&it, a);
    while (tread_args_next(&it, &v)) {
        dump_printf(d, " [%d", v.depth);
        dump_str(d, "k", v.key);
        dump_printf(d, " %s", tread_arg_type_name(v.type));
        switch (v.type) {
        case TREAD_ARG_BOOL: dump_printf(d, "=%d", v.v.b); break;
        case TREAD_ARG_INT: dump_printf(d, "=%" PRId64, v.v.i); break;
        case TREAD_ARG_UINT:
        case TREAD_ARG_POINTER:
        case TREAD_ARG_KOID: dump_printf(d, "=%" PRIu64, v.v.u); break;
        case TREAD_ARG_DOUBLE: dump_printf(d, "=%.17g", v.v.d); break;
        case TREAD_ARG_STRING:
        case TREAD_ARG_BYTES: dump_str(d, "s", v.v.s); break;
        default: break;
        }
        dump_str(d, "text", v.text);
        dump_printf(d, "]");
    }
    if (tread_args_iter_failed(&it))
        dump_printf(d, " args-malformed");
}

void dump_event(dump *d, const tread_event *ev)
{
    dump_printf(d, "%s fmt=%s ph=%d fl=%x", tread_event_kind_name(ev->kind),
                tread_format_name(ev->format), ev->phase, ev->flags);
    if (ev->flags & TREAD_HAS_TS) dump_printf(d, " ts=%" PRId64, ev->ts);
    if (ev->flags & TREAD_HAS_DUR) dump_printf(d, " dur=%" PRId64, ev->dur);
    if (ev->flags & TREAD_HAS_TTS) dump_printf(d, " tts=%" PRId64, ev->tts);
    if (ev->flags & TREAD_HAS_TDUR) dump_printf(d, " tdur=%" PRId64, ev->tdur);
    dump_printf(d, " pid=%" PRId64 " tid=%" PRId64, ev->pid, ev->tid);
    if (ev->flags & TREAD_HAS_CPU) dump_printf(d, " cpu=%" PRId64, ev->cpu);
    dump_str(d, "pid_str", ev->pid_str);
    dump_str(d, "tid_str", ev->tid_str);
    dump_str(d, "name", ev->name);
    dump_str(d, "cat", ev->cat);
    dump_str(d, "id", ev->id);
    if (ev->flags & TREAD_HAS_ID_NUM) dump_printf(d, " id_num=%" PRIu64, ev->id_num);
    dump_str(d, "scope", ev->id_scope);
    dump_str(d, "bind_id", ev->bind_id);
    dump_str(d, "cname", ev->cname);
    if (ev->scope) dump_printf(d, " s=%d", (int)ev->scope);
    dump_str(d, "sf", ev->sf);
    dump_str(d, "esf", ev->esf);
    dump_str(d, "parent", ev->parent);
    if (ev->flags & TREAD_HAS_TIDELTA) dump_printf(d, " tidelta=%" PRId64, ev->tidelta);
    if (ev->flags & TREAD_HAS_TICOUNT) dump_printf(d, " ticount=%" PRId64, ev->ticount);
    dump_str(d, "series", ev->series);
    if (ev->flags & TREAD_HAS_VALUE) dump_printf(d, " value=%.17g", ev->value);
    dump_str(d, "value_text", ev->value_text);
    if (ev->meta) dump_printf(d, " meta=%s", tread_meta_name(ev->meta));
    dump_str(d, "meta_str", ev->meta_str);
    if (ev->flags & TREAD_HAS_META_NUM) dump_printf(d, " meta_num=%" PRId64, ev->meta_num);
    if (ev->flags & TREAD_HAS_TRACK)
        dump_printf(d, " track=%" PRIu64 "/%s", ev->track_uuid, tread_track_kind_name(ev->track_kind));
    if (ev->flags & TREAD_HAS_SEQ) dump_printf(d, " seq=%" PRIu32, ev->seq_id);
    if (ev->flags & TREAD_HAS_RAW_TS)
        dump_printf(d, " raw_ts=%" PRId64 "@%" PRIu32, ev->raw_ts, ev->clock_id);
    if (ev->flags & TREAD_VALUE_IS_INT) dump_printf(d, " value_int=%" PRId64, ev->value_int);
    for (size_t i = 0; i < ev->flow_ids.n; i++) dump_printf(d, " flow=%" PRIu64, ev->flow_ids.v[i]);
    for (size_t i = 0; i < ev->terminating_flow_ids.n; i++)
        dump_printf(d, " flow_end=%" PRIu64, ev->terminating_flow_ids.v[i]);
    if (ev->flags & TREAD_HAS_PROVIDER) {
        dump_printf(d, " provider=%" PRIu32, ev->provider_id);
        dump_str(d, "provider_name", ev->provider_name);
    }
    dump_printf(d, " off=%" PRIu64, ev->offset);
    if (ev->stack.data) { dump_printf(d, " stack:"); dump_args(d, &ev->stack); }
    if (ev->estack.data) { dump_printf(d, " estack:"); dump_args(d, &ev->estack); }
    dump_printf(d, " args:");
    dump_args(d, &ev->args);
    dump_printf(d, "\n");
}

/* Blob pieces: where pieces break may depend on how the input was
 * chunked, so one line per blob, with a checksum of all its bytes; pieces
 * that do not follow each other are a line of their own. */
static int on_blob(void *user, const tread_blob *b)
{
    dump *d = user;
    if (b->piece_offset == 0) {
        d->blob_hash = 1469598103934665603ull;
        d->blob_bytes = 0;
    }
    if (b->piece_offset != d->blob_bytes)
        dump_printf(d, "blob-gap at=%" PRIu64 " expected=%" PRIu64 "\n", b->piece_offset, d->blob_bytes);
    for (size_t i = 0; i < b->len; i++)
        d->blob_hash = (d->blob_hash ^ b->data[i]) * 1099511628211ull;
    d->blob_bytes = b->piece_offset + b->len;
    if (!b->last)
        return 0;
    dump_printf(d, "blob type=%" PRIu32 " total=%" PRIu64 " got=%" PRIu64 " off=%" PRIu64
                " fnv=%016" PRIx64, b->blob_type, b->total_size, d->blob_bytes, b->offset, d->blob_hash);
    dump_str(d, "name", b->name);
    dump_printf(d, "\n");
    return 0;
}

static int on_event(void *user, const tread_event *ev)
{
    dump *d = user;
    dump_event(d, ev);
    d->events++;
    if (d->stop_every && d->events % d->stop_every == 0) {
        d->stops++;
        return 1;
    }
    return 0;
}

static int on_warning(void *user, const tread_warning *w)
{
    dump *d = user;
    d->warnings++;
    dump_printf(d, "warning %s off=%" PRIu64 " %s\n", tread_warning_name(w->kind), w->offset,
                w->message);
    return 0;
}

static int on_raw(void *user, const tread_json_raw *raw)
{
    dump *d = user;
    dump_printf(d, "raw section=%d off=%" PRIu64 " len=%" PRIu64, (int)raw->section, raw->offset,
                raw->length);
    dump_str(d, "key", raw->key);
    dump_printf(d, " fields:");
    dump_args(d, &raw->fields);
    dump_printf(d, "\n");
    return 0;
}

const tread_callbacks dump_callbacks = {.event = on_event, .warning = on_warning,
                                        .json_raw = on_raw, .blob = on_blob};

tread_status dump_parse(dump *d, const void *buf, size_t len, size_t chunk, const int64_t *opts)
{
    return dump_parse_alloc(d, buf, len, chunk, opts, NULL);
}

static tread_parser *dump_parser(dump *d, const int64_t *opts, const tread_allocator *hooks)
{
    tread_parser *p = tread_parser_create(hooks);
    if (!p)
        abort();
    for (; opts && opts[0]; opts += 2)
        if (tread_config(p, (tread_option)opts[0], opts[1]) != 0)
            dump_printf(d, "config %d rejected\n", (int)opts[0]);
    tread_set_callbacks(p, &dump_callbacks, d);
    return p;
}

/* Resumes while paused; 1 when it gave up (d->max_stops). A pause that
 * no callback asked for since the call that returned it (d->stops still
 * `before`) breaks the API's promise: it goes into the dump. */
static int dump_resume(dump *d, tread_parser *p, tread_status *st, size_t before)
{
    int runaway = 0;
    for (;;) {
        if (*st == TREAD_STATUS_PAUSED && d->stops == before)
            dump_printf(d, "PAUSED with no callback asking to stop\n");
        if (*st != TREAD_STATUS_PAUSED || (runaway = d->max_stops && d->stops > d->max_stops))
            return runaway;
        before = d->stops;
        *st = tread_resume(p);
    }
}

/* Appends the status line and frees the parser. */
static tread_status dump_end(dump *d, tread_parser *p, tread_status st, int runaway)
{
    if (runaway)
        dump_printf(d, "RUNAWAY: still pausing after %zu stops\n", d->stops);
    tread_stats s;
    tread_get_stats(p, &s);
    d->fast_records = s.fast_records;
    dump_printf(d, "status=%d error=%s off=%" PRIu64 " msg=%s events=%" PRIu64 " warnings=%" PRIu64
                " decoded=%" PRIu64 " format=%s compression=%s\n",
                (int)st, tread_error_name(tread_get_error(p)), tread_get_error_offset(p),
                tread_get_error_message(p), s.events, s.warnings, s.bytes_decoded,
                tread_format_name(s.format), tread_compression_name(s.compression));
    tread_parser_free(p);
    return st;
}

tread_status dump_parse_alloc(dump *d, const void *buf, size_t len, size_t chunk,
                              const int64_t *opts, const tread_allocator *hooks)
{
    tread_parser *p = dump_parser(d, opts, hooks);
    const unsigned char *b = buf;
    size_t off = 0;
    int runaway = 0;
    tread_status st = TREAD_STATUS_OK;
    if (chunk == 0)
        chunk = len ? len : 1;
    while (off < len && st != TREAD_STATUS_ERROR && !runaway) {
        size_t n = len - off < chunk ? len - off : chunk;
        size_t before = d->stops;
        st = tread_feed(p, b + off, n);
        off += n;
        runaway = dump_resume(d, p, &st, before);
    }
    if (st != TREAD_STATUS_ERROR && !runaway) {
        size_t before = d->stops;
        st = tread_finish(p);
        runaway = dump_resume(d, p, &st, before);
    }
    return dump_end(d, p, st, runaway);
}

tread_status dump_parse_fd(dump *d, int fd, const int64_t *opts)
{
    tread_parser *p = dump_parser(d, opts, NULL);
    size_t before = d->stops;
    tread_status st = tread_parse_fd(p, fd);
    int runaway = dump_resume(d, p, &st, before);
    return dump_end(d, p, st, runaway);
}

size_t dump_body_len(const char *text)
{
    size_t n = strlen(text);
    if (n && text[n - 1] == '\n')
        n--;
    while (n && text[n - 1] != '\n')
        n--;
    return n;
}

void dump_show_difference(const char *a, const char *b)
{
    size_t i = 0, line_start = 0, line = 1;
    while (a[i] && a[i] == b[i]) {
        if (a[i] == '\n') {
            line++;
            line_start = i + 1;
        }
        i++;
    }
    fprintf(stderr, "    dump line %zu:\n      want: %.*s\n      got:  %.*s\n", line,
            (int)strcspn(a + line_start, "\n"), a + line_start,
            (int)strcspn(b + line_start, "\n"), b + line_start);
}

unsigned char *dump_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 20, n = 0;
    unsigned char *b = malloc(cap);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            b = realloc(b, cap);
        }
        size_t r = fread(b + n, 1, cap - n, f);
        if (r == 0)
            break;
        n += r;
    }
    fclose(f);
    *len = n;
    return b;
}
