/* trace.dat (TREAD_FORMAT_TRACEDAT) on files built here: a v6 file with
 * two CPUs read as a file (merged by timestamp) and as a stream (CPU after
 * CPU) in every chunk size 1..97 and with a stop after every event, the
 * lost-events flag, and hostile headers (each a clear error at its byte).
 * Recordings of the real kernel are checked by tests/tracedat_report.sh. */
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "testlib.h"

typedef struct bld { unsigned char *b; size_t n, cap; } bld;

/* What a file is made of: byte order, long size (4: a 32-bit kernel, its
 * commit a u32 and the data at 12), version, v7 compression. */
typedef struct shape { int be, long_size, version; const char *comp; } shape;
static shape S; /* the file being built */

static void put(bld *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->b = realloc(b->b, b->cap);
    }
    if (n)
        memcpy(b->b + b->n, p, n);
    b->n += n;
}
static void uint_(bld *b, uint64_t v, int n)
{
    unsigned char t[8];
    for (int i = 0; i < n; i++)
        t[S.be ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
    put(b, t, (size_t)n);
}
static void u16(bld *b, uint16_t v) { uint_(b, v, 2); }
static void u32(bld *b, uint32_t v) { uint_(b, v, 4); }
static void u64(bld *b, uint64_t v) { uint_(b, v, 8); }
static void patch64(bld *b, size_t at, uint64_t v)
{
    bld t = {0};
    u64(&t, v);
    memcpy(b->b + at, t.b, 8);
    free(t.b);
}
static void str(bld *b, const char *s) { put(b, s, strlen(s) + 1); }
static void pad(bld *b, size_t to)
{
    while (b->n % to)
        put(b, "", 1);
}

static char HDR_PAGE[512];
static void header_page_text(void)
{
    snprintf(HDR_PAGE, sizeof HDR_PAGE,
             "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
             "\tfield: local_t commit;\toffset:8;\tsize:%d;\tsigned:1;\n"
             "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
             "\tfield: char data;\toffset:%d;\tsize:%d;\tsigned:1;\n",
             S.long_size, 8 + S.long_size, 4096 - 8 - S.long_size);
}
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
    /* lost: RB_MISSED_EVENTS | RB_MISSED_STORED, an int's bits 31 and 30
     * sign-extended into a 64-bit local_t as the kernel leaves them, and
     * the count (7) stored after the data */
    uint64_t commit = (uint64_t)n * 36 | (lost ? 0xffffffffc0000000ull : 0);
    uint_(b, commit, S.long_size);
    for (int i = 0; i < n; i++) {
        uint32_t delta = i ? 10u : 0u, type_len = 8; /* 32 bytes */
        u32(b, S.be ? type_len << 27 | delta : type_len | delta << 5);
        u16(b, 5);
        u16(b, 0);
        u32(b, (uint32_t)(pid0 + i));
        char comm[16] = "task";
        put(b, comm, 16);
        u32(b, (uint32_t)(pid0 + i));
        u32(b, (uint32_t)(pid0 + i + 1));
    }
    if (lost)
        uint_(b, 7, S.long_size);
    while (b->n < start + 4096)
        put(b, "", 1);
}

/* cpu 0: two pages (1000 .. 1040, 2000 .. 2020), cpu 1: one (1005 .. 1035) */
static void cpu_pages(bld *b, int cpu, int lost)
{
    if (cpu == 0) {
        page(b, 1000, 5, 100, 0);
        page(b, 2000, 3, 200, 0);
    } else {
        page(b, 1005, 4, 300, lost);
    }
}

static size_t deflate_(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
    if (strcmp(S.comp, "zstd") == 0) {
        size_t r = ZSTD_compress(out, cap, in, n, 3);
        if (ZSTD_isError(r))
            abort();
        return r;
    }
    uLongf ol = (uLongf)cap;
    if (compress2(out, &ol, in, (uLong)n, 6) != Z_OK)
        abort();
    return (size_t)ol;
}

/* A v7 section: id, flags (compressed when the file is), its content. */
static void section(bld *b, uint16_t id, const bld *content, int compress)
{
    u16(b, id);
    u16(b, compress ? 1 : 0);
    u32(b, 0);
    if (!compress) {
        u64(b, content->n);
        put(b, content->b, content->n);
        return;
    }
    size_t cap = content->n + 1024;
    unsigned char *z = malloc(cap);
    size_t zn = deflate_(content->b, content->n, z, cap);
    u64(b, zn + 8);
    u32(b, (uint32_t)zn);
    u32(b, (uint32_t)content->n);
    put(b, z, zn);
    free(z);
}

static bld make_v7(uint32_t cpus, int lost)
{
    int comp = strcmp(S.comp, "none") != 0;
    bld b = {0}, c = {0};
    header_page_text();
    put(&b, "\x17\x08\x44tracing", 10);
    str(&b, "7");
    put(&b, S.be ? "\1" : "\0", 1);
    put(&b, S.long_size == 8 ? "\x08" : "\x04", 1);
    u32(&b, 4096);
    str(&b, S.comp);
    str(&b, comp ? "1" : "");
    size_t optoff_at = b.n;
    u64(&b, 0);
    /* header info */
    put(&c, "header_page", 12);
    u64(&c, strlen(HDR_PAGE));
    put(&c, HDR_PAGE, strlen(HDR_PAGE));
    put(&c, "header_event", 13);
    u64(&c, 0);
    section(&b, 16, &c, comp);
    c.n = 0;
    u32(&c, 1);
    str(&c, "sched");
    u32(&c, 1);
    u64(&c, sizeof FMT - 1);
    put(&c, FMT, sizeof FMT - 1);
    section(&b, 18, &c, comp);
    /* the flyrecord section: its data page-aligned; compressed, in chunks
     * of one page (cpu 0) or two (cpu 1) */
    u16(&b, 3);
    u16(&b, comp ? 1 : 0);
    u32(&b, 0);
    size_t fly_size_at = b.n, fly_at = b.n - 8;
    u64(&b, 0);
    pad(&b, 4096);
    uint64_t off[2], size[2];
    for (int cpu = 0; cpu < 2; cpu++) {
        bld raw = {0};
        cpu_pages(&raw, cpu, lost);
        off[cpu] = b.n;
        if (!comp) {
            put(&b, raw.b, raw.n);
        } else {
            size_t per = cpu == 0 ? 4096 : 8192, nchunks = (raw.n + per - 1) / per;
            u32(&b, (uint32_t)nchunks);
            for (size_t k = 0; k < nchunks; k++) {
                size_t n = raw.n - k * per < per ? raw.n - k * per : per;
                unsigned char z[16384];
                size_t zn = deflate_(raw.b + k * per, n, z, sizeof z);
                u32(&b, (uint32_t)zn);
                u32(&b, (uint32_t)n);
                put(&b, z, zn);
            }
        }
        size[cpu] = b.n - off[cpu];
        free(raw.b);
    }
    patch64(&b, fly_size_at, b.n - fly_at - 16);
    /* the options, with the BUFFER option, at the end (as trace-cmd) */
    patch64(&b, optoff_at, b.n);
    c.n = 0;
    bld o = {0};
    u64(&o, fly_at);
    str(&o, "");
    str(&o, "local");
    u32(&o, 4096);
    u32(&o, cpus);
    for (uint32_t i = 0; i < 2 && i < cpus; i++) {
        u32(&o, i);
        u64(&o, off[i]);
        u64(&o, size[i]);
    }
    for (uint32_t i = 2; i < cpus && i < 64; i++) {
        u32(&o, i);
        u64(&o, 0);
        u64(&o, 0);
    }
    u16(&c, 3);
    u32(&c, (uint32_t)o.n);
    put(&c, o.b, o.n);
    u16(&c, 0);
    u32(&c, 8);
    u64(&c, 0);
    section(&b, 0, &c, 0);
    free(o.b);
    free(c.b);
    return b;
}

/* The v6 file; the hostile variants patch it. */
static bld make(uint32_t page_size, uint64_t fmt_size, uint32_t cpus, int lost)
{
    if (S.version == 7)
        return make_v7(cpus, lost);
    bld b = {0};
    header_page_text();
    put(&b, "\x17\x08\x44tracing", 10);
    str(&b, "6");
    put(&b, S.be ? "\1" : "\0", 1);
    put(&b, S.long_size == 8 ? "\x08" : "\x04", 1);
    u32(&b, page_size);
    put(&b, "header_page", 12);
    u64(&b, strlen(HDR_PAGE));
    put(&b, HDR_PAGE, strlen(HDR_PAGE));
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
    pad(&b, 4096);
    uint64_t off0 = b.n;
    cpu_pages(&b, 0, lost);
    uint64_t off1 = b.n;
    cpu_pages(&b, 1, lost);
    if (cpus >= 2) {
        patch64(&b, table, off0);
        patch64(&b, table + 8, off1 - off0);
        patch64(&b, table + 16, off1);
        patch64(&b, table + 24, b.n - off1);
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

static const char FILE_ORDER[] =
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
    "context_switch 2020 c0 t202 sched_switch n203\n";
static const char STREAM_ORDER[] =
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
    "context_switch 1035 c1 t303 sched_switch n304\n";

static void seed(const char *dir, const char *name, const bld *b)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(b->b, 1, b->n, f);
        fclose(f);
    }
}

/* Every byte order, word size, version and compression gives the same
 * events: merged by time from a file; a v6 stream CPU after CPU at every
 * chunking, with stops; a v7 stream refused, saying why. */
static void shapes(void)
{
    static const shape all[] = {
        {0, 8, 6, "none"}, {1, 8, 6, "none"}, {0, 4, 6, "none"}, {1, 4, 6, "none"},
        {0, 8, 7, "none"}, {1, 8, 7, "none"}, {0, 8, 7, "zstd"}, {1, 4, 7, "zstd"},
        {0, 8, 7, "zlib"}, {1, 8, 7, "zlib"},
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        S = all[i];
        fprintf(stderr, "shape: %s-endian, long %d, v%d, %s\n", S.be ? "big" : "little",
                S.long_size, S.version, S.comp);
        bld b = make(4096, 0, 2, 0);
        dump d;
        CHECK_EQ_INT(from_file(&b, &d), TREAD_STATUS_OK);
        CHECK_EQ_STR(d.text, FILE_ORDER);
        CHECK_EQ_INT(d.warns, 0);
        if (S.version == 6) {
            for (size_t chunk = 1; chunk <= 97; chunk++) {
                CHECK_EQ_INT(feed(&b, chunk, chunk % 2, &d), TREAD_STATUS_OK);
                CHECK_EQ_STR(d.text, STREAM_ORDER);
            }
            CHECK_EQ_INT(feed(&b, 4096, 1, &d), TREAD_STATUS_OK);
            CHECK_EQ_STR(d.text, STREAM_ORDER);
        } else {
            CHECK_EQ_INT(feed(&b, 1000, 0, &d), TREAD_STATUS_ERROR);
            CHECK(strstr(d.warn, "unsupported@") && strstr(d.warn, "BUFFER option"));
        }
        /* lost events: a counted data_loss warning naming the cpu */
        free(b.b);
        b = make(4096, 0, 2, 1);
        CHECK_EQ_INT(from_file(&b, &d), TREAD_STATUS_OK);
        CHECK_EQ_INT(d.warns, 1);
        CHECK(strstr(d.warn, "data_loss@") && strstr(d.warn, "cpu 1 lost 7 events"));
        CHECK_EQ_STR(d.text, FILE_ORDER);
        free(b.b);
    }
    S = all[0];
}

int main(int argc, char **argv)
{
    S = (shape){0, 8, 6, "none"};
    if (argc > 1) { /* writes the fuzz seeds (fuzz/seeds/tracedat/) */
        bld b = make(4096, 0, 2, 0), l = make(4096, 0, 2, 1);
        seed(argv[1], "v6_two_cpus.dat", &b);
        seed(argv[1], "v6_lost.dat", &l);
        S = (shape){1, 4, 6, "none"};
        bld be = make(4096, 0, 2, 0);
        seed(argv[1], "v6_be32.dat", &be);
        return 0;
    }
    shapes();
    bld b;
    dump d;

    /* hostile headers: each a clear error at its byte */
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
    S.version = 7;
    b = make(4096, 0, 5000, 0);
    CHECK_EQ_INT(from_file(&b, &d), TREAD_STATUS_ERROR);
    CHECK(strstr(d.warn, "a buffer of 5000 CPUs") != NULL);
    free(b.b);
    S.version = 6;
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
