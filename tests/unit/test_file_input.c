/* tread_parse_fd / tread_parse_path and the read-ahead thread
 * (TREAD_OPT_READ_THREAD): a file read ahead on the thread gives what the
 * caller's thread reading it gives, and what tread_feed of its bytes
 * gives; plain, gzip and zstd; whole and with stops; when the thread is
 * used (a regular file, no byte range) and when not (a pipe, a range, the
 * option 0); read errors; freed while paused with the thread reading. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "compress.h"
#include "event_dump.h"
#include "fxt_build.h"
#include "testlib.h"

/* ~1.3 MB of JSON, many read-ahead pieces (128 KiB each, a ring of 4) */
static char *make_trace(size_t *len)
{
    size_t cap = 4u << 20, n = 0;
    char *t = malloc(cap);
    uint64_t x = 0x2545f4914f6cdd1du;
    n += (size_t)snprintf(t + n, cap - n, "{\"traceEvents\":[");
    for (int i = 0; i < 12000; i++) {
        uint64_t r = test_rand(&x);
        n += (size_t)snprintf(t + n, cap - n,
                              "%s{\"ph\":\"%c\",\"name\":\"f%05x\",\"cat\":\"c%u\",\"pid\":%u,"
                              "\"tid\":%u,\"ts\":%d,\"dur\":%u,\"args\":{\"k\":%u}}\n",
                              i ? "," : "", "XBEi"[r % 4], (unsigned)(r >> 8) & 0xfffff,
                              (unsigned)(r >> 40) % 5, (unsigned)(r >> 20) % 3,
                              (unsigned)(r >> 30) % 9, i, (unsigned)(r >> 44) % 500,
                              (unsigned)(r >> 50));
    }
    n += (size_t)snprintf(t + n, cap - n, "]}");
    *len = n;
    return t;
}

static void write_file(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK_EQ_INT(fwrite(buf, 1, len, f), (long long)len);
    fclose(f);
}

/* The dump of tread_parse_fd on path, stopping every stop events. */
static char *parse_file(const char *path, int64_t thread, size_t stop)
{
    dump d;
    dump_init(&d);
    d.stop_every = stop;
    const int64_t opts[] = {TREAD_OPT_READ_THREAD, thread, 0};
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    dump_parse_fd(&d, fd, opts);
    close(fd);
    return d.text;
}

static char *parse_bytes(const void *buf, size_t len)
{
    dump d;
    dump_init(&d);
    dump_parse(&d, buf, len, 0, NULL);
    return d.text;
}

/* Threads of this process, from /proc (-1 where there is none). */
static int thread_count(void)
{
    DIR *dir = opendir("/proc/self/task");
    if (!dir)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL)
        n += e->d_name[0] != '.';
    closedir(dir);
    return n;
}

/* The thread count once threads that have ended are gone from
 * /proc/self/task: a joined thread may still be listed for a moment (the
 * kernel reaps it after pthread_join returns), longer on a loaded host.
 * Waits (up to 5 s) for at most want threads. */
static int idle_threads; /* the count before any parse */
static int settled_thread_count(int want)
{
    int n = thread_count();
    for (int i = 0; i < 500 && n > want; i++) {
        nanosleep(&(struct timespec){0, 10000000}, NULL);
        n = thread_count();
    }
    return n;
}

static int stop_at_once(void *user, const tread_event *ev)
{
    (void)ev;
    ++*(int *)user;
    return 1;
}

/* Threads alive while a parse of fd is paused at its first event, beyond
 * those before (a sanitizer's runtime may have one of its own, started
 * with the first thread: earlier tests have made one); the parser is then
 * freed with its reader mid-file. A file is read from its start. */
static int threads_while_paused(int fd, const int64_t *opts)
{
    int events = 0, before = settled_thread_count(idle_threads);
    (void)lseek(fd, 0, SEEK_SET); /* a file from its start (a pipe: ESPIPE) */
    tread_parser *p = tread_parser_create(NULL);
    for (; opts && opts[0]; opts += 2)
        CHECK_EQ_INT(tread_config(p, (tread_option)opts[0], opts[1]), 0);
    tread_callbacks cb = {.event = stop_at_once};
    tread_set_callbacks(p, &cb, &events);
    CHECK_EQ_INT(tread_parse_fd(p, fd), TREAD_STATUS_PAUSED);
    CHECK_EQ_INT(events, 1);
    int n = thread_count();
    tread_parser_free(p);
    return n < 0 ? -1 : n - before;
}

typedef struct feeder {
    int fd;
    const char *buf;
    size_t len;
} feeder;

static void *feed_pipe(void *arg)
{
    feeder *f = arg;
    for (size_t off = 0; off < f->len;) {
        ssize_t n = write(f->fd, f->buf + off, f->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(f->fd);
    return NULL;
}

/* A pipe is read on the caller's thread, with the same result. */
static void test_pipe(const char *trace, size_t len, const char *ref)
{
    int fds[2];
    CHECK_EQ_INT(pipe(fds), 0);
    feeder f = {fds[1], trace, len};
    pthread_t th;
    CHECK_EQ_INT(pthread_create(&th, NULL, feed_pipe, &f), 0);
    dump d;
    dump_init(&d);
    d.stop_every = 1000;
    const int64_t opts[] = {TREAD_OPT_READ_THREAD, 1, 0};
    dump_parse_fd(&d, fds[0], opts);
    pthread_join(th, NULL);
    close(fds[0]);
    CHECK_EQ_STR(d.text, ref);
    dump_free(&d);
}

/* A parser given a byte range reads on the caller's thread (ranges run
 * several at a time, a parser to a core); without one, the FXT file is
 * read ahead like any other. */
static void test_ranged_fxt(const char *dir)
{
    fxb b;
    fxb_init(&b);
    fxb_preamble(&b);
    for (int i = 0; i < 4000; i++)
        fxb_end(&b, fxb_event(&b, 0, 0, 1, 1, 2, (uint64_t)i)); /* instant */
    char path[64];
    snprintf(path, sizeof path, "%s/t.fxt", dir);
    write_file(path, b.d, b.len);
    int fd = open(path, O_RDONLY);
    const int64_t whole[] = {TREAD_OPT_READ_THREAD, 1, 0};
    const int64_t first[] = {TREAD_OPT_READ_THREAD, 1, TREAD_OPT_RANGE_END, (int64_t)b.len / 2, 0};
    const int64_t second[] = {TREAD_OPT_READ_THREAD, 1, TREAD_OPT_RANGE_BEGIN, (int64_t)b.len / 2, 0};
    CHECK_EQ_INT(threads_while_paused(fd, whole), 1);
    CHECK_EQ_INT(threads_while_paused(fd, first), 0);
    CHECK_EQ_INT(threads_while_paused(fd, second), 0);
    close(fd);
    unlink(path);
    fxb_free(&b);
}

static void test_files(void)
{
    size_t len;
    char *trace = make_trace(&len);
    size_t gcap = compressBound(len) + 64, zcap = ZSTD_compressBound(len);
    unsigned char *gz = malloc(gcap), *zs = malloc(zcap);
    size_t gl = test_gzip(trace, len, gz, gcap), zl = test_zstd(trace, len, zs, zcap);
    char dir[] = "/tmp/tread_file_input_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char plain[64], gzp[64], zsp[64];
    snprintf(plain, sizeof plain, "%s/t.json", dir);
    snprintf(gzp, sizeof gzp, "%s/t.json.gz", dir);
    snprintf(zsp, sizeof zsp, "%s/t.json.zst", dir);
    write_file(plain, trace, len);
    write_file(gzp, gz, gl);
    write_file(zsp, zs, zl);

    char *ref = parse_bytes(trace, len);
    CHECK(strstr(ref, "status=0 ") != NULL && strstr(ref, "events=12000 ") != NULL);
    const char *paths[] = {plain, gzp, zsp};
    for (int i = 0; i < 3; i++) {
        /* the compression line differs: compare with the file's bytes fed */
        size_t flen = i == 0 ? len : i == 1 ? gl : zl;
        char *want = parse_bytes(i == 0 ? (const void *)trace : i == 1 ? (const void *)gz
                                                                       : (const void *)zs,
                                 flen);
        CHECK_EQ_INT(dump_body_len(want), dump_body_len(ref));
        static const size_t stops[] = {0, 1, 997};
        for (int s = 0; s < 3; s++)
            for (int64_t thread = 0; thread <= 1; thread++) {
                char *got = parse_file(paths[i], thread, stops[s]);
                CHECK_EQ_STR(got, want);
                free(got);
            }
        free(want);
    }
    tread_parser *p = tread_parser_create(NULL);
    CHECK_EQ_INT(tread_parse_path(p, plain), TREAD_STATUS_OK);
    tread_stats st;
    tread_get_stats(p, &st);
    CHECK_EQ_INT(st.bytes_in, (long long)len);
    CHECK_EQ_INT(st.events, 12000);
    tread_parser_free(p);

    test_pipe(trace, len, ref);

    /* the thread exists while a regular file is read, and only then; a
     * parser freed while it reads ahead ends it (ASan: nothing leaks) */
    int before = settled_thread_count(idle_threads);
    if (before > 0) {
        int fd = open(plain, O_RDONLY);
        const int64_t on[] = {TREAD_OPT_READ_THREAD, 1, 0};
        const int64_t off[] = {TREAD_OPT_READ_THREAD, 0, 0};
        CHECK_EQ_INT(threads_while_paused(fd, NULL), 1); /* the default */
        CHECK_EQ_INT(threads_while_paused(fd, on), 1);
        CHECK_EQ_INT(threads_while_paused(fd, off), 0);
        close(fd);
        test_ranged_fxt(dir);
        int fds[2];
        CHECK_EQ_INT(pipe(fds), 0);
        CHECK_EQ_INT(write(fds[1], trace, 4096), 4096);
        CHECK_EQ_INT(threads_while_paused(fds[0], on), 0);
        close(fds[0]), close(fds[1]);
        /* after a parse ends, the thread is gone */
        CHECK_EQ_INT(settled_thread_count(before), before);
    } else {
        fprintf(stderr, "test_file_input: no /proc/self/task, thread checks skipped\n");
    }

    unlink(plain), unlink(gzp), unlink(zsp);
    rmdir(dir);
    free(ref), free(trace), free(gz), free(zs);
}

/* A read that fails (a directory) is TREAD_ERROR_IO at the bytes read so
 * far, either way; so is a path that cannot be opened. */
static void test_read_errors(void)
{
    for (int64_t thread = 0; thread <= 1; thread++) {
        int fd = open("/", O_RDONLY);
        CHECK(fd >= 0);
        tread_parser *p = tread_parser_create(NULL);
        CHECK_EQ_INT(tread_config(p, TREAD_OPT_READ_THREAD, thread), 0);
        CHECK_EQ_INT(tread_parse_fd(p, fd), TREAD_STATUS_ERROR);
        CHECK_EQ_INT(tread_get_error(p), TREAD_ERROR_IO);
        CHECK_EQ_INT(tread_get_error_offset(p), 0);
        CHECK(strstr(tread_get_error_message(p), strerror(EISDIR)) != NULL);
        tread_parser_free(p);
        close(fd);
    }
    tread_parser *p = tread_parser_create(NULL);
    CHECK_EQ_INT(tread_parse_path(p, "/nonexistent/tread/file.json"), TREAD_STATUS_ERROR);
    CHECK_EQ_INT(tread_get_error(p), TREAD_ERROR_IO);
    tread_parser_free(p);
    p = tread_parser_create(NULL);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_READ_THREAD, 2), -1);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_READ_THREAD, -1), -1);
    CHECK_EQ_INT(tread_config(p, TREAD_OPT_READ_THREAD, 0), 0);
    tread_parser_free(p);
}

int main(void)
{
    idle_threads = thread_count();
    test_files();
    test_read_errors();
    return TEST_EXIT();
}
