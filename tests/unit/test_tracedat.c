/* trace.dat (TREAD_FORMAT_TRACEDAT) on files built here: a v6 file with
 * two CPUs read as a file (merged by timestamp) and as a stream (CPU after
 * CPU) in every chunk size 1..97 and with a stop after every event, the
 * lost-events flag, and hostile headers (each a clear error at its byte).
 * Recordings of the real kernel are checked by tests/tracedat_report.sh. */
#include <stdlib.h>
#include <unistd.h>
#include "testlib.h"

typedef struct bld { unsigned char *b; size_t n, cap; } bld;
static void put(bld *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->b = realloc(b->b, b->cap);
    }
    memcpy(b->b + b->n, p, n);
    b->n += n;
}
static void u16(bld *b, uint16_t v) { put(b, &v, 2); } /* little-endian host */
static void u32(bld *b, uint32_t v) { put(b, &v, 4); }
static void u64(bld *b, uint64_t v) { put(b, &v, 8); }
static void str(bld *b, const char *s) { put(b, s, strlen(s) + 1); }

static const char HDR_PAGE[] =
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
static const char FMT[] =
    "name: sched_switch\nID: 5\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:pid_t next_pid;\toffset:28;\tsize:4;\tsigned:1;\n\n"
    "print fmt: \"x\"\n";

/* A page of n switches from time t0, 10 ns apart; lost: the missed flag. */
static void page(bld *b, uint64_t t0, int n, int pid0, int lost)
{
    size_t start = b->n;
    u64(b, t0);
    u64(b, (uint64_t)n * 36 | (lost ? (1ull << 31) : 0));
    for (int i = 0; i < n; i++) {
        u32(b, 8u | ((i ? 10u : 0u) << 5)); /* type_len 8: 32 bytes */
        u16(b, 5);
        u16(b, 0);
        u32(b, (uint32_t)(pid0 + i));
        char comm[16] = "task";
        put(b, comm, 16);
        u32(b, (uint32_t)(pid0 + i));
        u32(b, (uint32_t)(pid0 + i + 1));
    }
    while (b->n < start + 4096)
        put(b, "", 1);
}

/* The v6 file; the hostile variants patch it. */
static bld make(uint32_t page_size, uint64_t fmt_size, uint32_t cpus, int lost)
{
    bld b = {0};
    put(&b, "\x17\x08\x44tracing", 10);
    str(&b, "6");
    put(&b, "\0\x08", 2);
    u32(&b, page_size);
    put(&b, "header_page", 12);
    u64(&b, sizeof HDR_PAGE - 1);
    put(&b, HDR_PAGE, sizeof HDR_PAGE - 1);
    put(&b, "header_event", 13);
    u64(&b, 0);
    u32(&b, 0);          /* ftrace formats */
    u32(&b, 1);          /* systems */
    str(&b, "sched");
    u32(&b, 1);
    u64(&b, fmt_size ? fmt_size : sizeof FMT - 1);
    put(&b, FMT, sizeof FMT - 1);
    u32(&b, 0);          /* kallsyms */
    u32(&b, 0);          /* printk */
    u64(&b, 0);          /* cmdlines */
    u32(&b, cpus);
    put(&b, "options  ", 10);
    u16(&b, 0);
    put(&b, "flyrecord", 10);
    size_t table = b.n;
    for (uint32_t i = 0; i < 2 && i < cpus; i++) {
        u64(&b, 0);
        u64(&b, 0);
    }
    while (b.n % 4096)
        put(&b, "", 1);
    uint64_t off0 = b.n;
    page(&b, 1000, 5, 100, 0);  /* cpu 0: 1000 .. 1040 */
    page(&b, 2000, 3, 200, 0);  /* cpu 0: 2000 .. 2020 */
    uint64_t off1 = b.n;
    page(&b, 1005, 4, 300, lost); /* cpu 1: 1005 .. 1035 */
    if (cpus >= 2) {
        memcpy(b.b + table, &off0, 8);
        uint64_t s0 = 8192, s1 = 4096;
        memcpy(b.b + table + 8, &s0, 8);
        memcpy(b.b + table + 16, &off1, 8);
        memcpy(b.b + table + 24, &s1, 8);
    }
    return b;
}

typedef struct dump { char text[8192]; size_t n; int stop; int warns; char warn[256]; } dump;
static int on_event(void *u, const tread_event *e)
{
    dump *d = u;
    tread_arg a;
    long long next = -1;
    if (tread_args_find(&e->args, "next_pid", 8, &a) && a.type == TREAD_ARG_INT)
        next = (long long)a.v.i;
    d->n += (size_t)snprintf(d->text + d->n, sizeof d->text - d->n, "%s %lld c%lld t%lld %.*s n%lld\n",
                             tread_event_kind_name(e->kind), (long long)e->ts, (long long)e->cpu,
                             (long long)e->tid, (int)e->name.len, e->name.ptr, next);
    return d->stop;
}
static int on_warn(void *u, const tread_warning *w)
{
    dump *d = u;
    d->warns++;
    snprintf(d->warn, sizeof d->warn, "%s@%llu %s", tread_warning_name(w->kind),
             (unsigned long long)w->offset, w->message);
    return 0;
}

static tread_status feed(const bld *b, size_t chunk, int stop, dump *d)
{
    tread_parser *p = tread_parser_create(NULL);
    tread_callbacks cb = {0};
    cb.event = on_event;
    cb.warning = on_warn;
    memset(d, 0, sizeof *d);
    d->stop = stop;
    tread_set_callbacks(p, &cb, d);
    tread_status st = TREAD_STATUS_OK;
    for (size_t i = 0; i < b->n && st != TREAD_STATUS_ERROR; i += chunk) {
        size_t n = b->n - i < chunk ? b->n - i : chunk;
        st = tread_feed(p, b->b + i, n);
        while (st == TREAD_STATUS_PAUSED)
            st = tread_resume(p);
    }
    if (st != TREAD_STATUS_ERROR) {
        st = tread_finish(p);
        while (st == TREAD_STATUS_PAUSED)
            st = tread_resume(p);
    }
    if (st == TREAD_STATUS_ERROR)
        snprintf(d->warn, sizeof d->warn, "%s@%llu %s", tread_error_name(tread_get_error(p)),
                 (unsigned long long)tread_get_error_offset(p), tread_get_error_message(p));
    tread_parser_free(p);
    return st;
}

static tread_status from_file(const bld *b, dump *d)
{
    char path[] = "/tmp/test_tracedat_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, b->b, b->n) != (ssize_t)b->n)
        return TREAD_STATUS_ERROR;
    close(fd);
    tread_parser *p = tread_parser_create(NULL);
    tread_callbacks cb = {0};
    cb.event = on_event;
    cb.warning = on_warn;
    memset(d, 0, sizeof *d);
    tread_set_callbacks(p, &cb, d);
    tread_status st = tread_parse_path(p, path);
    if (st == TREAD_STATUS_ERROR)
        snprintf(d->warn, sizeof d->warn, "%s@%llu %s", tread_error_name(tread_get_error(p)),
                 (unsigned long long)tread_get_error_offset(p), tread_get_error_message(p));
    tread_parser_free(p);
    unlink(path);
    return st;
}

int main(void)
{
    bld b = make(4096, 0, 2, 0);
    dump whole, d;
    /* the file: merged by time */
    CHECK_EQ_INT(from_file(&b, &whole), TREAD_STATUS_OK);
    CHECK_EQ_STR(whole.text,
                 "context_switch 1000 c0 t100 sched_switch n101\n"
                 "context_switch 1005 c1 t300 sched_switch n301\n"
                 "context_switch 1010 c0 t101 sched_switch n102\n"
                 "context_switch 1015 c1 t301 sched_switch n302\n"
                 "context_switch 1020 c0 t102 sched_switch n103\n"
                 "context_switch 1025 c1 t302 sched_switch n303\n"
                 "context_switch 1030 c0 t103 sched_switch n104\n"
                 "context_switch 1035 c1 t303 sched_switch n304\n"
                 "context_switch 1040 c0 t104 sched_switch n105\n"
                 "context_switch 2000 c0 t200 sched_switch n201\n"
                 "context_switch 2010 c0 t201 sched_switch n202\n"
                 "context_switch 2020 c0 t202 sched_switch n203\n");
    /* a stream: cpu after cpu, the same at every chunking and with stops */
    dump ref;
    CHECK_EQ_INT(feed(&b, b.n, 0, &ref), TREAD_STATUS_OK);
    CHECK_EQ_STR(ref.text,
                 "context_switch 1000 c0 t100 sched_switch n101\n"
                 "context_switch 1010 c0 t101 sched_switch n102\n"
                 "context_switch 1020 c0 t102 sched_switch n103\n"
                 "context_switch 1030 c0 t103 sched_switch n104\n"
                 "context_switch 1040 c0 t104 sched_switch n105\n"
                 "context_switch 2000 c0 t200 sched_switch n201\n"
                 "context_switch 2010 c0 t201 sched_switch n202\n"
                 "context_switch 2020 c0 t202 sched_switch n203\n"
                 "context_switch 1005 c1 t300 sched_switch n301\n"
                 "context_switch 1015 c1 t301 sched_switch n302\n"
                 "context_switch 1025 c1 t302 sched_switch n303\n"
                 "context_switch 1035 c1 t303 sched_switch n304\n");
    for (size_t chunk = 1; chunk <= 97; chunk++) {
        CHECK_EQ_INT(feed(&b, chunk, chunk % 2, &d), TREAD_STATUS_OK);
        CHECK_EQ_STR(d.text, ref.text);
    }
    CHECK_EQ_INT(feed(&b, 4096, 1, &d), TREAD_STATUS_OK);
    CHECK_EQ_STR(d.text, ref.text);
    free(b.b);

    /* lost events: a counted data_loss warning naming the cpu */
    b = make(4096, 0, 2, 1);
    CHECK_EQ_INT(from_file(&b, &d), TREAD_STATUS_OK);
    CHECK_EQ_INT(d.warns, 1);
    CHECK(strstr(d.warn, "data_loss@") && strstr(d.warn, "cpu 1 lost events"));
    free(b.b);

    /* hostile headers */
    b = make(3000, 0, 2, 0);
    CHECK_EQ_INT(feed(&b, b.n, 0, &d), TREAD_STATUS_ERROR);
    CHECK(strstr(d.warn, "syntax@14 page size 3000") != NULL);
    free(b.b);
    b = make(4096, (uint64_t)1 << 40, 2, 0);
    CHECK_EQ_INT(feed(&b, b.n, 0, &d), TREAD_STATUS_ERROR);
    CHECK(strstr(d.warn, "limit_memory@") && strstr(d.warn, "max-tracedat-meta-bytes"));
    free(b.b);
    b = make(4096, 0, 100000, 0);
    CHECK_EQ_INT(from_file(&b, &d), TREAD_STATUS_ERROR);
    CHECK(strstr(d.warn, "100000 CPUs") != NULL);
    free(b.b);
    /* cut inside the header: an error; inside the data: a warning */
    b = make(4096, 0, 2, 0);
    bld cut = b;
    cut.n = 200;
    CHECK_EQ_INT(feed(&cut, 7, 0, &d), TREAD_STATUS_ERROR);
    CHECK(strstr(d.warn, "header") != NULL);
    cut.n = b.n - 100;
    CHECK_EQ_INT(feed(&cut, 1000, 0, &d), TREAD_STATUS_OK);
    CHECK(strstr(d.warn, "truncated_event") != NULL);
    free(b.b);
    return TEST_EXIT();
}
