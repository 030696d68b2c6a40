#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_collect.h"

coll C;

void copy_str(cstr *d, tread_str s)
{
    memset(d, 0, sizeof *d);
    if (!s.ptr)
        return;
    d->present = 1;
    d->len = s.len;
    if (s.len >= STR_CAP) {
        C.overflow = 1;
        return;
    }
    memcpy(d->s, s.ptr, s.len);
    if (C.want_nul && s.ptr[s.len] != 0)
        C.bad_nul = 1;
}

void copy_args(cargs *d, tread_args a)
{
    d->present = a.data != NULL;
    d->len = 0;
    if (!a.data)
        return;
    if (a.len > ARGS_CAP) {
        C.overflow = 1;
        return;
    }
    d->len = a.len;
    memcpy(d->data, a.data, a.len);
}

tread_args args_of(const cargs *a)
{
    tread_args r = {.data = a->present ? a->data : NULL, .len = a->present ? a->len : 0};
    return r;
}

int on_event_collect(void *user, const tread_event *ev)
{
    (void)user;
    if (C.nev >= MAX_ITEMS) {
        C.overflow = 1;
        return 0;
    }
    cevent *e = &C.ev[C.nev++];
    /* NUL-terminated strings are promised for JSON events only (those of
     * a sub-trace, such as systemTraceEvents text, have their own format) */
    C.want_nul = ev->format == TREAD_FORMAT_JSON;
    e->seq = C.seq++;
    e->kind = ev->kind;
    e->format = ev->format;
    e->flags = ev->flags;
    e->phase = ev->phase;
    e->ts = ev->ts;
    e->dur = ev->dur;
    e->tts = ev->tts;
    e->tdur = ev->tdur;
    e->pid = ev->pid;
    e->tid = ev->tid;
    e->cpu = ev->cpu;
    e->tidelta = ev->tidelta;
    e->ticount = ev->ticount;
    e->meta_num = ev->meta_num;
    e->id_num = ev->id_num;
    e->offset = ev->offset;
    e->scope = ev->scope;
    e->meta = ev->meta;
    e->value = ev->value;
    copy_str(&e->pid_str, ev->pid_str);
    copy_str(&e->tid_str, ev->tid_str);
    copy_str(&e->name, ev->name);
    copy_str(&e->cat, ev->cat);
    copy_str(&e->id, ev->id);
    copy_str(&e->id_scope, ev->id_scope);
    copy_str(&e->bind_id, ev->bind_id);
    copy_str(&e->cname, ev->cname);
    copy_str(&e->sf, ev->sf);
    copy_str(&e->esf, ev->esf);
    copy_str(&e->parent, ev->parent);
    copy_str(&e->series, ev->series);
    copy_str(&e->value_text, ev->value_text);
    copy_str(&e->meta_str, ev->meta_str);
    copy_args(&e->args, ev->args);
    copy_args(&e->stack, ev->stack);
    copy_args(&e->estack, ev->estack);
    e->has_raw = ev->raw != NULL;
    if (ev->raw) {
        const tread_json_raw *r = ev->raw;
        e->raw_section = r->section;
        e->raw_offset = r->offset;
        e->raw_length = r->length;
    }
    return 0;
}

int on_warning_collect(void *user, const tread_warning *w)
{
    (void)user;
    if (C.nwarn >= MAX_ITEMS) {
        C.overflow = 1;
        return 0;
    }
    cwarn *c = &C.warn[C.nwarn++];
    c->seq = C.seq++;
    c->kind = w->kind;
    c->offset = w->offset;
    snprintf(c->msg, sizeof c->msg, "%s", w->message ? w->message : "(null)");
    return 0;
}

int on_raw_collect(void *user, const tread_json_raw *raw)
{
    (void)user;
    if (C.nraw >= MAX_ITEMS) {
        C.overflow = 1;
        return 0;
    }
    craw *r = &C.raw[C.nraw++];
    r->seq = C.seq++;
    r->section = raw->section;
    r->offset = raw->offset;
    r->length = raw->length;
    copy_str(&r->key, raw->key);
    copy_args(&r->fields, raw->fields);
    return 0;
}

const tread_callbacks collect_callbacks = {.event = on_event_collect,
                                           .warning = on_warning_collect,
                                           .json_raw = on_raw_collect};

/* ---- "all chunkings agree" ---------------------------------------------
 * The dump of a parse must not depend on how the input is cut: whole,
 * one byte at a time, seven bytes at a time, and with a stop (callback
 * returning non-zero, then tread_resume) after every event. The stop runs
 * bound the resumes (dump.max_stops), so a parser that paused forever
 * would fail the check instead of hanging it. */

/* Whether the dump in chunks of chunk bytes equals base's (checked). */
static int chunk_agrees(const dump *base, const void *buf, size_t len, size_t chunk,
                        const int64_t *opts, int line)
{
    dump d;
    dump_init(&d);
    dump_parse(&d, buf, len, chunk, opts);
    int same = strcmp(base->text, d.text) == 0;
    CHECK(same);
    if (!same) {
        fprintf(stderr, "  input of line %d: chunk size %zu gives another dump\n", line, chunk);
        dump_show_difference(base->text, d.text);
    }
    dump_free(&d);
    return same;
}

void all_chunkings_agree(const void *buf, size_t len, const int64_t *opts, int line)
{
    dump base;
    dump_init(&base);
    dump_parse(&base, buf, len, 0, opts);
    static const size_t chunks[] = {1, 7};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++)
        (void)chunk_agrees(&base, buf, len, chunks[i], opts, line);
    static const size_t stop_chunks[] = {0, 1, 7};
    for (size_t i = 0; i < sizeof stop_chunks / sizeof stop_chunks[0]; i++) {
        dump d;
        dump_init(&d);
        d.stop_every = 1;
        d.max_stops = base.events + 8;
        dump_parse(&d, buf, len, stop_chunks[i], opts);
        int same = strcmp(base.text, d.text) == 0;
        CHECK(same);
        if (!same) {
            fprintf(stderr,
                    "  input of line %d: a stop after every event (chunk size %zu) gives "
                    "another dump\n",
                    line, stop_chunks[i]);
            dump_show_difference(base.text, d.text);
        }
        if (base.events > 0)
            CHECK(d.stops > 0); /* the stops really happened */
        dump_free(&d);
    }
    dump_free(&base);
}

/* The same for every chunk size from 1 to len, so that the first cut
 * falls on every byte once: for small inputs whose tokens must survive a
 * cut anywhere (a top-level string's escapes, say). */
void every_chunk_size_agrees(const void *buf, size_t len, const int64_t *opts, int line)
{
    dump base;
    dump_init(&base);
    dump_parse(&base, buf, len, 0, opts);
    for (size_t chunk = 1; chunk <= len; chunk++)
        if (!chunk_agrees(&base, buf, len, chunk, opts, line))
            break;
    dump_free(&base);
}

/* Parses buf in one piece with the collecting callbacks (into C), then
 * runs the chunking check on the same input and options. */
void parse_at(const void *buf, size_t len, const int64_t *opts, int line)
{
    memset(&C, 0, sizeof C);
    tread_parser *p = tread_parser_create(NULL);
    CHECK(p != NULL);
    if (!p)
        return;
    for (const int64_t *o = opts; o && o[0]; o += 2)
        CHECK(tread_config(p, (tread_option)o[0], o[1]) == 0);
    tread_set_callbacks(p, &collect_callbacks, NULL);
    C.status = tread_feed(p, buf, len);
    if (C.status == TREAD_STATUS_OK)
        C.status = tread_finish(p);
    C.error = tread_get_error(p);
    C.error_offset = tread_get_error_offset(p);
    tread_get_stats(p, &C.stats);
    {
        tread_counter cs[160];
        size_t n = tread_get_format_counters(p, cs, 160);
        CHECK(n <= 160);
        for (size_t i = 0; i < n && i < 160; i++) {
            snprintf(C.counters[i].name, sizeof C.counters[i].name, "%s", cs[i].name);
            C.counters[i].value = cs[i].value;
        }
        C.ncounters = n < 160 ? n : 160;
    }
    tread_parser_free(p);
    CHECK(!C.overflow);
    CHECK(!C.bad_nul);
    if (C.overflow || C.bad_nul)
        fprintf(stderr, "  (input of line %d)\n", line);
    all_chunkings_agree(buf, len, opts, line);
}


/* ---- looking at what was collected ------------------------------------ */

size_t count_warnings(tread_warning_kind k)
{
    size_t n = 0;
    for (size_t i = 0; i < C.nwarn; i++)
        n += C.warn[i].kind == k;
    return n;
}

/* The first warning of kind k, or NULL. */
const cwarn *find_warning(tread_warning_kind k)
{
    for (size_t i = 0; i < C.nwarn; i++)
        if (C.warn[i].kind == k)
            return &C.warn[i];
    return NULL;
}

int has_warning_at(tread_warning_kind k, uint64_t off)
{
    for (size_t i = 0; i < C.nwarn; i++)
        if (C.warn[i].kind == k && C.warn[i].offset == off)
            return 1;
    return 0;
}

/* Byte offset of the n-th (0-based) occurrence of needle in s. */
uint64_t offset_of(const char *s, const char *needle, int nth)
{
    const char *p = s;
    for (;;) {
        const char *q = strstr(p, needle);
        if (!q) {
            fprintf(stderr, "test bug: \"%s\" not found\n", needle);
            test_failures++;
            return UINT64_MAX;
        }
        if (nth-- == 0)
            return (uint64_t)(q - s);
        p = q + 1;
    }
}

uint64_t counter_of(const char *name)
{
    for (size_t i = 0; i < C.ncounters; i++)
        if (strcmp(C.counters[i].name, name) == 0)
            return C.counters[i].value;
    return UINT64_MAX;
}

int str_is(const cstr *s, const char *want)
{
    return s->present && s->len == strlen(want) && memcmp(s->s, want, s->len) == 0;
}
