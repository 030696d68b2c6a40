/* FXT decoder: hand-built records of every type through the public API
 * (events, warnings, errors, blob pieces, the raw hook, counters). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tread.h>
#include <tread/fxt.h>

#include "event_dump.h"
#include "fxt_build.h"
#include "testlib.h"

#define MAXEV 64

typedef struct seen_event {
    tread_event_kind kind;
    uint32_t flags;
    int64_t ts, dur, pid, tid, cpu;
    uint64_t id_num, flow, flow_end;
    char name[64], cat[32], series[32], meta_str[32], provider[32];
    int name_nul_ok;
    double value;
    tread_meta meta;
    tread_scope scope;
    uint32_t provider_id;
    char args[256]; /* key=type pairs of the args iterator */
} seen_event;

typedef struct collect {
    seen_event ev[MAXEV];
    int n;
    char warnings[1024];
    int nwarn;
    int records, record_types[16];
    uint64_t record_offsets[64];
    size_t args_offsets[64];
    int skipped[64];
    uint64_t blob_bytes, blob_total, blob_pieces, blob_last_offset;
    int blob_last;
} collect;

static void copy_str(char *dst, size_t cap, tread_str s)
{
    size_t n = s.len < cap - 1 ? s.len : cap - 1;
    if (s.ptr)
        memcpy(dst, s.ptr, n);
    dst[s.ptr ? n : 0] = 0;
}

static int on_event(void *user, const tread_event *e)
{
    collect *c = user;
    if (c->n >= MAXEV)
        return 0;
    seen_event *s = &c->ev[c->n++];
    memset(s, 0, sizeof *s);
    s->kind = e->kind;
    s->flags = e->flags;
    s->ts = e->ts;
    s->dur = e->dur;
    s->pid = e->pid;
    s->tid = e->tid;
    s->cpu = e->cpu;
    s->id_num = e->id_num;
    s->value = e->value;
    s->meta = e->meta;
    s->scope = e->scope;
    s->provider_id = e->provider_id;
    s->flow = e->flow_ids.n ? e->flow_ids.v[0] : 0;
    s->flow_end = e->terminating_flow_ids.n ? e->terminating_flow_ids.v[0] : 0;
    copy_str(s->name, sizeof s->name, e->name);
    s->name_nul_ok = !e->name.ptr || e->name.ptr[e->name.len] == 0;
    copy_str(s->cat, sizeof s->cat, e->cat);
    copy_str(s->series, sizeof s->series, e->series);
    copy_str(s->meta_str, sizeof s->meta_str, e->meta_str);
    copy_str(s->provider, sizeof s->provider, e->provider_name);
    tread_args_iter it;
    tread_arg a;
    tread_args_iter_init(&it, &e->args);
    size_t o = 0;
    while (tread_args_next(&it, &a) && o < sizeof s->args - 40)
        o += (size_t)snprintf(s->args + o, sizeof s->args - o, "%.*s=%s,", (int)(a.key.len > 16 ? 16 : a.key.len),
                              a.key.ptr ? a.key.ptr : "", tread_arg_type_name(a.type));
    return 0;
}

static int on_warning(void *user, const tread_warning *w)
{
    collect *c = user;
    c->nwarn++;
    size_t o = strlen(c->warnings);
    snprintf(c->warnings + o, sizeof c->warnings - o, "%s@%" PRIu64 ";", tread_warning_name(w->kind),
             w->offset);
    return 0;
}

static int on_record(void *user, const tread_fxt_record *r)
{
    collect *c = user;
    if (c->records < 64) {
        c->record_offsets[c->records] = r->offset;
        c->args_offsets[c->records] = r->args_offset;
        c->skipped[c->records] = r->skipped;
    }
    c->records++;
    c->record_types[r->type & 15]++;
    return 0;
}

static int on_blob(void *user, const tread_blob *b)
{
    collect *c = user;
    CHECK_EQ_INT(b->piece_offset, c->blob_bytes);
    CHECK(b->len <= 4096);
    c->blob_bytes += b->len;
    c->blob_total = b->total_size;
    c->blob_pieces++;
    c->blob_last = b->last;
    if (b->last)
        c->blob_bytes = 0;
    return 0;
}

static const tread_callbacks callbacks = {.event = on_event, .warning = on_warning,
                                          .fxt_record = on_record, .blob = on_blob};

/* Parses buf (forced FXT unless sniff) into c; returns the status. */
static tread_status parse(const fxb *b, collect *c, int sniff, tread_parser **keep)
{
    memset(c, 0, sizeof *c);
    tread_parser *p = tread_parser_create(NULL);
    if (!sniff)
        CHECK_EQ_INT(tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_FXT), 0);
    tread_set_callbacks(p, &callbacks, c);
    tread_status st = tread_feed(p, b->d, b->len);
    if (st == TREAD_STATUS_OK)
        st = tread_finish(p);
    if (keep)
        *keep = p;
    else
        tread_parser_free(p);
    return st;
}

/* ---- every event type ---- */

static void test_event_types(void)
{
    fxb b;
    fxb_init(&b);
    fxb_preamble(&b);
    for (unsigned t = 0; t <= 10; t++) {
        size_t s = fxb_event(&b, t, 0, 1, 1, 2, 1000 + t);
        if (t == 1 || t >= 4)
            fxb_word(&b, t == 4 ? 1500 : 77 + t); /* counter id, end time, ids */
        fxb_end(&b, s);
    }
    collect c;
    tread_parser *p;
    CHECK_EQ_INT(parse(&b, &c, 1, &p), TREAD_STATUS_OK);
    static const tread_event_kind kinds[] = {
        TREAD_EVENT_INSTANT,    TREAD_EVENT_SLICE_BEGIN, TREAD_EVENT_SLICE_END,
        TREAD_EVENT_COMPLETE,   TREAD_EVENT_ASYNC_BEGIN, TREAD_EVENT_ASYNC_STEP,
        TREAD_EVENT_ASYNC_END,  TREAD_EVENT_FLOW_BEGIN,  TREAD_EVENT_FLOW_STEP,
        TREAD_EVENT_FLOW_END};
    /* the thread record's metadata event, then the events; the counter has
     * no arguments: no series, a warning */
    CHECK_EQ_INT(c.n, 1 + 10 + 1);
    CHECK_EQ_INT(c.ev[0].kind, TREAD_EVENT_CLOCK_SYNC);
    CHECK_EQ_INT(c.ev[1].kind, TREAD_EVENT_METADATA);
    CHECK_EQ_INT(c.ev[1].meta, TREAD_META_OTHER);
    CHECK_EQ_STR(c.ev[1].name, "thread");
    CHECK_EQ_INT(c.ev[1].pid, 100);
    CHECK_EQ_INT(c.ev[1].tid, 101);
    for (int i = 0; i < 10; i++) {
        seen_event *e = &c.ev[2 + i];
        CHECK_EQ_INT(e->kind, kinds[i]);
        CHECK_EQ_STR(e->name, "name");
        CHECK_EQ_STR(e->cat, "cat");
        CHECK_EQ_INT(e->pid, 100);
        CHECK_EQ_INT(e->tid, 101);
        CHECK(e->flags & TREAD_HAS_PROVIDER);
        CHECK(e->flags & TREAD_HAS_TS);
        CHECK_EQ_INT(e->provider_id, 7);
        CHECK_EQ_STR(e->provider, "prov");
    }
    CHECK_EQ_INT(c.ev[2].ts, 1000);
    CHECK_EQ_INT(c.ev[5].ts, 1004);
    CHECK_EQ_INT(c.ev[5].dur, 496);
    CHECK(c.ev[5].flags & TREAD_HAS_DUR);
    CHECK_EQ_INT(c.ev[6].id_num, 82);
    CHECK(c.ev[6].flags & TREAD_HAS_TRACK);
    CHECK_EQ_INT(c.ev[9].flow, 85);
    CHECK_EQ_INT(c.ev[10].flow, 86);
    CHECK_EQ_INT(c.ev[11].flow_end, 87);
    CHECK(strstr(c.warnings, "bad_counter_value") != NULL);
    CHECK_EQ_INT(c.records, 6 + 11);
    CHECK_EQ_INT(c.record_types[TREAD_FXT_EVENT], 11);
    CHECK_EQ_INT(test_format_counter(p, "records_by_type.event"), 11);
    CHECK_EQ_INT(test_format_counter(p, "providers"), 1);
    tread_parser_free(p);
    fxb_free(&b);
}

/* ---- inline strings and threads, string termination ---- */

static void test_inline(void)
{
    fxb b;
    fxb_init(&b);
    fxb_magic(&b);
    /* before any provider info: no provider */
    size_t s = fxb_event(&b, 0, 0, 0, FXB_INLINE(1), FXB_INLINE(8), 5);
    fxb_word(&b, 0x8000000000000001u); /* koids with bit 63 set */
    fxb_word(&b, 0x8000000000000002u);
    fxb_stream(&b, "c", 1);
    fxb_stream(&b, "12345678", 8); /* no padding: NUL from the shadow */
    fxb_end(&b, s);
    s = fxb_event(&b, 3, 0, 0, 0, FXB_INLINE(3), 6); /* empty category */
    fxb_word(&b, 1);
    fxb_word(&b, 2);
    fxb_stream(&b, "a\0b", 3); /* an embedded NUL passes through */
    fxb_end(&b, s);
    collect c;
    CHECK_EQ_INT(parse(&b, &c, 1, NULL), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.n, 2);
    CHECK_EQ_STR(c.ev[0].name, "12345678");
    CHECK(c.ev[0].name_nul_ok);
    CHECK_EQ_STR(c.ev[0].cat, "c");
    CHECK_EQ_INT((uint64_t)c.ev[0].pid, 0x8000000000000001u);
    CHECK_EQ_INT((uint64_t)c.ev[0].tid, 0x8000000000000002u);
    CHECK(!(c.ev[0].flags & TREAD_HAS_PROVIDER));
    CHECK_EQ_STR(c.ev[1].cat, "");
    CHECK(memcmp(c.ev[1].name, "a\0b", 4) == 0);
    CHECK_EQ_INT(c.nwarn, 0);
    fxb_free(&b);
}

/* ---- tables: replace, index 0, per provider, provider info again ---- */

static void test_tables(void)
{
    fxb b;
    fxb_init(&b);
    fxb_magic(&b);
    fxb_provider_info(&b, 1, "one");
    fxb_string(&b, 5, "first");
    fxb_thread(&b, 3, 10, 11);
    fxb_provider_info(&b, 2, "two");
    fxb_string(&b, 5, "second");
    fxb_thread(&b, 3, 20, 21);
    fxb_string(&b, 0, "ignored");
    fxb_thread(&b, 0, 1, 1);
    size_t s = fxb_event(&b, 0, 0, 3, 0, 5, 1); /* provider 2 */
    fxb_end(&b, s);
    fxb_provider_section(&b, 1);
    s = fxb_event(&b, 0, 0, 3, 0, 5, 2); /* provider 1 */
    fxb_end(&b, s);
    fxb_string(&b, 5, "replaced");
    s = fxb_event(&b, 0, 0, 3, 0, 5, 3);
    fxb_end(&b, s);
    fxb_provider_info(&b, 1, "one again"); /* forgets provider 1's tables */
    s = fxb_event(&b, 0, 0, 3, 0, 5, 4);
    fxb_end(&b, s);
    fxb_provider_section(&b, 9); /* never announced */
    s = fxb_event(&b, 0, 0, 0, 0, 0, 5);
    fxb_word(&b, 1);
    fxb_word(&b, 2);
    fxb_end(&b, s);
    collect c;
    tread_parser *p;
    CHECK_EQ_INT(parse(&b, &c, 1, &p), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.n, 2 + 5); /* two thread records, five instants */
    CHECK_EQ_STR(c.ev[2].name, "second");
    CHECK_EQ_INT(c.ev[2].pid, 20);
    CHECK_EQ_INT(c.ev[2].provider_id, 2);
    CHECK_EQ_STR(c.ev[3].name, "first");
    CHECK_EQ_INT(c.ev[3].tid, 11);
    CHECK_EQ_STR(c.ev[3].provider, "one");
    CHECK_EQ_STR(c.ev[4].name, "replaced");
    CHECK(c.ev[5].flags & TREAD_NAME_UNRESOLVED);
    CHECK(c.ev[5].flags & TREAD_THREAD_UNRESOLVED);
    CHECK(!(c.ev[5].flags & TREAD_HAS_PID));
    CHECK_EQ_STR(c.ev[5].name, "");
    CHECK_EQ_STR(c.ev[5].provider, "one again");
    CHECK_EQ_INT(c.ev[6].provider_id, 9);
    CHECK_EQ_STR(c.ev[6].provider, "");
    CHECK(c.ev[6].flags & TREAD_HAS_PROVIDER);
    CHECK_EQ_INT(c.nwarn, 2);
    CHECK(strstr(c.warnings, "unresolved_ref") != NULL);
    CHECK_EQ_INT(test_format_counter(p, "string_table_misses"), 1);
    CHECK_EQ_INT(test_format_counter(p, "thread_table_misses"), 1);
    CHECK_EQ_INT(test_format_counter(p, "index0_records_ignored"), 2);
    CHECK_EQ_INT(test_format_counter(p, "providers"), 3);
    tread_parser_free(p);
    fxb_free(&b);
}

/* ---- time ---- */

static void test_ticks(void)
{
    fxb b;
    fxb_init(&b);
    fxb_preamble(&b);
    fxb_init_record(&b, 24000000);
    size_t s = fxb_event(&b, 0, 0, 1, 1, 2, 24000000); /* 1 s */
    fxb_end(&b, s);
    s = fxb_event(&b, 0, 0, 1, 1, 2, UINT64_MAX); /* beyond int64 ns */
    fxb_end(&b, s);
    fxb_init_record(&b, 1000000000);
    s = fxb_event(&b, 4, 0, 1, 1, 2, 500); /* ends before it starts */
    fxb_word(&b, 400);
    fxb_end(&b, s);
    s = fxb_event(&b, 0, 0, 1, 1, 2, UINT64_C(1) << 63);
    fxb_end(&b, s);
    fxb_init_record(&b, 0); /* refused: the rate stays */
    s = fxb_event(&b, 0, 0, 1, 1, 2, 7);
    fxb_end(&b, s);
    collect c;
    CHECK_EQ_INT(parse(&b, &c, 1, NULL), TREAD_STATUS_OK);
    /* clock_sync, thread, clock_sync, 2 instants, clock_sync, complete, instant, instant */
    CHECK_EQ_INT(c.n, 9);
    CHECK_EQ_INT(c.ev[3].ts, 1000000000);
    CHECK(!(c.ev[4].flags & TREAD_HAS_TS));
    CHECK_EQ_INT(c.ev[6].dur, -100);
    CHECK(!(c.ev[7].flags & TREAD_HAS_TS));
    CHECK_EQ_INT(c.ev[8].ts, 7);
    CHECK(strstr(c.warnings, "number_range") != NULL);
    CHECK(strstr(c.warnings, "bad_field") != NULL);
    CHECK_EQ_INT(c.nwarn, 3);
    fxb_free(&b);
}

/* ---- counters, objects, scheduling, logs ---- */

static void test_other_records(void)
{
    fxb b;
    fxb_init(&b);
    fxb_preamble(&b);
    uint64_t dbl, v;
    double two5 = 2.5;
    memcpy(&dbl, &two5, 8);
    size_t s = fxb_event(&b, 1, 3, 1, 1, 2, 9);
    fxb_arg(&b, 1, "ints", (uint32_t)-3, NULL, 0);
    fxb_arg(&b, 5, "dbl", 0, &dbl, 1);
    fxb_arg(&b, 6, "str", FXB_INLINE(1), (v = 'x', &v), 1);
    fxb_word(&b, 42); /* counter id */
    fxb_end(&b, s);
    /* kernel objects: a process, a thread of it, a channel */
    s = fxb_begin(&b, 7 | (1u << 16) | ((uint64_t)FXB_INLINE(4) << 24));
    fxb_word(&b, 500);
    fxb_stream(&b, "proc", 4);
    fxb_end(&b, s);
    s = fxb_begin(&b, 7 | (2u << 16) | ((uint64_t)FXB_INLINE(3) << 24) | (UINT64_C(1) << 40));
    fxb_word(&b, 501);
    fxb_stream(&b, "thr", 3);
    fxb_arg(&b, 8, "process", 0, (v = 500, &v), 1);
    fxb_end(&b, s);
    s = fxb_begin(&b, 7 | (4u << 16) | ((uint64_t)FXB_INLINE(2) << 24));
    fxb_word(&b, 502);
    fxb_stream(&b, "ch", 2);
    fxb_end(&b, s);
    /* userspace object, inline process */
    s = fxb_begin(&b, 6 | ((uint64_t)FXB_INLINE(3) << 24));
    fxb_word(&b, 0xabc);
    fxb_word(&b, 600);
    fxb_stream(&b, "obj", 3);
    fxb_end(&b, s);
    /* legacy context switch: cpu 2, out thread 1 (state 3), in inline */
    s = fxb_begin(&b, 8 | (2u << 16) | (3u << 24) | (UINT64_C(1) << 28) | (UINT64_C(9) << 44) |
                          (UINT64_C(0) << 60));
    fxb_word(&b, 20);
    fxb_word(&b, 300);
    fxb_word(&b, 301);
    fxb_end(&b, s);
    /* context switch (1) with an argument, wakeup (2), fiber (3), type 4 */
    s = fxb_begin(&b, 8 | (1u << 16) | (5u << 20) | (UINT64_C(2) << 36) | (UINT64_C(1) << 60));
    fxb_word(&b, 21);
    fxb_word(&b, 101);
    fxb_word(&b, 301);
    fxb_arg(&b, 1, "incoming_weight", 7, NULL, 0);
    fxb_end(&b, s);
    s = fxb_begin(&b, 8 | (6u << 20) | (UINT64_C(2) << 60));
    fxb_word(&b, 22);
    fxb_word(&b, 301);
    fxb_end(&b, s);
    s = fxb_begin(&b, 8 | (UINT64_C(3) << 60));
    fxb_word(&b, 23);
    fxb_word(&b, 1);
    fxb_word(&b, 2);
    fxb_end(&b, s);
    s = fxb_begin(&b, 8 | (UINT64_C(4) << 60));
    fxb_end(&b, s);
    /* log */
    s = fxb_begin(&b, 9 | (UINT64_C(16) << 16) | (UINT64_C(1) << 32));
    fxb_word(&b, 24);
    fxb_stream(&b, "sixteen bytes!!!", 16);
    fxb_end(&b, s);
    /* unknown record type 12 */
    s = fxb_begin(&b, 12);
    fxb_word(&b, 0);
    fxb_end(&b, s);
    collect c;
    CHECK_EQ_INT(parse(&b, &c, 1, NULL), TREAD_STATUS_OK);
    int i = 2;
    CHECK_EQ_INT(c.ev[i].kind, TREAD_EVENT_COUNTER);
    CHECK_EQ_STR(c.ev[i].series, "ints");
    CHECK(c.ev[i].value == -3.0);
    CHECK_EQ_INT(c.ev[i].id_num, 42);
    i++;
    CHECK_EQ_STR(c.ev[i].series, "dbl");
    CHECK(c.ev[i].value == 2.5);
    i++;
    CHECK_EQ_INT(c.ev[i].meta, TREAD_META_PROCESS_NAME);
    CHECK_EQ_STR(c.ev[i].meta_str, "proc");
    CHECK_EQ_INT(c.ev[i].pid, 500);
    i++;
    CHECK_EQ_INT(c.ev[i].meta, TREAD_META_THREAD_NAME);
    CHECK_EQ_STR(c.ev[i].meta_str, "thr");
    CHECK_EQ_INT(c.ev[i].tid, 501);
    CHECK_EQ_INT(c.ev[i].pid, 500);
    i++;
    CHECK_EQ_INT(c.ev[i].kind, TREAD_EVENT_OBJECT_NEW);
    CHECK_EQ_STR(c.ev[i].name, "ch");
    CHECK_EQ_INT(c.ev[i].id_num, 502);
    i++;
    CHECK_EQ_INT(c.ev[i].kind, TREAD_EVENT_OBJECT_NEW);
    CHECK_EQ_INT(c.ev[i].id_num, 0xabc);
    CHECK_EQ_INT(c.ev[i].pid, 600);
    i++;
    CHECK_EQ_INT(c.ev[i].kind, TREAD_EVENT_CONTEXT_SWITCH);
    CHECK_EQ_INT(c.ev[i].cpu, 2);
    CHECK_EQ_INT(c.ev[i].tid, 101);
    CHECK_EQ_STR(c.ev[i].args, "out=dict_begin,pid=koid,tid=koid,state=int,prio=int,=dict_end,"
                               "in=dict_begin,pid=koid,tid=koid,prio=int,=dict_end,");
    i++;
    CHECK_EQ_INT(c.ev[i].kind, TREAD_EVENT_CONTEXT_SWITCH);
    CHECK_EQ_INT(c.ev[i].cpu, 5);
    CHECK_EQ_STR(c.ev[i].args, "out=dict_begin,tid=koid,state=int,=dict_end,in=dict_begin,"
                               "tid=koid,=dict_end,incoming_weight=int,");
    i++;
    CHECK_EQ_INT(c.ev[i].kind, TREAD_EVENT_WAKEUP);
    CHECK_EQ_INT(c.ev[i].tid, 301);
    CHECK_EQ_INT(c.ev[i].cpu, 6);
    i++;
    CHECK_EQ_INT(c.ev[i].kind, TREAD_EVENT_LOG);
    CHECK_EQ_STR(c.ev[i].args, "message=string,");
    CHECK_EQ_INT(c.n, i + 1);
    /* the string series; scheduling type 4; record type 12 */
    CHECK_EQ_STR(c.warnings, "bad_counter_value@96;unknown_record@456;unknown_record@496;");
    fxb_free(&b);
}

/* ---- blobs: pieces, large records streamed ---- */

static void test_blobs(void)
{
    fxb b;
    fxb_init(&b);
    fxb_preamble(&b);
    static unsigned char payload[10000];
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (unsigned char)(i * 7);
    size_t s = fxb_begin(&b, 5 | (UINT64_C(2) << 16) | (UINT64_C(5000) << 32) | (UINT64_C(3) << 48));
    fxb_stream(&b, payload, 5000);
    fxb_end(&b, s);
    /* large blob, format 1: category 1, name 2 */
    s = fxb_begin(&b, 15 | (UINT64_C(1) << 40));
    fxb_word(&b, 1 | (2u << 16));
    fxb_word(&b, sizeof payload);
    fxb_stream(&b, payload, sizeof payload);
    fxb_end(&b, s);
    /* format 0 with metadata and an argument, empty payload */
    s = fxb_begin(&b, 15);
    fxb_word(&b, 1 | (2u << 16) | (UINT64_C(1) << 32) | (UINT64_C(1) << 36));
    fxb_word(&b, 33);
    fxb_arg(&b, 1, "k", 5, NULL, 0);
    fxb_word(&b, 0);
    fxb_end(&b, s);
    /* unknown large type: skipped */
    s = fxb_begin(&b, 15 | (UINT64_C(1) << 36));
    fxb_word(&b, 0);
    fxb_end(&b, s);
    s = fxb_event(&b, 0, 0, 1, 1, 2, 99);
    fxb_end(&b, s);
    for (size_t chunk = 0; chunk < 3; chunk++) {
        collect c;
        memset(&c, 0, sizeof c);
        tread_parser *p = tread_parser_create(NULL);
        tread_set_callbacks(p, &callbacks, &c);
        size_t step = chunk == 0 ? b.len : chunk == 1 ? 1 : 4095;
        for (size_t o = 0; o < b.len; o += step)
            CHECK_EQ_INT(tread_feed(p, b.d + o, b.len - o < step ? b.len - o : step), TREAD_STATUS_OK);
        CHECK_EQ_INT(tread_finish(p), TREAD_STATUS_OK);
        /* 5000 = 4096 + 904; 10000 = 4096 * 2 + 1808; the empty payload */
        CHECK_EQ_INT(c.blob_pieces, 2 + 3 + 1);
        CHECK(c.blob_last);
        CHECK_EQ_INT(c.blob_total, 0);
        CHECK_EQ_INT(c.ev[c.n - 1].kind, TREAD_EVENT_INSTANT);
        CHECK_EQ_INT(c.ev[c.n - 1].ts, 99);
        CHECK_EQ_INT(c.ev[2].kind, TREAD_EVENT_BLOB);
        CHECK(c.ev[2].value == 5000);
        CHECK_EQ_INT(c.ev[3].kind, TREAD_EVENT_BLOB);
        CHECK_EQ_STR(c.ev[3].cat, "cat");
        CHECK_EQ_STR(c.ev[4].name, "name");
        CHECK_EQ_INT(c.ev[4].ts, 33);
        CHECK_EQ_STR(c.ev[4].args, "k=int,");
        CHECK(strstr(c.warnings, "unknown_record") != NULL);
        CHECK_EQ_INT(c.nwarn, 1);
        CHECK_EQ_INT(test_format_counter(p, "blob_bytes"), 15000);
        CHECK_EQ_INT(test_format_counter(p, "records_by_type.large"), 3);
        tread_parser_free(p);
    }
    fxb_free(&b);
}

/* ---- damage ---- */

static void test_damage(void)
{
    collect c;
    fxb b;
    fxb_init(&b);
    fxb_preamble(&b);
    size_t s = fxb_event(&b, 0, 1, 1, 1, 2, 1);
    fxb_word(&b, 1 | (UINT64_C(9) << 4)); /* an argument of 9 words in a 3-word record */
    fxb_end(&b, s);
    s = fxb_begin(&b, 2 | (UINT64_C(3) << 16) | (UINT64_C(40) << 32)); /* string past its record */
    fxb_word(&b, 0);
    fxb_end(&b, s);
    size_t after = b.len;
    s = fxb_event(&b, 0, 0, 1, 1, 2, 2);
    fxb_end(&b, s);
    CHECK_EQ_INT(parse(&b, &c, 1, NULL), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.ev[c.n - 1].ts, 2);
    CHECK_EQ_INT(c.nwarn, 2);
    CHECK(strstr(c.warnings, "bad_record") != NULL);

    /* a record of size 0: fatal, with its offset */
    fxb_word(&b, 4);
    fxb_word(&b, 0);
    tread_parser *p;
    CHECK_EQ_INT(parse(&b, &c, 1, &p), TREAD_STATUS_ERROR);
    CHECK_EQ_INT(tread_get_error(p), TREAD_ERROR_SYNTAX);
    CHECK_EQ_INT(tread_get_error_offset(p), after + 16);
    tread_parser_free(p);

    /* cut inside the last record: a warning, not an error */
    b.len = after + 12;
    CHECK_EQ_INT(parse(&b, &c, 1, NULL), TREAD_STATUS_OK);
    char want[64];
    snprintf(want, sizeof want, "truncated_event@%zu;", after);
    CHECK(strstr(c.warnings, want) != NULL);

    /* big-endian magic, at the start and after a little-endian archive */
    fxb be;
    fxb_init(&be);
    static const unsigned char magic_be[8] = {0, 0x16, 0x54, 0x78, 0x46, 0x04, 0, 0x10};
    fxb_stream(&be, magic_be, 8);
    fxb_word(&be, 0);
    CHECK_EQ_INT(parse(&be, &c, 1, &p), TREAD_STATUS_ERROR);
    CHECK_EQ_INT(tread_get_error(p), TREAD_ERROR_UNSUPPORTED);
    tread_stats st;
    tread_get_stats(p, &st);
    CHECK_EQ_INT(st.format, TREAD_FORMAT_FXT);
    tread_parser_free(p);
    b.len = after;
    fxb_stream(&b, magic_be, 8);
    CHECK_EQ_INT(parse(&b, &c, 1, &p), TREAD_STATUS_ERROR);
    CHECK_EQ_INT(tread_get_error(p), TREAD_ERROR_UNSUPPORTED);
    CHECK_EQ_INT(tread_get_error_offset(p), after);
    tread_parser_free(p);
    fxb_free(&be);
    fxb_free(&b);
}

/* ---- concatenated archives ---- */

static void test_concatenated(void)
{
    fxb b;
    fxb_init(&b);
    for (int k = 0; k < 2; k++) {
        fxb_magic(&b);
        fxb_provider_info(&b, 1, k ? "second" : "first");
        fxb_string(&b, 1, k ? "b" : "a");
        if (k == 0)
            fxb_string(&b, 2, "only in the first");
        size_t s = fxb_event(&b, 0, 0, 0, 2, 1, 10 + k);
        fxb_word(&b, 1);
        fxb_word(&b, 1);
        fxb_end(&b, s);
    }
    collect c;
    CHECK_EQ_INT(parse(&b, &c, 1, NULL), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.n, 2);
    CHECK_EQ_STR(c.ev[0].name, "a");
    CHECK_EQ_STR(c.ev[0].cat, "only in the first");
    CHECK_EQ_STR(c.ev[1].name, "b");
    CHECK_EQ_STR(c.ev[1].provider, "second");
    CHECK(c.ev[1].flags & TREAD_CAT_UNRESOLVED); /* provider info reset the table */
    CHECK_EQ_INT(c.nwarn, 1);
    fxb_free(&b);
}

/* ---- chunking and pausing change nothing ---- */

static void test_chunks_and_stops(void)
{
    fxb b;
    fxb_init(&b);
    fxb_preamble(&b);
    static unsigned char payload[9000];
    memset(payload, 0x5a, sizeof payload);
    size_t s = fxb_event(&b, 1, 3, 1, 1, 2, 5);
    fxb_arg(&b, 1, "a", 1, NULL, 0);
    fxb_arg(&b, 2, "b12345678", 2, NULL, 0);
    fxb_arg(&b, 1, "c", 3, NULL, 0);
    fxb_word(&b, 1);
    fxb_end(&b, s);
    s = fxb_begin(&b, 5 | (UINT64_C(2) << 16) | (UINT64_C(9000) << 32) | (UINT64_C(1) << 48));
    fxb_stream(&b, payload, 9000);
    fxb_end(&b, s);
    s = fxb_begin(&b, 15 | (UINT64_C(1) << 40));
    fxb_word(&b, FXB_INLINE(8) | ((uint64_t)FXB_INLINE(3) << 16));
    fxb_stream(&b, "category", 8);
    fxb_stream(&b, "big", 3);
    fxb_word(&b, sizeof payload);
    fxb_stream(&b, payload, sizeof payload);
    fxb_end(&b, s);
    s = fxb_event(&b, 2, 0, 1, 1, 2, 6);
    fxb_end(&b, s);
    s = fxb_begin(&b, 7 | (1u << 16) | ((uint64_t)FXB_INLINE(8) << 24));
    fxb_word(&b, 1);
    fxb_stream(&b, "process!", 8);
    fxb_end(&b, s);
    static const int64_t force[] = {TREAD_OPT_FORMAT, TREAD_FORMAT_FXT, 0};
    dump ref;
    dump_init(&ref);
    dump_parse(&ref, b.d, b.len, 0, force);
    CHECK(strstr(ref.text, "series=\"b12345678\"") != NULL);
    CHECK(strstr(ref.text, "blob type=1 total=9000 got=9000") != NULL);
    CHECK(strstr(ref.text, "blob type=0 total=9000 got=9000") != NULL);
    CHECK(strstr(ref.text, "status=0") != NULL);
    const size_t chunks[] = {1, 3, 8, 13, 4096};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        for (int stops = 0; stops < 2; stops++) {
            dump d;
            dump_init(&d);
            d.stop_every = (size_t)stops;
            dump_parse(&d, b.d, b.len, chunks[i], force);
            CHECK(d.text && strcmp(ref.text, d.text) == 0);
            if (d.text && strcmp(ref.text, d.text) != 0)
                dump_show_difference(ref.text, d.text);
            if (stops)
                CHECK(d.stops >= 8);
            dump_free(&d);
        }
    }
    dump_free(&ref);
    fxb_free(&b);
}

/* ---- the raw hook ---- */

static void test_raw_hook(void)
{
    fxb b;
    fxb_init(&b);
    fxb_preamble(&b);
    size_t at = b.len;
    size_t s = fxb_event(&b, 0, 1, 0, FXB_INLINE(2), 2, 1);
    fxb_word(&b, 1);
    fxb_word(&b, 2);
    fxb_stream(&b, "ab", 2);
    fxb_arg(&b, 0, "nothing", 0, NULL, 0);
    fxb_end(&b, s);
    collect c;
    CHECK_EQ_INT(parse(&b, &c, 1, NULL), TREAD_STATUS_OK);
    CHECK_EQ_INT(c.records, 7);
    CHECK_EQ_INT(c.record_offsets[0], 0);
    CHECK_EQ_INT(c.record_offsets[6], at);
    CHECK_EQ_INT(c.args_offsets[6], 40);
    CHECK_EQ_INT(c.record_types[TREAD_FXT_STRING], 2);
    fxb_free(&b);
}

/* The raw hook's skipped mark: set for the records the decoder skips
 * (they define nothing: tools/split_fxt.c restates no such record, which
 * fuzz_convert found it doing for a string record whose text ran past its
 * end), clear for the others, the fast readers' too, whatever the
 * chunking (a record gathered across feeds takes the general reader). */
static void test_raw_hook_skipped(void)
{
    fxb b;
    fxb_init(&b);
    fxb_preamble(&b); /* 6 records */
    static const int want[] = {0, 0, 0, 0, 0, 0,
                               1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0};
    size_t s = fxb_begin(&b, 2 | (UINT64_C(2) << 16) | (UINT64_C(40) << 32));
    fxb_word(&b, 0); /* string 2 past its record: skipped, "name" stays */
    fxb_end(&b, s);
    fxb_end(&b, fxb_event(&b, 0, 0, 1, 1, 2, 1)); /* a fast reader's record */
    s = fxb_begin(&b, 3 | (UINT64_C(1) << 16));
    fxb_word(&b, 5); /* thread 1 without its tid */
    fxb_end(&b, s);
    fxb_end(&b, fxb_event(&b, 0, 0, 1, 1, 2, 2));
    s = fxb_begin(&b, 0 | (UINT64_C(1) << 16) | (UINT64_C(7) << 20) | (UINT64_C(60) << 52));
    fxb_stream(&b, "prov", 4); /* provider info, name past its record */
    fxb_end(&b, s);
    fxb_end(&b, fxb_event(&b, 0, 0, 1, 1, 2, 3));
    fxb_init_record(&b, 0); /* 0 ticks per second: ignored */
    fxb_end(&b, fxb_event(&b, 0, 0, 1, 1, 2, 4));
    s = fxb_begin(&b, 7 | (UINT64_C(1) << 16) | (UINT64_C(1) << 40));
    fxb_word(&b, 100);
    fxb_word(&b, 1 | (UINT64_C(9) << 4)); /* kernel object, argument overruns */
    fxb_end(&b, s);
    fxb_end(&b, fxb_event(&b, 0, 0, 1, 1, 2, 5));
    s = fxb_begin(&b, 10); /* record type 10: unknown */
    fxb_end(&b, s);
    fxb_end(&b, fxb_event(&b, 0, 0, 1, 1, 2, 6));
    s = fxb_begin(&b, 0 | (UINT64_C(9) << 16)); /* metadata type 9: unknown */
    fxb_end(&b, s);
    fxb_end(&b, fxb_event(&b, 0, 0, 1, 1, 2, 7));
    s = fxb_begin(&b, 15 | (UINT64_C(5) << 36)); /* large type 5: unknown */
    fxb_word(&b, 0);
    fxb_end(&b, s);
    fxb_end(&b, fxb_event(&b, 0, 0, 1, 1, 2, 8));
    fxb_string(&b, 3, "ok");
    size_t n = sizeof want / sizeof want[0];
    static const size_t chunks[] = {1, 8, 13, 4096};
    for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        size_t chunk = chunks[k];
        collect c;
        memset(&c, 0, sizeof c);
        tread_parser *p = tread_parser_create(NULL);
        CHECK_EQ_INT(tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_FXT), 0);
        tread_set_callbacks(p, &callbacks, &c);
        tread_status st = TREAD_STATUS_OK;
        for (size_t o = 0; o < b.len && st == TREAD_STATUS_OK; o += chunk)
            st = tread_feed(p, b.d + o, b.len - o < chunk ? b.len - o : chunk);
        if (st == TREAD_STATUS_OK)
            st = tread_finish(p);
        CHECK_EQ_INT(st, TREAD_STATUS_OK);
        tread_parser_free(p);
        CHECK_EQ_INT(c.records, (int)n);
        for (size_t i = 0; i < n && i < (size_t)c.records; i++)
            if (c.skipped[i] != want[i]) {
                fprintf(stderr, "chunk %zu: record %zu at %" PRIu64 ": skipped %d, want %d\n",
                        chunk, i, c.record_offsets[i], c.skipped[i], want[i]);
                CHECK(0);
            }
        /* what was skipped changed nothing: the events keep their name,
         * thread, provider and rate (the preamble's clock_sync and thread
         * metadata, then the 8 instants) */
        CHECK_EQ_INT(c.n, 10);
        for (int i = 2; i < c.n; i++) {
            CHECK_EQ_INT(c.ev[i].kind, TREAD_EVENT_INSTANT);
            CHECK_EQ_STR(c.ev[i].name, "name");
            CHECK_EQ_INT(c.ev[i].tid, 101);
            CHECK_EQ_INT(c.ev[i].provider_id, 7);
            CHECK_EQ_INT(c.ev[i].ts, i - 1);
        }
    }
    fxb_free(&b);
}

/* ---- metadata odds and ends, limits ---- */

static void test_metadata_and_limits(void)
{
    fxb b;
    fxb_init(&b);
    fxb_preamble(&b);
    fxb_end(&b, fxb_begin(&b, 0 | (UINT64_C(3) << 16) | (UINT64_C(7) << 20)));  /* buffer full */
    fxb_end(&b, fxb_begin(&b, 0 | (UINT64_C(3) << 16) | (UINT64_C(7) << 20) | (UINT64_C(5) << 52)));
    fxb_end(&b, fxb_begin(&b, 0 | (UINT64_C(4) << 16) | (UINT64_C(1) << 20)));  /* trace info 1 */
    fxb_end(&b, fxb_begin(&b, 0 | (UINT64_C(9) << 16)));                        /* metadata 9 */
    fxb_word(&b, UINT64_C(0x0016547846040010));                                  /* magic again */
    size_t s = fxb_event(&b, 0, 0, 1, 1, 2, 3);
    fxb_end(&b, s);
    collect c;
    CHECK_EQ_INT(parse(&b, &c, 1, NULL), TREAD_STATUS_OK);
    CHECK_EQ_STR(c.warnings, "data_loss@96;unknown_record@104;unknown_record@112;unknown_record@120;");
    CHECK_EQ_INT(c.ev[c.n - 1].ts, 3);

    /* a record over TREAD_OPT_MAX_EVENT_BYTES */
    s = fxb_event(&b, 0, 0, 1, 1, 2, 4);
    for (int i = 0; i < 20; i++)
        fxb_word(&b, 0);
    fxb_end(&b, s);
    tread_parser *p = tread_parser_create(NULL);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_MAX_EVENT_BYTES, 64), 0);
    CHECK_EQ_INT(tread_feed(p, b.d, b.len), TREAD_STATUS_ERROR);
    CHECK_EQ_INT(tread_get_error(p), TREAD_ERROR_LIMIT_EVENT);
    CHECK_EQ_INT(tread_get_error_offset(p), s);
    tread_parser_free(p);

    /* strings over TREAD_OPT_MAX_STRING_BYTES, tables over
     * TREAD_OPT_MAX_INTERNED_BYTES */
    fxb t;
    fxb_init(&t);
    fxb_magic(&t);
    fxb_provider_info(&t, 1, "p");
    for (unsigned i = 1; i <= 600; i++)
        fxb_string(&t, i * 50, "a string of some thirty bytes..");
    p = tread_parser_create(NULL);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_MAX_STRING_BYTES, 16), 0);
    CHECK_EQ_INT(tread_feed(p, t.d, t.len), TREAD_STATUS_ERROR);
    CHECK_EQ_INT(tread_get_error(p), TREAD_ERROR_LIMIT_STRING);
    tread_parser_free(p);
    p = tread_parser_create(NULL);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_MAX_INTERNED_BYTES, 8192), 0);
    CHECK_EQ_INT(tread_feed(p, t.d, t.len), TREAD_STATUS_ERROR);
    CHECK_EQ_INT(tread_get_error(p), TREAD_ERROR_LIMIT_MEMORY);
    tread_parser_free(p);
    fxb_free(&t);
    fxb_free(&b);
}

/* A large record whose header word is all the input has, fed a byte at a
 * time: read from the gathered word (fuzz finding). */
static void test_large_header_at_end(void)
{
    fxb b;
    fxb_init(&b);
    fxb_magic(&b);
    size_t s = fxb_begin(&b, 15 | (UINT64_C(10) << 40)); /* blob format 10 */
    fxb_end(&b, s);
    static const int64_t force[] = {TREAD_OPT_FORMAT, TREAD_FORMAT_FXT, 0};
    for (size_t chunk = 0; chunk < 2; chunk++) {
        dump d;
        dump_init(&d);
        dump_parse(&d, b.d, b.len, chunk, force);
        CHECK(strstr(d.text, "warning unknown_record off=8") != NULL);
        CHECK(strstr(d.text, "truncated") == NULL);
        CHECK(strstr(d.text, "status=0") != NULL);
        dump_free(&d);
    }
    fxb_free(&b);
}

/* String records read by the framing loop's fast reader: a raw hook that
 * stops on every record, resumed each time, sees the same records and
 * events as one that never stops, and a string slot rewritten between
 * events names the later events by its new text. */
typedef struct stop_collect {
    collect c;
    int stop_records;
} stop_collect;

static int on_record_stop(void *user, const tread_fxt_record *r)
{
    stop_collect *s = user;
    on_record(&s->c, r);
    return s->stop_records;
}

static int on_event_sc(void *user, const tread_event *e) { return on_event(user, e); }

static void test_string_fast_stops(void)
{
    fxb b;
    fxb_init(&b);
    fxb_preamble(&b);
    for (unsigned i = 0; i < 6; i++) {
        char name[32];
        snprintf(name, sizeof name, "name_%u_%s", i, i % 2 ? "odd" : "even-and-longer");
        fxb_string(&b, 2, name);  /* the same slot, new text */
        fxb_string(&b, 3 + i, "x"); /* new slots */
        size_t s = fxb_event(&b, 0, 0, 1, 1, 2, 2000 + i);
        fxb_end(&b, s);
    }
    static const tread_callbacks cbs = {.event = on_event_sc, .fxt_record = on_record_stop};
    static stop_collect runs[2];
    for (int stop = 0; stop < 2; stop++) {
        stop_collect *sc = &runs[stop];
        memset(sc, 0, sizeof *sc);
        sc->stop_records = stop;
        tread_parser *p = tread_parser_create(NULL);
        CHECK_EQ_INT(tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_FXT), 0);
        tread_set_callbacks(p, &cbs, sc);
        tread_status st = tread_feed(p, b.d, b.len);
        int pauses = 0;
        while (st == TREAD_STATUS_PAUSED && pauses < 1000) {
            pauses++;
            st = tread_resume(p);
        }
        if (st == TREAD_STATUS_OK)
            st = tread_finish(p);
        while (st == TREAD_STATUS_PAUSED && pauses < 1000) {
            pauses++;
            st = tread_resume(p);
        }
        CHECK_EQ_INT(st, TREAD_STATUS_OK);
        if (stop)
            CHECK(pauses >= sc->c.records - 1);
        tread_parser_free(p);
    }
    collect *a = &runs[0].c, *z = &runs[1].c;
    CHECK_EQ_INT(a->records, 6 + 6 * 3);
    CHECK_EQ_INT(z->records, a->records);
    CHECK_EQ_INT(a->record_types[TREAD_FXT_STRING], 2 + 12);
    CHECK_EQ_INT(z->record_types[TREAD_FXT_STRING], a->record_types[TREAD_FXT_STRING]);
    for (int i = 0; i < a->records && i < 64; i++)
        CHECK_EQ_INT(z->record_offsets[i], a->record_offsets[i]);
    CHECK_EQ_INT(a->n, 2 + 6);
    CHECK_EQ_INT(z->n, a->n);
    for (int i = 0; i < a->n; i++)
        CHECK_EQ_STR(z->ev[i].name, a->ev[i].name);
    CHECK_EQ_STR(a->ev[2].name, "name_0_even-and-longer");
    CHECK_EQ_STR(a->ev[7].name, "name_5_odd");
    fxb_free(&b);
}

/* ---- the fast readers against the general one ----
 * Every field of every event, set or not (the flags do not say which of
 * the event's fields were written, so a field left over from the record
 * before would slip past a dump that follows them), for records of every
 * kind the fast readers take, each followed by every other: read whole
 * (the fast readers) and one byte at a time (every record gathered, read
 * by fxt_record). */

typedef struct strict {
    char *text;
    size_t len, cap;
} strict;

static void strict_put(strict *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void strict_put(strict *s, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = (int)sizeof line - 1;
    if (s->len + (size_t)n + 1 > s->cap) {
        s->cap = (s->cap + (size_t)n + 1) * 2;
        s->text = realloc(s->text, s->cap);
        CHECK(s->text != NULL);
        if (!s->text)
            exit(1);
    }
    memcpy(s->text + s->len, line, (size_t)n + 1);
    s->len += (size_t)n;
}

static void strict_str(strict *s, const char *what, tread_str v)
{
    if (!v.ptr)
        strict_put(s, " %s=NULL", what);
    else
        strict_put(s, " %s=\"%.*s\"", what, (int)v.len, v.ptr);
}

static int on_strict(void *user, const tread_event *e)
{
    strict *s = user;
    uint64_t value_bits;
    memcpy(&value_bits, &e->value, sizeof value_bits);
    strict_put(s, "%s flags=%" PRIx32 " ts=%" PRId64 " dur=%" PRId64 " pid=%" PRId64
                  " tid=%" PRId64 " cpu=%" PRId64 " id=%" PRIu64 " track=%" PRIu64 "/%d"
                  " scope=%d meta=%d value=%" PRIx64 "/%" PRId64 " off=%" PRIu64,
               tread_event_kind_name(e->kind), e->flags, e->ts, e->dur, e->pid, e->tid, e->cpu,
               e->id_num, e->track_uuid, (int)e->track_kind, (int)e->scope, (int)e->meta,
               value_bits, e->value_int, e->offset);
    strict_put(s, " flows=%zu/%d", e->flow_ids.n, e->flow_ids.v != NULL);
    for (size_t i = 0; i < e->flow_ids.n; i++)
        strict_put(s, ",%" PRIu64, e->flow_ids.v[i]);
    strict_put(s, " ends=%zu/%d", e->terminating_flow_ids.n, e->terminating_flow_ids.v != NULL);
    for (size_t i = 0; i < e->terminating_flow_ids.n; i++)
        strict_put(s, ",%" PRIu64, e->terminating_flow_ids.v[i]);
    strict_str(s, "name", e->name);
    strict_str(s, "cat", e->cat);
    strict_str(s, "series", e->series);
    strict_str(s, "meta_str", e->meta_str);
    strict_put(s, " args=%d/%zu/%d/%d:", (int)e->args.encoding, e->args.len,
               e->args.data != NULL, e->args.ctx != NULL);
    tread_args_iter it;
    tread_arg a;
    tread_args_iter_init(&it, &e->args);
    while (tread_args_next(&it, &a)) {
        strict_put(s, " %.*s=%s/%d/%" PRIu64, (int)a.key.len, a.key.ptr ? a.key.ptr : "",
                   tread_arg_type_name(a.type), a.depth,
                   a.type == TREAD_ARG_STRING ? (uint64_t)a.v.s.len : a.v.u);
        if (a.type == TREAD_ARG_STRING)
            strict_put(s, "\"%.*s\"", (int)a.v.s.len, a.v.s.ptr);
    }
    strict_put(s, "\n");
    return 0;
}

static void strict_parse(const fxb *b, size_t chunk, strict *s)
{
    memset(s, 0, sizeof *s);
    tread_parser *p = tread_parser_create(NULL);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_FXT), 0);
    const tread_callbacks cb = {.event = on_strict};
    tread_set_callbacks(p, &cb, s);
    tread_status st = TREAD_STATUS_OK;
    for (size_t o = 0; o < b->len && st == TREAD_STATUS_OK; o += chunk)
        st = tread_feed(p, b->d + o, b->len - o < chunk ? b->len - o : chunk);
    if (st == TREAD_STATUS_OK)
        st = tread_finish(p);
    CHECK_EQ_INT(st, TREAD_STATUS_OK);
    tread_parser_free(p);
}

enum { KINDS = 19 };

/* Record k of the kinds the fast readers take (and a few they leave to
 * fxt_record, so that the general reader's events come between). */
static void some_record(fxb *b, int k)
{
    uint64_t v, dbl;
    double x = -0.5;
    memcpy(&dbl, &x, sizeof dbl);
    size_t s;
    switch (k) {
    case 0: /* instant without a scope word, an argument */
        s = fxb_event(b, 0, 1, 1, 1, 2, 1000);
        fxb_arg(b, 1, "n", 5, NULL, 0);
        break;
    case 1: /* instant with a scope word */
        s = fxb_event(b, 0, 0, 1, 1, 2, 1001);
        fxb_word(b, 1);
        break;
    case 2: /* counter with two series */
        s = fxb_event(b, 1, 2, 1, 1, 2, 1002);
        fxb_arg(b, 1, "i", 7, NULL, 0);
        fxb_arg(b, 5, "d", 0, &dbl, 1);
        fxb_word(b, 31);
        break;
    case 3:
    case 4:
        s = fxb_event(b, (unsigned)k - 1, 0, 1, 1, 2, 1003);
        break;
    case 5: /* complete, inline thread and name */
        s = fxb_event(b, 4, 0, 0, 1, FXB_INLINE(3), 1004);
        fxb_word(b, 900);
        fxb_word(b, 901);
        fxb_stream(b, "abc", 3);
        fxb_word(b, 2000);
        break;
    case 6:
    case 7:
    case 8:
    case 9:
    case 10:
    case 11: /* async and flow: an id word */
        s = fxb_event(b, (unsigned)k - 1, 1, 1, 1, 2, 1000 + (uint64_t)k);
        fxb_arg(b, 6, "s", FXB_INLINE(2), (v = 'h' | 'i' << 8, &v), 1);
        fxb_word(b, 40 + (uint64_t)k);
        break;
    case 12: /* context switch with an argument */
        s = fxb_begin(b, 8 | (1u << 16) | (3u << 20) | (UINT64_C(2) << 36) | (UINT64_C(1) << 60));
        fxb_word(b, 1012);
        fxb_word(b, 101);
        fxb_word(b, 301);
        fxb_arg(b, 1, "w", 7, NULL, 0);
        break;
    case 13: /* wakeup, no arguments */
        s = fxb_begin(b, 8 | (4u << 20) | (UINT64_C(2) << 60));
        fxb_word(b, 1013);
        fxb_word(b, 301);
        break;
    case 14: /* legacy context switch (general reader) */
        s = fxb_begin(b, 8 | (2u << 16) | (3u << 24) | (UINT64_C(1) << 28) | (UINT64_C(9) << 44));
        fxb_word(b, 1014);
        fxb_word(b, 300);
        fxb_word(b, 301);
        break;
    case 15: /* log, its thread from the table */
        s = fxb_begin(b, 9 | (UINT64_C(5) << 16) | (UINT64_C(1) << 32));
        fxb_word(b, 1015);
        fxb_stream(b, "hello", 5);
        break;
    case 16: /* thread record */
        s = fxb_begin(b, 3 | (2u << 16));
        fxb_word(b, 700);
        fxb_word(b, 701);
        break;
    case 17: /* kernel object: a thread's name (general reader) */
        s = fxb_begin(b, 7 | (2u << 16) | ((uint64_t)FXB_INLINE(3) << 24) | (UINT64_C(1) << 40));
        fxb_word(b, 501);
        fxb_stream(b, "thr", 3);
        fxb_arg(b, 8, "process", 0, (v = 500, &v), 1);
        break;
    default: /* a string record */
        fxb_string(b, 3, "strung");
        return;
    }
    fxb_end(b, s);
}

static void test_fast_readers_match(void)
{
    fxb b;
    fxb_init(&b);
    fxb_magic(&b);
    fxb_provider_info(&b, 7, "prov");
    fxb_init_record(&b, 25000000); /* 40 ns a tick: the rate's multiply path */
    fxb_string(&b, 1, "cat");
    fxb_string(&b, 2, "name");
    fxb_thread(&b, 1, 100, 101);
    for (int i = 0; i < KINDS; i++)
        for (int j = 0; j < KINDS; j++) {
            some_record(&b, i);
            some_record(&b, j);
        }
    strict whole, bytes;
    strict_parse(&b, b.len, &whole);
    strict_parse(&b, 1, &bytes);
    CHECK(whole.text && bytes.text && strcmp(whole.text, bytes.text) == 0);
    if (whole.text && bytes.text && strcmp(whole.text, bytes.text) != 0)
        dump_show_difference(bytes.text, whole.text);
    /* what the records make, so that the comparison is of something */
    CHECK(whole.text && strstr(whole.text, "counter flags") != NULL);
    CHECK(whole.text && strstr(whole.text, "out=dict_begin") != NULL);
    CHECK(whole.text && strstr(whole.text, "message=string/0/5\"hello\"") != NULL);
    CHECK(whole.text && strstr(whole.text, " scope=2 ") != NULL);
    CHECK(whole.text && strstr(whole.text, "flows=1/1,49") != NULL);
    CHECK(whole.text && strstr(whole.text, "ends=1/1,51") != NULL);
    CHECK(whole.text && strstr(whole.text, " dur=39840 ") != NULL);
    free(whole.text);
    free(bytes.text);
    fxb_free(&b);
}

/* A large blob that ends the input, whose last piece's callback asks to
 * stop: after tread_resume the record is complete, and tread_finish must
 * not call it truncated (found by fuzz_fxt: the payload stayed in its
 * phase, and finish only moved on the header phases). */
static int stop_on_last(void *user, const tread_blob *b)
{
    int *pieces = user;
    (*pieces)++;
    return b->last;
}

static int count_warning(void *user, const tread_warning *w)
{
    (void)w;
    ((int *)user)[1]++; /* counts: pieces, then warnings */
    return 0;
}

static void test_large_stop_on_last_piece(void)
{
    fxb b;
    fxb_init(&b);
    fxb_preamble(&b);
    static unsigned char payload[9000];
    memset(payload, 0x33, sizeof payload);
    size_t s = fxb_begin(&b, 15 | (UINT64_C(1) << 40));
    fxb_word(&b, FXB_INLINE(8) | ((uint64_t)FXB_INLINE(3) << 16));
    fxb_stream(&b, "category", 8);
    fxb_stream(&b, "big", 3);
    fxb_word(&b, sizeof payload);
    fxb_stream(&b, payload, sizeof payload);
    fxb_end(&b, s);
    int counts[2] = {0, 0}; /* pieces, warnings */
    tread_parser *p = tread_parser_create(NULL);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_FXT), 0);
    const tread_callbacks cb = {.blob = stop_on_last, .warning = count_warning};
    tread_set_callbacks(p, &cb, counts);
    CHECK_EQ_INT(tread_feed(p, b.d, b.len), TREAD_STATUS_PAUSED);
    CHECK_EQ_INT(counts[0], 3);
    CHECK_EQ_INT(tread_resume(p), TREAD_STATUS_OK);
    CHECK_EQ_INT(tread_finish(p), TREAD_STATUS_OK);
    CHECK_EQ_INT(counts[1], 0);
    tread_stats st;
    tread_get_stats(p, &st);
    CHECK_EQ_INT(st.warnings, 0);
    tread_parser_free(p);
    fxb_free(&b);
}

int main(void)
{
    test_event_types();
    test_inline();
    test_tables();
    test_ticks();
    test_other_records();
    test_blobs();
    test_damage();
    test_concatenated();
    test_chunks_and_stops();
    test_raw_hook();
    test_raw_hook_skipped();
    test_metadata_and_limits();
    test_large_header_at_end();
    test_string_fast_stops();
    test_fast_readers_match();
    test_large_stop_on_last_piece();
    return TEST_EXIT();
}
