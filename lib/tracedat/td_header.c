/* The header of a trace.dat file (man 5 trace-cmd.dat.v6 / .v7), read as
 * a sequence of states over the byte window: each state asks for the
 * bytes it needs (td_need) and either completes or waits (TD_NEED), so
 * the same code reads a stream fed in any chunks and a file read with
 * pread. v6 is a fixed sequence of items; v7 is a sequence of sections
 * (walked in file order: each carries its size), some compressed. */
#include <stdio.h>
#include "tracedat/td_dec.h"

enum {
    S_MAGIC = 0, S_VERSION, S_INIT, S_V7_COMP, S_V7_COMP_VER, S_V7_OPTOFF,
    S_HDR_PAGE, S_HDR_EVENT, S_FTRACE_COUNT, S_FTRACE_ITEM, S_SYS_COUNT, S_SYS_NAME,
    S_EVENT_ITEM, S_KALLSYMS, S_PRINTK, S_CMDLINES, S_CPUS, S_OPTSTR, S_OPTION, S_FLY,
    S_V7_SECTION, S_V6_BUFFER, S_END
};

#define FAIL(d, err, off, ...) (tread__fail((d)->p, err, off, __VA_ARGS__), TD_ERROR)

static int too_big(td_dec *d, uint64_t size, uint64_t off, const char *what)
{
    if (size <= d->limit)
        return 0;
    tread__fail(d->p, TREAD_ERROR_LIMIT_MEMORY, off,
                "%s of %llu bytes is past the max-tracedat-meta-bytes option (%llu)", what,
                (unsigned long long)size, (unsigned long long)d->limit);
    return 1;
}

static int add_format(td_dec *d, const char *sys, size_t sys_len, const unsigned char *text,
                      size_t len, uint64_t off)
{
    const char *why = "";
    int r = td_formats_add(&d->formats, d->be, sys, sys_len, (const char *)text, len, &why);
    if (r == 0) {
        d->c.formats++;
        return 0;
    }
    if (r == -2)
        return FAIL(d, TREAD_ERROR_LIMIT_MEMORY, off,
                    "the event formats are past the max-tracedat-meta-bytes option (%llu)",
                    (unsigned long long)d->limit);
    if (r == -3)
        return FAIL(d, TREAD_ERROR_NOMEM, off, "out of memory");
    d->c.formats_skipped++;
    tread__warn(d->p, TREAD_WARN_BAD_RECORD, off, "event format of %.*s skipped: %s",
                (int)(sys_len > 64 ? 64 : sys_len), sys, why);
    return 0;
}

int td_add_cpu(td_dec *d, uint32_t buffer, uint32_t cpu, uint64_t off, uint64_t size)
{
    if (d->ncpu_data >= TD_MAX_CPUS * 4u)
        return FAIL(d, TREAD_ERROR_SYNTAX, d->pos, "more than %u CPU data ranges",
                    TD_MAX_CPUS * 4u);
    if (d->ncpu_data == d->cpus_cap) {
        uint32_t nc = d->cpus_cap ? d->cpus_cap * 2 : 8;
        td_cpu *n = tread_realloc(&d->p->alloc, d->cpus, nc * sizeof *n);
        if (!n)
            return FAIL(d, TREAD_ERROR_NOMEM, d->pos, "out of memory");
        d->cpus = n;
        d->cpus_cap = nc;
    }
    td_cpu *c = &d->cpus[d->ncpu_data++];
    memset(c, 0, sizeof *c);
    c->cpu = cpu;
    c->buffer = buffer;
    c->off = off;
    c->size = size;
    c->next = off;
    c->done = size == 0;
    return 0;
}

/* An instance's name (NUL-terminated in the option; cut to 127 bytes). */
static void buf_name(char *out, const unsigned char *v, uint32_t n)
{
    const unsigned char *z = memchr(v, 0, n);
    size_t l = z ? (size_t)(z - v) : n;
    if (l > 127)
        l = 127;
    memcpy(out, v, l);
    out[l] = 0;
}

/* Options (v6 "options  " items, v7 options sections): what is read. */
static int option(td_dec *d, uint16_t id, const unsigned char *v, uint32_t size, uint64_t off)
{
    d->c.options++;
    switch (id) {
    case 3: /* BUFFER */
        if (d->version < 7) {
            /* v6: the offset of the instance's "flyrecord" CPU table, read
             * after the top buffer's (in file order) */
            if (size < 8)
                goto bad;
            if (d->v6_bufs >= TD_MAX_BUFFERS - 1)
                return FAIL(d, TREAD_ERROR_SYNTAX, off, "more than %u buffers", TD_MAX_BUFFERS);
            uint64_t at = td_u64(d->be, v);
            uint32_t k = d->v6_bufs++;
            while (k > 0 && d->v6_buf_off[k - 1] > at) {
                d->v6_buf_off[k] = d->v6_buf_off[k - 1];
                memcpy(d->v6_buf_name[k], d->v6_buf_name[k - 1], sizeof d->v6_buf_name[k]);
                k--;
            }
            d->v6_buf_off[k] = at;
            buf_name(d->v6_buf_name[k], v + 8, size - 8);
            return 0;
        }
        {
            /* offset, name, clock, page size, cpu count, (cpu, offset, size)... */
            uint32_t p = 8;
            for (int s = 0; s < 2; s++) {
                const unsigned char *z = size > p ? memchr(v + p, 0, size - p) : NULL;
                if (!z)
                    goto bad;
                p = (uint32_t)(z - v) + 1;
            }
            if (size - p < 8)
                goto bad;
            uint32_t psize = td_u32(d->be, v + p);
            uint32_t n = td_u32(d->be, v + p + 4);
            p += 8;
            if (psize != d->page_size)
                return FAIL(d, TREAD_ERROR_UNSUPPORTED, off,
                            "a buffer with pages of %u bytes (the file's are %u)", psize,
                            d->page_size);
            if (n > TD_MAX_CPUS)
                return FAIL(d, TREAD_ERROR_SYNTAX, off, "a buffer of %u CPUs (at most %u)", n,
                            TD_MAX_CPUS);
            if ((uint64_t)n * 20 > size - p)
                goto bad;
            if (d->nbuffers >= TD_MAX_BUFFERS)
                return FAIL(d, TREAD_ERROR_SYNTAX, off, "more than %u buffers", TD_MAX_BUFFERS);
            uint32_t b = d->nbuffers++;
            d->c.buffers++;
            buf_name(d->buf_name[b], v + 8, size - 8);
            for (uint32_t i = 0; i < n; i++, p += 20)
                if (td_add_cpu(d, b, td_u32(d->be, v + p), td_u64(d->be, v + p + 4),
                               td_u64(d->be, v + p + 12)) != 0)
                    return TD_ERROR;
        }
        return 0;
    case 7: { /* OFFSET: a decimal added to every timestamp */
        long long x = 0;
        char tmp[32];
        size_t n = size < sizeof tmp - 1 ? size : sizeof tmp - 1;
        memcpy(tmp, v, n);
        tmp[n] = 0;
        if (sscanf(tmp, "%lld", &x) == 1)
            d->ts_offset = x;
        return 0;
    }
    case 14: /* TSC2NSEC */
        if (size < 16)
            goto bad;
        d->tsc_mult = td_u32(d->be, v);
        d->tsc_shift = td_u32(d->be, v + 4);
        d->tsc_offset = td_u64(d->be, v + 8);
        d->tsc2nsec = d->tsc_mult != 0 && d->tsc_shift < 64;
        return 0;
    default:
        return 0;
    }
bad:
    tread__warn(d->p, TREAD_WARN_BAD_RECORD, off, "option %u of %u bytes does not decode: skipped",
                id, size);
    return 0;
}

/* ---- v7 sections, read from memory ------------------------------------- */

typedef struct mem {
    const unsigned char *p, *end;
    uint64_t off; /* file offset reported for errors */
} mem;

static int mem_take(mem *m, size_t n, const unsigned char **out)
{
    if ((size_t)(m->end - m->p) < n)
        return -1;
    *out = m->p;
    m->p += n;
    return 0;
}

static int sec_header_info(td_dec *d, mem *m)
{
    const unsigned char *s, *t;
    if (mem_take(m, 12, &s) != 0 || memcmp(s, "header_page", 12) != 0 || mem_take(m, 8, &s) != 0)
        goto bad;
    uint64_t n = td_u64(d->be, s);
    if (n > (uint64_t)(m->end - m->p) || mem_take(m, (size_t)n, &t) != 0)
        goto bad;
    td_page_layout_parse(&d->layout, (const char *)t, (size_t)n, d->long_size);
    d->have_layout = 1;
    return 0; /* header_event: the event header is the kernel's fixed one */
bad:
    return FAIL(d, TREAD_ERROR_SYNTAX, m->off, "the header info section does not decode");
}

static int sec_ftrace(td_dec *d, mem *m, int events)
{
    const unsigned char *s;
    uint32_t nsys = 1;
    if (events) {
        if (mem_take(m, 4, &s) != 0)
            goto bad;
        nsys = td_u32(d->be, s);
    }
    for (uint32_t k = 0; k < nsys; k++) {
        const char *sys = "ftrace";
        size_t sys_len = 6;
        if (events) {
            const unsigned char *z = memchr(m->p, 0, (size_t)(m->end - m->p));
            if (!z || z - m->p > 256)
                goto bad;
            sys = (const char *)m->p;
            sys_len = (size_t)(z - m->p);
            m->p = z + 1;
            d->c.systems++;
        }
        if (mem_take(m, 4, &s) != 0)
            goto bad;
        uint32_t n = td_u32(d->be, s);
        for (uint32_t i = 0; i < n; i++) {
            if (mem_take(m, 8, &s) != 0)
                goto bad;
            uint64_t sz = td_u64(d->be, s);
            if (sz > (uint64_t)(m->end - m->p))
                goto bad;
            if (add_format(d, sys, sys_len, m->p, (size_t)sz, m->off) != 0)
                return TD_ERROR;
            m->p += sz;
        }
    }
    return 0;
bad:
    return FAIL(d, TREAD_ERROR_SYNTAX, m->off, "the %s formats section does not decode",
                events ? "event" : "ftrace");
}

static int sec_options(td_dec *d, mem *m)
{
    const unsigned char *s;
    for (;;) {
        if (mem_take(m, 6, &s) != 0)
            return FAIL(d, TREAD_ERROR_SYNTAX, m->off, "an options section without DONE");
        uint16_t id = td_u16(d->be, s);
        uint32_t size = td_u32(d->be, s + 2);
        const unsigned char *v;
        if (mem_take(m, size, &v) != 0)
            return FAIL(d, TREAD_ERROR_SYNTAX, m->off, "option %u runs past its section", id);
        if (id == 0) {
            if (size >= 8 && td_u64(d->be, v) == 0)
                d->options_done = 1;
            return 0;
        }
        if (option(d, id, v, size, m->off) != 0)
            return TD_ERROR;
    }
}

/* One v7 section, from its header at d->pos. */
static int v7_section(td_dec *d)
{
    const unsigned char *h;
    if (d->file && d->pos >= d->file_size)
        return TD_DONE;
    if (!(h = td_need(d, d->pos, 16)))
        return TD_NEED;
    uint16_t id = td_u16(d->be, h), flags = td_u16(d->be, h + 2);
    uint64_t size = td_u64(d->be, h + 8);
    uint64_t off = d->pos;
    if (size > UINT64_MAX - off - 16)
        return FAIL(d, TREAD_ERROR_SYNTAX, off, "section %u claims %llu bytes", id,
                    (unsigned long long)size);
    switch (id) {
    case 3:  /* BUFFER flyrecord: the data, read after the header */
    case 22: /* BUFFER_TEXT (latency): not read */
        if (id == 3 && !d->file)
            return FAIL(d, TREAD_ERROR_UNSUPPORTED, off,
                        "a v7 trace.dat fed as a stream: its CPU layout (the BUFFER option) "
                        "comes after the data; read the file (tread_parse_path/_fd) instead");
        if (id == 3)
            d->fly_seen = 1;
        d->pos = off + 16 + size;
        d->c.sections++;
        return TD_DONE + 1;
    case 0: case 16: case 17: case 18:
        break;
    case 19: case 20: { /* kallsyms, printk formats: located, loaded when needed */
        td_text_loc *l = id == 19 ? &d->ks_loc : &d->pk_loc;
        if (id == 19) d->c.kallsyms_bytes += size;
        if (id == 20) d->c.printk_bytes += size;
        if (l->state == 0) {
            l->off = off + 16;
            l->size = size;
            l->v7 = 1;
            l->compressed = flags & 1;
            l->state = 1;
        }
        d->pos = off + 16 + size;
        d->c.sections++;
        return TD_DONE + 1;
    }
    case 21: /* cmdlines: not needed */
        d->c.cmdlines_bytes += size;
        d->pos = off + 16 + size;
        d->c.sections++;
        return TD_DONE + 1;
    default: /* strings and what this reader does not know */
        d->pos = off + 16 + size;
        d->c.sections++;
        return TD_DONE + 1;
    }
    if (too_big(d, size, off, "a section"))
        return TD_ERROR;
    const unsigned char *body = td_need(d, off + 16, (size_t)size);
    if (!body) {
        if (d->file)
            return FAIL(d, TREAD_ERROR_SYNTAX, off, "section %u runs past the end of the file", id);
        return TD_NEED;
    }
    mem m;
    m.p = body;
    m.end = body + size;
    m.off = off;
    if (flags & 1) {
        if (size < 8)
            return FAIL(d, TREAD_ERROR_SYNTAX, off, "a compressed section of %llu bytes",
                        (unsigned long long)size);
        uint32_t cs = td_u32(d->be, body), us = td_u32(d->be, body + 4);
        if (cs > size - 8)
            return FAIL(d, TREAD_ERROR_SYNTAX, off, "a compressed section's data runs past it");
        if (too_big(d, us, off, "a section expanded"))
            return TD_ERROR;
        d->sec.len = 0;
        if (tread_buf_reserve(&d->sec, us ? us : 1) != 0)
            return FAIL(d, TREAD_ERROR_NOMEM, off, "out of memory");
        if (td_expand(d, body + 8, cs, d->sec.data, us) != 0)
            return FAIL(d, TREAD_ERROR_SYNTAX, off, "compressed section %u does not expand", id);
        m.p = d->sec.data;
        m.end = d->sec.data + us;
        d->c.sections_compressed++;
    }
    int r;
    switch (id) {
    case 0: r = sec_options(d, &m); break;
    case 16: r = sec_header_info(d, &m); break;
    case 17: r = sec_ftrace(d, &m, 0); break;
    default: r = sec_ftrace(d, &m, 1); break;
    }
    if (r != 0)
        return TD_ERROR;
    d->c.sections++;
    d->pos = off + 16 + size;
    return TD_DONE + 1;
}

/* ---- kallsyms and printk formats ------------------------------------------ */

void td_syms_load(td_dec *d, int ks)
{
    td_text_loc *l = ks ? &d->ks_loc : &d->pk_loc;
    const char *what = ks ? "kallsyms" : "the printk formats";
    const unsigned char *t = NULL;
    uint64_t n = l->size;
    l->state = 3;
    if (n > d->limit) {
big:
        tread__warn(d->p, TREAD_WARN_BAD_RECORD, l->off,
                    "%s of %llu bytes past the max-tracedat-meta-bytes option (%llu): not read, "
                    "addresses stay numbers",
                    what, (unsigned long long)n, (unsigned long long)d->limit);
        return;
    }
    if (!(t = td_need(d, l->off, (size_t)n)))
        goto bad;
    if (l->v7 && l->compressed) {
        if (n < 8)
            goto bad;
        uint32_t cs = td_u32(d->be, t), us = td_u32(d->be, t + 4);
        if (us > d->limit) {
            n = us;
            goto big;
        }
        if (cs > n - 8)
            goto bad;
        d->sec.len = 0;
        if (tread_buf_reserve(&d->sec, us ? us : 1) != 0 ||
            td_expand(d, t + 8, cs, d->sec.data, us) != 0)
            goto bad;
        t = d->sec.data;
        n = us;
    }
    if (l->v7) { /* the section holds the v6 item: a size, then the text */
        if (n < 4 || td_u32(d->be, t) > n - 4)
            goto bad;
        n = td_u32(d->be, t);
        t += 4;
    }
    td_syms *s = ks ? &d->ksyms : &d->printk;
    int r = ks ? td_kallsyms_parse(s, &d->p->alloc, (const char *)t, (size_t)n, d->limit)
               : td_printk_parse(s, &d->p->alloc, (const char *)t, (size_t)n, d->limit);
    if (r != 0) {
        tread__warn(d->p, TREAD_WARN_BAD_RECORD, l->off,
                    "%s: %s: not read, addresses stay numbers", what,
                    r == -2 ? "its table is past the max-tracedat-meta-bytes option" : "out of memory");
        return;
    }
    l->state = 2;
    if (d->file) {
        /* the text is in the tables now: a file's window and expanded
         * section go (a stream's window is the feed's) */
        tread_buf_free(&d->win);
        d->win_off = 0;
        tread_buf_free(&d->sec);
    }
    if (ks) {
        d->c.kallsyms_symbols = s->n;
        d->c.kallsyms_bad_lines = s->bad;
    } else {
        d->c.printk_formats = s->n;
        d->c.printk_bad_lines = s->bad;
    }
    if (s->bad)
        tread__warn(d->p, TREAD_WARN_BAD_RECORD, l->off, "%s: %llu lines not understood: skipped",
                    what, (unsigned long long)s->bad);
    return;
bad:
    tread__warn(d->p, TREAD_WARN_BAD_RECORD, l->off,
                "%s does not read (cut or does not expand): addresses stay numbers", what);
}

/* ---- the states ---------------------------------------------------------- */

/* A sized item: a size of szlen bytes at pos, then that many bytes. */
static const unsigned char *item(td_dec *d, unsigned szlen, uint64_t *size, int *err, const char *what)
{
    const unsigned char *h = td_need(d, d->pos, szlen);
    *err = 0;
    if (!h)
        return NULL;
    *size = szlen == 4 ? td_u32(d->be, h) : td_u64(d->be, h);
    if (too_big(d, *size, d->pos, what)) {
        *err = 1;
        return NULL;
    }
    const unsigned char *b = td_need(d, d->pos + szlen, (size_t)*size);
    return b;
}

static int truncated(td_dec *d, const char *what)
{
    if (!d->file)
        return TD_NEED;
    return FAIL(d, TREAD_ERROR_SYNTAX, d->pos, "the file ends inside %s", what);
}

/* One step; TD_DONE + 1 to go on, TD_DONE at the data, TD_NEED, TD_ERROR. */
static int step(td_dec *d)
{
    const unsigned char *h;
    size_t len;
    int bad, err;
    uint64_t size;
    switch (d->st) {
    case S_MAGIC:
        if (!(h = td_need(d, 0, 10)))
            return truncated(d, "the magic");
        if (memcmp(h, "\x17\x08\x44tracing", 10) != 0)
            return FAIL(d, TREAD_ERROR_SYNTAX, 0, "not a trace.dat file (bad magic)");
        d->pos = 10;
        d->st = S_VERSION;
        return TD_DONE + 1;
    case S_VERSION:
        if (!(h = td_need_str(d, d->pos, 16, &len, &bad))) {
            if (bad)
                return FAIL(d, TREAD_ERROR_SYNTAX, d->pos, "the version string is not terminated");
            return truncated(d, "the version");
        }
        if (len == 1 && (h[0] == '6' || h[0] == '7'))
            d->version = h[0] - '0';
        else
            return FAIL(d, TREAD_ERROR_UNSUPPORTED, d->pos,
                        "trace.dat version \"%.*s\" (versions 6 and 7 are read)", (int)len, h);
        d->pos += len + 1;
        d->st = S_INIT;
        return TD_DONE + 1;
    case S_INIT:
        if (!(h = td_need(d, d->pos, 6)))
            return truncated(d, "the initial header");
        if (h[0] > 1)
            return FAIL(d, TREAD_ERROR_SYNTAX, d->pos, "endianness byte %u (0 or 1)", h[0]);
        d->be = h[0];
        d->long_size = h[1];
        if (d->long_size != 4 && d->long_size != 8)
            return FAIL(d, TREAD_ERROR_SYNTAX, d->pos + 1, "long size %u (4 or 8)", h[1]);
        d->page_size = td_u32(d->be, h + 2);
        if (d->page_size < 64 || d->page_size > (1u << 24) || (d->page_size & (d->page_size - 1)))
            return FAIL(d, TREAD_ERROR_SYNTAX, d->pos + 2,
                        "page size %u (a power of two from 64 to 16 MiB)", d->page_size);
        td_page_layout_parse(&d->layout, NULL, 0, d->long_size);
        d->pos += 6;
        d->st = d->version == 7 ? S_V7_COMP : S_HDR_PAGE;
        return TD_DONE + 1;
    case S_V7_COMP:
    case S_V7_COMP_VER:
        if (!(h = td_need_str(d, d->pos, 64, &len, &bad))) {
            if (bad)
                return FAIL(d, TREAD_ERROR_SYNTAX, d->pos, "the compression name is not terminated");
            return truncated(d, "the compression header");
        }
        if (d->st == S_V7_COMP) {
            if (len == 4 && memcmp(h, "none", 4) == 0)
                d->comp = TD_COMP_NONE;
            else if (len == 4 && memcmp(h, "zstd", 4) == 0)
                d->comp = TD_COMP_ZSTD;
            else if (len == 4 && memcmp(h, "zlib", 4) == 0)
                d->comp = TD_COMP_ZLIB;
            else
                return FAIL(d, TREAD_ERROR_UNSUPPORTED, d->pos,
                            "compression \"%.*s\" (none, zlib and zstd are read)",
                            (int)(len > 32 ? 32 : len), h);
        }
        d->pos += len + 1;
        d->st++;
        return TD_DONE + 1;
    case S_V7_OPTOFF:
        if (!td_need(d, d->pos, 8))
            return truncated(d, "the compression header");
        d->pos += 8; /* sections are walked in file order */
        d->st = S_V7_SECTION;
        return TD_DONE + 1;
    case S_V7_SECTION: {
        int r = v7_section(d);
        if (r == TD_NEED && d->file)
            return FAIL(d, TREAD_ERROR_SYNTAX, d->pos, "the file ends inside a section header");
        if (r == TD_DONE) {
            d->st = S_END;
            if (!d->options_done)
                tread__warn(d->p, TREAD_WARN_TRUNCATED_EVENT, d->pos,
                            "no options section ends the file's chain: it may be cut short");
        }
        return r;
    }
    case S_HDR_PAGE:
    case S_HDR_EVENT: {
        const char *key = d->st == S_HDR_PAGE ? "header_page" : "header_event";
        size_t kl = strlen(key) + 1;
        if (!(h = td_need(d, d->pos, kl + 8)))
            return truncated(d, key);
        if (memcmp(h, key, kl) != 0)
            return FAIL(d, TREAD_ERROR_SYNTAX, d->pos, "expected \"%s\"", key);
        size = td_u64(d->be, h + kl);
        if (too_big(d, size, d->pos, key))
            return TD_ERROR;
        if (!(h = td_need(d, d->pos + kl + 8, (size_t)size)))
            return truncated(d, key);
        if (d->st == S_HDR_PAGE) {
            td_page_layout_parse(&d->layout, (const char *)h, (size_t)size, d->long_size);
            d->have_layout = 1;
        }
        d->pos += kl + 8 + size;
        d->st++;
        return TD_DONE + 1;
    }
    case S_FTRACE_COUNT:
    case S_SYS_COUNT:
        if (!(h = td_need(d, d->pos, 4)))
            return truncated(d, "the format counts");
        if (d->st == S_FTRACE_COUNT) {
            d->items_left = td_u32(d->be, h);
            d->st = S_FTRACE_ITEM;
        } else {
            d->systems_left = td_u32(d->be, h);
            d->st = S_SYS_NAME;
        }
        d->pos += 4;
        return TD_DONE + 1;
    case S_FTRACE_ITEM:
    case S_EVENT_ITEM:
        if (d->items_left == 0) {
            d->st = d->st == S_FTRACE_ITEM ? S_SYS_COUNT : S_SYS_NAME;
            return TD_DONE + 1;
        }
        if (!(h = item(d, 8, &size, &err, "an event format")))
            return err ? TD_ERROR : truncated(d, "an event format");
        if (d->st == S_FTRACE_ITEM ? add_format(d, "ftrace", 6, h, (size_t)size, d->pos)
                                   : add_format(d, d->sysname, d->sysname_len, h, (size_t)size,
                                                d->pos))
            return TD_ERROR;
        d->pos += 8 + size;
        d->items_left--;
        return TD_DONE + 1;
    case S_SYS_NAME:
        if (d->systems_left == 0) {
            d->st = S_KALLSYMS;
            return TD_DONE + 1;
        }
        if (!(h = td_need_str(d, d->pos, 257, &len, &bad))) {
            if (bad)
                return FAIL(d, TREAD_ERROR_SYNTAX, d->pos, "an event system name over 256 bytes");
            return truncated(d, "an event system name");
        }
        memcpy(d->sysname, h, len);
        d->sysname[len] = 0;
        d->sysname_len = len;
        if (!(h = td_need(d, d->pos + len + 1, 4)))
            return truncated(d, "an event system");
        d->items_left = td_u32(d->be, h);
        d->pos += len + 1 + 4;
        d->systems_left--;
        d->c.systems++;
        d->st = S_EVENT_ITEM;
        return TD_DONE + 1;
    case S_KALLSYMS:
    case S_PRINTK:
    case S_CMDLINES: {
        /* not needed for the events read: skipped by their sizes */
        unsigned szl = d->st == S_CMDLINES ? 8 : 4;
        if (!(h = td_need(d, d->pos, szl)))
            return truncated(d, "kallsyms, printk formats or cmdlines");
        size = szl == 4 ? td_u32(d->be, h) : td_u64(d->be, h);
        if (size > UINT64_MAX / 2)
            return FAIL(d, TREAD_ERROR_SYNTAX, d->pos, "a size of %llu bytes",
                        (unsigned long long)size);
        if (d->st != S_CMDLINES && size) {
            td_text_loc *l = d->st == S_KALLSYMS ? &d->ks_loc : &d->pk_loc;
            /* a stream reads it now, when a format needs it (the formats
             * come first); a file when an event first needs it */
            int now = !d->file && (d->st == S_KALLSYMS ? d->formats.need_syms
                                                       : d->formats.need_printk);
            if (now && size <= d->limit && !td_need(d, d->pos + szl, (size_t)size))
                return truncated(d, "kallsyms or the printk formats");
            l->off = d->pos + szl;
            l->size = size;
            l->state = 1;
            if (now)
                td_syms_load(d, d->st == S_KALLSYMS);
        }
        if (d->st == S_KALLSYMS) d->c.kallsyms_bytes += size;
        if (d->st == S_PRINTK) d->c.printk_bytes += size;
        if (d->st == S_CMDLINES) d->c.cmdlines_bytes += size;
        d->pos += szl + size;
        d->st++;
        return TD_DONE + 1;
    }
    case S_CPUS:
        if (!(h = td_need(d, d->pos, 4)))
            return truncated(d, "the CPU count");
        d->ncpus = td_u32(d->be, h);
        if (d->ncpus > TD_MAX_CPUS)
            return FAIL(d, TREAD_ERROR_SYNTAX, d->pos, "%u CPUs (at most %u)", d->ncpus,
                        TD_MAX_CPUS);
        d->pos += 4;
        d->st = S_OPTSTR;
        return TD_DONE + 1;
    case S_OPTSTR:
        if (!(h = td_need(d, d->pos, 10)))
            return truncated(d, "the options/flyrecord label");
        if (memcmp(h, "options  ", 10) == 0) {
            d->st = S_OPTION;
        } else if (memcmp(h, "flyrecord", 10) == 0) {
            d->st = S_FLY;
        } else if (memcmp(h, "latency  ", 10) == 0) {
            return FAIL(d, TREAD_ERROR_UNSUPPORTED, d->pos,
                        "a latency trace.dat (its data is text: read it with trace-cmd report)");
        } else {
            return FAIL(d, TREAD_ERROR_SYNTAX, d->pos, "expected \"options\" or \"flyrecord\"");
        }
        d->pos += 10;
        return TD_DONE + 1;
    case S_OPTION: {
        if (!(h = td_need(d, d->pos, 2)))
            return truncated(d, "an option");
        uint16_t id = td_u16(d->be, h);
        if (id == 0) {
            d->pos += 2;
            d->st = S_OPTSTR;
            return TD_DONE + 1;
        }
        if (!(h = td_need(d, d->pos + 2, 4)))
            return truncated(d, "an option");
        size = td_u32(d->be, h);
        if (too_big(d, size, d->pos, "an option"))
            return TD_ERROR;
        if (!(h = td_need(d, d->pos + 6, (size_t)size)))
            return truncated(d, "an option");
        if (option(d, id, h, (uint32_t)size, d->pos) != 0)
            return TD_ERROR;
        d->pos += 6 + size;
        return TD_DONE + 1;
    }
    case S_FLY: {
        size_t n = (size_t)d->ncpus * 16;
        if (!(h = td_need(d, d->pos, n)))
            return truncated(d, "the flyrecord CPU table");
        for (uint32_t i = 0; i < d->ncpus; i++)
            if (td_add_cpu(d, 0, i, td_u64(d->be, h + 16 * i), td_u64(d->be, h + 16 * i + 8)) != 0)
                return TD_ERROR;
        d->nbuffers = 1;
        d->pos += n;
        d->st = S_V6_BUFFER;
        return TD_DONE + 1;
    }
    case S_V6_BUFFER: {
        if (d->v6_buf_next == d->v6_bufs) {
            d->st = S_END;
            return TD_DONE;
        }
        uint64_t at = d->v6_buf_off[d->v6_buf_next];
        size_t n = 10 + (size_t)d->ncpus * 16;
        if (!d->file) {
            /* its CPU table lies after the top buffer's data, which a
             * stream must read first */
            tread__warn(d->p, TREAD_WARN_UNKNOWN_RECORD, at,
                        "%u v6 instance buffer(s) not read: a stream reads the top buffer "
                        "only (read the file with tread_parse_path/_fd)",
                        d->v6_bufs);
            d->st = S_END;
            return TD_DONE;
        }
        if (!(h = td_need(d, at, n)))
            return d->file ? FAIL(d, TREAD_ERROR_SYNTAX, at,
                                  "an instance's CPU table runs past the end of the file")
                           : TD_NEED;
        if (memcmp(h, "flyrecord", 10) != 0)
            return FAIL(d, TREAD_ERROR_SYNTAX, at, "an instance's CPU table without \"flyrecord\"");
        uint32_t b = d->nbuffers++;
        d->c.buffers++;
        memcpy(d->buf_name[b], d->v6_buf_name[d->v6_buf_next], sizeof d->buf_name[b]);
        for (uint32_t i = 0; i < d->ncpus; i++)
            if (td_add_cpu(d, b, i, td_u64(d->be, h + 10 + 16 * i),
                           td_u64(d->be, h + 18 + 16 * i)) != 0)
                return TD_ERROR;
        d->pos = at + n;
        d->v6_buf_next++;
        return TD_DONE + 1;
    }
    default:
        return TD_DONE;
    }
}

int td_header_run(td_dec *d)
{
    for (;;) {
        int r = step(d);
        if (r != TD_DONE + 1)
            return r;
    }
}
