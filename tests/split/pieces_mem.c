/* pieces_mem: see pieces_mem.h. */
#include "pieces_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct split_pieces {
    split_pieces_config cfg;
    pieces_mem pm;
    int open;
    uint64_t total, complete;
    char err[128];
};

int split_pieces_new(split_pieces **out, const split_pieces_config *cfg, char *err, size_t errlen)
{
    split_pieces *sp = calloc(1, sizeof *sp);
    if (!sp) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sp->cfg = *cfg;
    *out = sp;
    return 0;
}

int split_pieces_begin(split_pieces *sp)
{
    if (sp->open)
        abort(); /* the caller must end a piece first */
    if (sp->pm.n == sp->pm.cap) {
        size_t n = sp->pm.cap ? sp->pm.cap * 2 : 8;
        mem_piece *p = realloc(sp->pm.piece, n * sizeof *p);
        if (!p)
            abort();
        sp->pm.piece = p;
        sp->pm.cap = n;
    }
    memset(&sp->pm.piece[sp->pm.n++], 0, sizeof(mem_piece));
    sp->open = 1;
    return 0;
}

int split_pieces_write(split_pieces *sp, const void *p, size_t n)
{
    if (!sp->open)
        abort();
    if (sp->cfg.max_total_bytes && sp->total + n > sp->cfg.max_total_bytes) {
        snprintf(sp->err, sizeof sp->err, "past max_total_bytes");
        return -1;
    }
    mem_piece *m = &sp->pm.piece[sp->pm.n - 1];
    if (m->cap - m->len < n) {
        size_t c = m->cap ? m->cap : 256;
        while (c - m->len < n)
            c *= 2;
        unsigned char *d = realloc(m->data, c);
        if (!d)
            abort();
        m->data = d;
        m->cap = c;
    }
    memcpy(m->data + m->len, p, n);
    m->len += n;
    sp->total += n;
    return 0;
}

uint64_t split_pieces_size(const split_pieces *sp)
{
    return sp->open ? sp->pm.piece[sp->pm.n - 1].len : 0;
}

uint64_t split_pieces_max(const split_pieces *sp)
{
    return sp->cfg.max_bytes;
}

int split_pieces_is_open(const split_pieces *sp)
{
    return sp->open;
}

void split_pieces_oversize(split_pieces *sp)
{
    if (sp->open)
        sp->pm.piece[sp->pm.n - 1].oversize = 1;
}

void split_pieces_header_end(split_pieces *sp)
{
    if (sp->open)
        sp->pm.piece[sp->pm.n - 1].header = sp->pm.piece[sp->pm.n - 1].len;
}

int split_pieces_end(split_pieces *sp)
{
    if (!sp->open)
        abort();
    sp->open = 0;
    sp->complete++;
    return 0;
}

const char *split_pieces_error(const split_pieces *sp)
{
    return sp->err;
}

uint64_t split_pieces_count(const split_pieces *sp)
{
    return sp->complete;
}

uint64_t split_pieces_total(const split_pieces *sp)
{
    return sp->total;
}

void pieces_mem_take(split_pieces *sp, pieces_mem *out)
{
    *out = sp->pm;
    memset(&sp->pm, 0, sizeof sp->pm);
    sp->open = 0;
}

void split_pieces_free(split_pieces *sp)
{
    if (!sp)
        return;
    pieces_mem_free(&sp->pm);
    free(sp);
}
