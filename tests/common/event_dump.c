#include "event_dump.h"
#include <tread/perfetto.h>

#include <inttypes.h>
#include <math.h>
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

/* Room for n more bytes and the terminating NUL. */
static void dump_reserve(dump *d, size_t n)
{
    if (d->cap - d->len > n)
        return;
    size_t cap = d->cap ? d->cap * 2 : 4096;
    while (cap - d->len <= n)
        cap *= 2;
    char *t = realloc(d->text, cap);
    if (!t)
        abort();
    d->text = t;
    d->cap = cap;
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
        dump_reserve(d, (size_t)n);
    }
}

/* Appenders: the event lines are written here rather than by a
 * vsnprintf call per field, which was most of the time of the tests that
 * dump every event of big traces several times (chunk_check,
 * split_perfetto_corpus). The text is the same as printf's. */
static void put(dump *d, const char *s, size_t n)
{
    dump_reserve(d, n);
    memcpy(d->text + d->len, s, n);
    d->len += n;
    d->text[d->len] = 0;
}

static void put_s(dump *d, const char *s) { put(d, s, strlen(s)); }

/* Two digits a step: a division a digit was a fifth of
 * split_perfetto_corpus's time (timestamps have 13 or more). */
static void put_u(dump *d, uint64_t v)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    char b[24];
    size_t i = sizeof b;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        b[--i] = pairs[2 * r + 1];
        b[--i] = pairs[2 * r];
    }
    if (v >= 10) {
        b[--i] = pairs[2 * v + 1];
        b[--i] = pairs[2 * v];
    } else {
        b[--i] = (char)('0' + v);
    }
    put(d, b + i, sizeof b - i);
}

/* A number in lower-case hex, as %x prints it (the flags of every event:
 * vsnprintf for them was a tenth of chunk_check's time). */
static void put_x(dump *d, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    char b[16];
    size_t i = sizeof b;
    do {
        b[--i] = hex[v & 15];
        v >>= 4;
    } while (v);
    put(d, b + i, sizeof b - i);
}

static void put_i(dump *d, int64_t v)
{
    if (v < 0) {
        put(d, "-", 1);
        put_u(d, (uint64_t)0 - (uint64_t)v);
    } else {
        put_u(d, (uint64_t)v);
    }
}

/* " label=" and a number */
static void put_li(dump *d, const char *label, int64_t v)
{
    put_s(d, label);
    put_i(d, v);
}

static void put_lu(dump *d, const char *label, uint64_t v)
{
    put_s(d, label);
    put_u(d, v);
}

/* " label=" and a double as %.17g; a whole number below 1e17 (most
 * counter values) is the same digits as the integer's */
static void put_ld(dump *d, const char *label, double v)
{
    if (v > -1e17 && v < 1e17 && v == (double)(int64_t)v && (v != 0 || !signbit(v))) {
        put_li(d, label, (int64_t)v);
        return;
    }
    put_s(d, label);
    dump_printf(d, "%.17g", v);
}

/* A string quoted, with bytes outside printable ASCII, the quote and the
 * backslash as \xHH. */
static void dump_str(dump *d, const char *label, tread_str s)
{
    static const char hex[] = "0123456789abcdef";
    if (!s.ptr)
        return;
    put(d, " ", 1);
    put_s(d, label);
    put(d, "=\"", 2);
    dump_reserve(d, s.len * 4 + 1);
    char *o = d->text + d->len;
    for (size_t i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7f) {
            *o++ = '\\', *o++ = 'x', *o++ = hex[c >> 4], *o++ = hex[c & 15];
        } else {
            *o++ = (char)c;
        }
    }
    *o++ = '"';
    *o = 0;
    d->len = (size_t)(o - d->text);
}

void dump_args(dump *d, const tread_args *a)
{
    tread_args_iter it;
    tread_arg v;
    tread_args_iter_init(&it, a);
    while (tread_args_next(&it, &v)) {
        put_li(d, " [", v.depth);
        dump_str(d, "k", v.key);
        put(d, " ", 1);
        put_s(d, tread_arg_type_name(v.type));
        switch (v.type) {
        case TREAD_ARG_BOOL: put_li(d, "=", v.v.b); break;
        case TREAD_ARG_INT: put_li(d, "=", v.v.i); break;
        case TREAD_ARG_UINT:
        case TREAD_ARG_POINTER:
        case TREAD_ARG_KOID: put_lu(d, "=", v.v.u); break;
        case TREAD_ARG_DOUBLE: put_ld(d, "=", v.v.d); break;
        case TREAD_ARG_STRING:
        case TREAD_ARG_BYTES: dump_str(d, "s", v.v.s); break;
        default: break;
        }
        dump_str(d, "text", v.text);
        put(d, "]", 1);
    }
    if (tread_args_iter_failed(&it))
        put_s(d, " args-malformed");
}

void dump_event(dump *d, const tread_event *ev)
{
    put_s(d, tread_event_kind_name(ev->kind));
    put_s(d, " fmt=");
    put_s(d, tread_format_name(ev->format));
    put_li(d, " ph=", ev->phase);
    put_s(d, " fl=");
    put_x(d, ev->flags);
    if (ev->flags & TREAD_HAS_TS) put_li(d, " ts=", ev->ts);
    if (ev->flags & TREAD_HAS_DUR) put_li(d, " dur=", ev->dur);
    if (ev->flags & TREAD_HAS_TTS) put_li(d, " tts=", ev->tts);
    if (ev->flags & TREAD_HAS_TDUR) put_li(d, " tdur=", ev->tdur);
    put_li(d, " pid=", ev->pid);
    put_li(d, " tid=", ev->tid);
    if (ev->flags & TREAD_HAS_CPU) put_li(d, " cpu=", ev->cpu);
    dump_str(d, "pid_str", ev->pid_str);
    dump_str(d, "tid_str", ev->tid_str);
    dump_str(d, "name", ev->name);
    dump_str(d, "cat", ev->cat);
    dump_str(d, "id", ev->id);
    if (ev->flags & TREAD_HAS_ID_NUM) put_lu(d, " id_num=", ev->id_num);
    dump_str(d, "scope", ev->id_scope);
    dump_str(d, "bind_id", ev->bind_id);
    dump_str(d, "cname", ev->cname);
    if (ev->scope) put_li(d, " s=", (int)ev->scope);
    dump_str(d, "sf", ev->sf);
    dump_str(d, "esf", ev->esf);
    dump_str(d, "parent", ev->parent);
    if (ev->flags & TREAD_HAS_TIDELTA) put_li(d, " tidelta=", ev->tidelta);
    if (ev->flags & TREAD_HAS_TICOUNT) put_li(d, " ticount=", ev->ticount);
    dump_str(d, "series", ev->series);
    if (ev->flags & TREAD_HAS_VALUE) put_ld(d, " value=", ev->value);
    dump_str(d, "value_text", ev->value_text);
    if (ev->meta) {
        put_s(d, " meta=");
        put_s(d, tread_meta_name(ev->meta));
    }
    dump_str(d, "meta_str", ev->meta_str);
    if (ev->flags & TREAD_HAS_META_NUM) put_li(d, " meta_num=", ev->meta_num);
    if (ev->flags & TREAD_HAS_TRACK) {
        put_lu(d, " track=", ev->track_uuid);
        put(d, "/", 1);
        put_s(d, tread_track_kind_name(ev->track_kind));
    }
    if (ev->flags & TREAD_HAS_SEQ) put_lu(d, " seq=", ev->seq_id);
    if (ev->flags & TREAD_HAS_RAW_TS) {
        put_li(d, " raw_ts=", ev->raw_ts);
        put_lu(d, "@", ev->clock_id);
    }
    if (ev->flags & TREAD_VALUE_IS_INT) put_li(d, " value_int=", ev->value_int);
    for (size_t i = 0; i < ev->flow_ids.n; i++) put_lu(d, " flow=", ev->flow_ids.v[i]);
    for (size_t i = 0; i < ev->terminating_flow_ids.n; i++)
        put_lu(d, " flow_end=", ev->terminating_flow_ids.v[i]);
    if (ev->flags & TREAD_HAS_PROVIDER) {
        put_lu(d, " provider=", ev->provider_id);
        dump_str(d, "provider_name", ev->provider_name);
    }
    put_lu(d, " off=", ev->offset);
    if (ev->stack.data) { put_s(d, " stack:"); dump_args(d, &ev->stack); }
    if (ev->estack.data) { put_s(d, " estack:"); dump_args(d, &ev->estack); }
    put_s(d, " args:");
    dump_args(d, &ev->args);
    put(d, "\n", 1);
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

/* A Perfetto packet as the raw hook sees it (d->packets): its description
 * and a checksum of its bytes. */
static int on_packet(void *user, const tread_perfetto_packet *pk)
{
    dump *d = user;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < pk->len; i++)
        h = (h ^ pk->data[i]) * 1099511628211ull;
    dump_printf(d,
                "packet off=%" PRIu64 " len=%zu seq=%" PRIu32 " clock=%" PRIu32 " ts=%" PRId64
                " flags=%" PRIu32 " state=%" PRIu32 " trace_clock=%" PRIu32 " fnv=%016" PRIx64 "\n",
                pk->offset, pk->len, pk->seq_id, pk->clock_id, pk->ts, pk->sequence_flags,
                pk->state, pk->trace_clock_id, h);
    d->packets_seen++;
    if (d->stop_packets_every && d->packets_seen % d->stop_packets_every == 0) {
        d->stops++;
        return 1;
    }
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
    if (d->packets) {
        tread_callbacks cb = dump_callbacks;
        cb.perfetto_packet = on_packet;
        tread_set_callbacks(p, &cb, d);
    } else {
        tread_set_callbacks(p, &dump_callbacks, d);
    }
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
