/* split_pieces: see split_pieces.h and doc/convert.md. */
#define _POSIX_C_SOURCE 200809L
#include "split_pieces.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPLIT_BUF_SIZE (64u * 1024u)

struct split_pieces {
    char *prefix, *suffix;
    uint64_t max_bytes, max_total;
    int fd;                    /* the current piece, -1: none open */
    char path[4096];           /* its path */
    uint64_t size;             /* bytes in the current piece */
    uint64_t total;            /* bytes in all pieces, the current one too */
    uint64_t count;            /* pieces completed */
    uint64_t oversized;
    int failed;
    uint64_t *next;            /* shared numbering, or NULL */
    uint64_t number;           /* the current piece's number */
    split_pieces_guard_fn guard;
    void *guard_user;
    size_t len;                /* buffered bytes */
    unsigned char *buf;
    char error[4096];
};

void split_pieces_path(const split_pieces *sp, uint64_t i, char *buf, size_t len)
{
    snprintf(buf, len, "%s-%05llu.%s", sp->prefix, (unsigned long long)i,
             sp->suffix);
}

/* "; PREFIX-00000.json to PREFIX-00003.json are complete" and the like. */
static void complete_note(const split_pieces *sp, char *buf, size_t len)
{
    char first[1100], last[1100];
    if (sp->count == 0) {
        snprintf(buf, len, "no piece is complete");
        return;
    }
    if (sp->next) { /* numbered with another format's pieces */
        snprintf(buf, len, "the pieces listed before are complete");
        return;
    }
    split_pieces_path(sp, 0, first, sizeof first);
    if (sp->count == 1) {
        snprintf(buf, len, "%.1000s is complete", first);
        return;
    }
    split_pieces_path(sp, sp->count - 1, last, sizeof last);
    snprintf(buf, len, "%.1000s to %.1000s are complete (%llu pieces)", first,
             last, (unsigned long long)sp->count);
}

/* Removes the open piece (partial). */
static void remove_partial(split_pieces *sp)
{
    if (sp->fd < 0)
        return;
    close(sp->fd);
    sp->fd = -1;
    unlink(sp->path);
    sp->len = 0;
}

/* Records the first error: what went wrong, the path, which pieces are
 * complete; the partial piece is removed. */
static int fail_at(split_pieces *sp, const char *what, int err, int partial)
{
    if (sp->failed)
        return -1;
    remove_partial(sp);
    char note[2400];
    complete_note(sp, note, sizeof note);
    if (err)
        snprintf(sp->error, sizeof sp->error, "%.200s '%.400s': %.200s; %s%s", what,
                 sp->path, strerror(err), note,
                 partial ? "; the partial piece was removed" : "");
    else
        snprintf(sp->error, sizeof sp->error, "%.200s '%.400s'; %s%s", what,
                 sp->path, note, partial ? "; the partial piece was removed" : "");
    sp->failed = 1;
    return -1;
}

static int fail(split_pieces *sp, const char *what, int err)
{
    return fail_at(sp, what, err, sp->fd >= 0);
}

int split_pieces_new(split_pieces **out, const split_pieces_config *cfg,
                     char *err, size_t errlen)
{
    *out = NULL;
    split_pieces *sp = calloc(1, sizeof *sp);
    if (sp) {
        sp->prefix = strdup(cfg->prefix);
        sp->suffix = strdup(cfg->suffix);
        sp->buf = malloc(SPLIT_BUF_SIZE);
    }
    if (!sp || !sp->prefix || !sp->suffix || !sp->buf) {
        split_pieces_free(sp);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (strlen(cfg->prefix) + strlen(cfg->suffix) + 32 > sizeof sp->path) {
        snprintf(err, errlen, "OUTPREFIX is longer than %zu bytes", sizeof sp->path - 32);
        split_pieces_free(sp);
        return -1;
    }
    sp->fd = -1;
    sp->max_bytes = cfg->max_bytes;
    sp->max_total = cfg->max_total_bytes ? cfg->max_total_bytes : UINT64_MAX;
    *out = sp;
    return 0;
}

int split_pieces_begin(split_pieces *sp)
{
    if (sp->failed)
        return -1;
    if (sp->fd >= 0 && split_pieces_end(sp) != 0)
        return -1;
    sp->number = sp->next ? (*sp->next)++ : sp->count;
    split_pieces_path(sp, sp->number, sp->path, sizeof sp->path);
    int fd;
    do
        fd = open(sp->path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return fail(sp, "cannot create", errno);
    sp->fd = fd;
    sp->size = 0;
    sp->len = 0;
    return 0;
}

static int flush_buf(split_pieces *sp)
{
    size_t off = 0;
    while (off < sp->len) {
        ssize_t w = write(sp->fd, sp->buf + off, sp->len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return fail(sp, "cannot write", w < 0 ? errno : EIO);
        off += (size_t)w;
    }
    sp->len = 0;
    return 0;
}

int split_pieces_write(split_pieces *sp, const void *p, size_t n)
{
    if (sp->failed)
        return -1;
    if (sp->fd < 0) {
        snprintf(sp->error, sizeof sp->error, "internal error: a write with no piece open");
        sp->failed = 1;
        return -1;
    }
    if ((n > sp->max_total - sp->total || sp->total > sp->max_total) && sp->guard)
        sp->max_total = sp->guard(sp->guard_user, sp);
    if (n > sp->max_total - sp->total || sp->total > sp->max_total) {
        char what[200];
        snprintf(what, sizeof what,
                 "the pieces would pass --max-total-bytes (%llu bytes) in",
                 (unsigned long long)sp->max_total);
        return fail(sp, what, 0);
    }
    const unsigned char *c = p;
    sp->size += n;
    sp->total += n;
    while (n) {
        size_t room = SPLIT_BUF_SIZE - sp->len;
        if (room == 0) {
            if (flush_buf(sp) != 0)
                return -1;
            room = SPLIT_BUF_SIZE;
        }
        size_t k = n < room ? n : room;
        memcpy(sp->buf + sp->len, c, k);
        sp->len += k;
        c += k;
        n -= k;
    }
    return 0;
}

uint64_t split_pieces_size(const split_pieces *sp) { return sp->size; }
uint64_t split_pieces_max(const split_pieces *sp) { return sp->max_bytes; }
int split_pieces_is_open(const split_pieces *sp) { return sp->fd >= 0; }
void split_pieces_oversize(split_pieces *sp) { sp->oversized++; }
void split_pieces_header_end(split_pieces *sp) { (void)sp; }
uint64_t split_pieces_oversized(const split_pieces *sp) { return sp->oversized; }
const char *split_pieces_error(const split_pieces *sp) { return sp->error; }
uint64_t split_pieces_count(const split_pieces *sp) { return sp->count; }
uint64_t split_pieces_total(const split_pieces *sp) { return sp->total; }
int split_pieces_failed(const split_pieces *sp) { return sp->failed; }
uint64_t split_pieces_max_total(const split_pieces *sp) { return sp->max_total; }

void split_pieces_set_max_total(split_pieces *sp, uint64_t max_total_bytes)
{
    sp->max_total = max_total_bytes;
}

void split_pieces_share_numbers(split_pieces *sp, uint64_t *next)
{
    sp->next = next;
}

void split_pieces_set_guard(split_pieces *sp, split_pieces_guard_fn fn, void *user)
{
    sp->guard = fn;
    sp->guard_user = user;
}

int split_pieces_end(split_pieces *sp)
{
    if (sp->failed)
        return -1;
    if (sp->fd < 0)
        return 0;
    if (flush_buf(sp) != 0)
        return -1;
    if (close(sp->fd) != 0) {
        int e = errno;
        sp->fd = -1;
        unlink(sp->path);
        return fail_at(sp, "cannot write", e, 1);
    }
    sp->fd = -1;
    sp->count++;
    /* the pieces, one per line, for xargs -P and batch engines */
    if (printf("%s\n", sp->path) < 0 || fflush(stdout) != 0) {
        int e = errno;
        snprintf(sp->error, sizeof sp->error,
                 "cannot list '%.400s' on standard output: %s", sp->path,
                 strerror(e));
        sp->failed = 1;
        return -1;
    }
    return 0;
}

void split_pieces_free(split_pieces *sp)
{
    if (!sp)
        return;
    remove_partial(sp);
    free(sp->prefix);
    free(sp->suffix);
    free(sp->buf);
    free(sp);
}
