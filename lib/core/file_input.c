/* tread_parse_fd / tread_parse_path: large reads into the push pipeline. */
#include "core/parser.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* read() into a buffer that stays in the L2 cache, not mmap: on a 1 GiB
 * file in the page cache, reading costs ~0.07 s of system time, while
 * scanning 4 MiB mmap windows (MAP_POPULATE or MADV_SEQUENTIAL) cost
 * 0.25-0.4 s (cache and TLB misses on every page), and a mapped file that
 * shrinks under the reader would raise SIGBUS (measured 2026-11-23, 2 cores,
 * under load). */
#define READ_SIZE (256u * 1024u)

/* The read-ahead thread (TREAD_OPT_READ_THREAD) reads a regular file into
 * a ring of RA_PIECES pieces of RA_PIECE bytes: the read() calls and the
 * kernel's copy run beside the decoding. It is lazy (worker.h): it fills
 * the ring, sleeps until half of it is free, and never spins. Measured on
 * the 1 GiB FXT bench file, count_events, least of 7 (2026-11-24, 2 cores):
 * idle 0.738 s inline, 0.666 s read ahead; with a second such process
 * running (both cores busy) 0.78 s inline, 0.81 s lazy, 0.85 s with a
 * producer that spins for every piece. The Android Perfetto trace idle
 * 1.006 -> 0.945 s. Only regular files: a read from a pipe may block for
 * ever, and tread_parser_free must be able to end the thread. Not for a
 * parser given a byte range: ranges are read several at a time, a parser
 * to a core, and a reader each took the cores from them (FXT,
 * count_events -j 2: 0.468 -> 0.623 s). */
#define RA_PIECE (256u * 1024u)
#define RA_PIECES 4
enum { RA_END_EOF = 1, RA_END_ERROR = 2 };

/* tread_worker_step: one read(), on the worker's thread. */
static long ra_step(void *job, unsigned char *out, size_t cap, int *end)
{
    struct tread_read_job *j = job;
    for (;;) {
        ssize_t n = read(j->fd, out, cap);
        if (n > 0)
            return (long)n;
        if (n < 0 && errno == EINTR)
            continue;
        j->err = n < 0 ? errno : 0;
        *end = n < 0 ? RA_END_ERROR : RA_END_EOF;
        return 0;
    }
}

void tread__close_source(tread_parser *p)
{
    tread_worker_free(p->raw); /* stops it; it no longer reads the fd */
    p->raw = NULL;
    if (p->src_owned && p->src_fd >= 0)
        close(p->src_fd);
    p->src_fd = -1;
    p->src_owned = 0;
}

/* The next bytes of the source: > 0 with *data, 0 at its end, -1 with
 * *err when a read failed. */
static ssize_t next_bytes(tread_parser *p, const unsigned char **data, int *err)
{
    if (p->raw) {
        int end = 0;
        long n = tread_worker_next(p->raw, data, &end);
        if (n > 0)
            return n;
        *err = p->raj.err;
        return end == RA_END_ERROR ? -1 : 0;
    }
    for (;;) {
        ssize_t n = read(p->src_fd, p->read_buf, READ_SIZE);
        if (n < 0 && errno == EINTR)
            continue;
        *data = p->read_buf;
        *err = errno;
        return n;
    }
}

tread_status tread__read_fd_loop(tread_parser *p)
{
    tread_status st = TREAD_STATUS_OK;
    while (!p->src_eof && !p->range_done) {
        const unsigned char *data = NULL;
        int err = 0;
        ssize_t n = next_bytes(p, &data, &err);
        if (n < 0) {
            tread__close_source(p);
            return tread__fail(p, TREAD_ERROR_IO, p->stats.bytes_in, "read failed: %s",
                               strerror(err));
        }
        if (n == 0) {
            p->src_eof = 1;
            break;
        }
        st = tread_feed(p, data, (size_t)n);
        if (st == TREAD_STATUS_PAUSED)
            return st; /* tread_resume comes back here; the rest is in pending_raw */
        if (st != TREAD_STATUS_OK) {
            tread__close_source(p);
            return st;
        }
    }
    tread__close_source(p);
    return tread_finish(p);
}

/* The read-ahead thread for a regular file, when allowed and to be had
 * (else the caller's thread reads). */
static void start_read_thread(tread_parser *p, int fd)
{
    struct stat sb;
    int ranged = p->range_begin != 0 || p->range_end != UINT64_MAX;
    if (!p->read_thread || ranged || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        return;
    p->raw = tread_worker_create(&p->alloc, RA_PIECE, RA_PIECES);
    if (!p->raw)
        return;
    tread_worker_lazy(p->raw);
    p->raj.fd = fd;
    p->raj.err = 0;
    tread_worker_start(p->raw, ra_step, &p->raj);
}

static tread_status start_source(tread_parser *p, int fd, int owned)
{
    if (p->state != P_NEW || p->stats.bytes_in) {
        if (owned)
            close(fd);
        return tread__fail(p, TREAD_ERROR_MISUSE, 0, "the parser has already been fed");
    }
    p->src_fd = fd;
    p->src_start = -1;
    {
        struct stat sb;
        off_t at = lseek(fd, 0, SEEK_CUR);
        if (at >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
            p->src_start = (int64_t)at;
    }
    p->src_owned = owned;
    p->src_eof = 0;
    start_read_thread(p, fd);
    if (!p->raw && !p->read_buf) {
        p->read_buf = tread_malloc(&p->alloc, READ_SIZE);
        if (!p->read_buf) {
            tread__close_source(p);
            return tread__fail(p, TREAD_ERROR_NOMEM, 0, "out of memory");
        }
    }
    return tread__read_fd_loop(p);
}

tread_status tread_parse_fd(tread_parser *p, int fd)
{
    return start_source(p, fd, 0);
}

tread_status tread_parse_path(tread_parser *p, const char *path)
{
    if (!path)
        return tread__fail(p, TREAD_ERROR_MISUSE, 0, "tread_parse_path: NULL path");
    if (strcmp(path, "-") == 0)
        return start_source(p, 0, 0);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tread__fail(p, TREAD_ERROR_IO, 0, "cannot open %s: %s", path, strerror(errno));
    return start_source(p, fd, 1);
}
