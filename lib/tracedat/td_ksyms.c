/* The kallsyms and printk-formats sections as lookup tables.
 *
 * kallsyms ("ffffffff81000000 T _stext\tmodule..." lines) becomes a sorted
 * array of (address, name offset) pairs over one blob of NUL-terminated
 * names: 16 bytes per symbol plus its name, about 0.9 of the text's size
 * (the addresses and types are dropped). Resolution follows trace-cmd
 * report (libtraceevent): absolute symbols (types A and a) and names
 * starting with '$' (ARM mapping symbols) are left out; of symbols at
 * one address the first in the file wins; an address resolves to the
 * symbol at or below it, except past the last symbol, which resolves
 * only at its own address.
 *
 * printk formats ("0xffffffff82a1b2c0 : \"format\"" lines) become the
 * same array keyed by the format's address, the names being the formats
 * with their C escapes undone and their trailing newlines dropped. */
#include <stdlib.h>
#include "tracedat/td_internal.h"

void td_syms_free(td_syms *s, tread_alloc *a)
{
    tread_free(a, s->ent);
    tread_free(a, s->names);
    memset(s, 0, sizeof *s);
}

/* A hex digit's value + 1 (0: not a digit): one load per digit, as a
 * kernel's kallsyms is 150-200 thousand 16-digit addresses. */
#define D10(x) [x] = x - '0' + 1
#define DAF(x, b) [x] = x - b + 11
static const unsigned char HEXV[256] = {
    D10('0'), D10('1'), D10('2'), D10('3'), D10('4'), D10('5'), D10('6'), D10('7'), D10('8'),
    D10('9'), DAF('a', 'a'), DAF('b', 'a'), DAF('c', 'a'), DAF('d', 'a'), DAF('e', 'a'),
    DAF('f', 'a'), DAF('A', 'A'), DAF('B', 'A'), DAF('C', 'A'), DAF('D', 'A'), DAF('E', 'A'),
    DAF('F', 'A'),
};

/* A hex number of 1..16 digits at *p (after an optional 0x). */
static int hex(const char **p, const char *e, uint64_t *out)
{
    const unsigned char *q = (const unsigned char *)*p, *end = (const unsigned char *)e;
    if (end - q >= 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
        q += 2;
    if (end - q > 16 && q[16] == ' ') { /* a 64-bit kernel's 16 digits: no branch a digit */
        uint64_t v = 0;
        unsigned bad = 0;
        for (int i = 0; i < 16; i++) {
            unsigned d = HEXV[q[i]];
            bad |= d == 0;
            v = v << 4 | ((d - 1) & 15);
        }
        if (!bad) {
            *p = (const char *)q + 16;
            *out = v;
            return 0;
        }
    }
    const unsigned char *s = q;
    uint64_t v = 0;
    unsigned h;
    while (q < end && (h = HEXV[*q]) != 0 && q - s < 17) {
        v = v << 4 | (h - 1);
        q++;
    }
    if (q == s || q - s > 16)
        return -1;
    *p = (const char *)q;
    *out = v;
    return 0;
}

static int cmp_ent(const void *a, const void *b)
{
    const td_sym *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq; /* the first in the file wins */
}

/* Allocates for at most lines entries and bytes of names. */
static int alloc_tables(td_syms *s, tread_alloc *a, size_t lines, size_t bytes, uint64_t limit)
{
    if ((uint64_t)lines * sizeof(td_sym) + bytes > limit)
        return -2;
    s->ent = tread_malloc(a, (lines ? lines : 1) * sizeof(td_sym));
    s->names = tread_malloc(a, bytes ? bytes : 1);
    if (!s->ent || !s->names) {
        td_syms_free(s, a);
        return -3;
    }
    return 0;
}

/* Sorts by address (stably), keeps the first of each address. */
static void finish(td_syms *s)
{
    int sorted = 1;
    for (size_t i = 1; i < s->n && sorted; i++)
        sorted = cmp_ent(&s->ent[i - 1], &s->ent[i]) <= 0;
    if (!sorted) {
        s->unsorted = 1;
        qsort(s->ent, s->n, sizeof *s->ent, cmp_ent);
    }
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++)
        if (k == 0 || s->ent[k - 1].addr != s->ent[i].addr)
            s->ent[k++] = s->ent[i];
    s->n = k;
}

/* The next line of [*p, end) that is not empty: [*b, *e), without its
 * newline; 0 at the end. */
static int next_line(const char **p, const char *end, const char **b, const char **e)
{
    while (*p < end) {
        const char *nl = memchr(*p, '\n', (size_t)(end - *p));
        *b = *p;
        *e = nl ? nl : end;
        *p = nl ? nl + 1 : end;
        if (*b != *e)
            return 1;
    }
    return 0;
}

/* The next entry: at addr, its name at names + nb (written by the caller). */
static void add_entry(td_syms *s, uint64_t addr, size_t nb)
{
    td_sym *x = &s->ent[s->n];
    x->addr = addr;
    x->name = (uint32_t)nb;
    x->seq = (uint32_t)s->n;
    s->n++;
}

static size_t count_lines(const char *t, size_t len)
{
    size_t n = 1;
    for (const char *q = t; (q = memchr(q, '\n', (size_t)(t + len - q))) != NULL; q++)
        n++;
    return n;
}

int td_kallsyms_parse(td_syms *s, tread_alloc *a, const char *text, size_t len, uint64_t limit)
{
    memset(s, 0, sizeof *s);
    int r = alloc_tables(s, a, count_lines(text, len), len + 1, limit);
    if (r)
        return r;
    const char *p = text, *end = text + len, *q, *e;
    size_t nb = 0;
    while (next_line(&p, end, &q, &e)) {
        uint64_t addr;
        if (hex(&q, e, &addr) != 0 || q >= e || *q != ' ' || e - q < 4 || q[2] != ' ') {
            s->bad++;
            continue;
        }
        char type = q[1];
        const char *nm = q + 3, *ne = memchr(nm, '\t', (size_t)(e - nm)); /* [module] */
        if (!ne)
            ne = e;
        while (ne > nm && (ne[-1] == ' ' || ne[-1] == '\r'))
            ne--;
        const char *sp = memchr(nm, ' ', (size_t)(ne - nm));
        if (sp) /* a blank inside: the name is what precedes it */
            ne = sp;
        if (ne == nm) {
            s->bad++;
            continue;
        }
        if (type == 'A' || type == 'a' || *nm == '$') {
            s->skipped++;
            continue;
        }
        add_entry(s, addr, nb);
        memcpy(s->names + nb, nm, (size_t)(ne - nm));
        nb += (size_t)(ne - nm);
        s->names[nb++] = 0;
    }
    s->names_len = nb;
    finish(s);
    return 0;
}

/* Undoes a format's C escapes into out; returns its length. */
static size_t unescape(const char *s, const char *e, char *out)
{
    size_t n = 0;
    while (s < e) {
        char c = *s++;
        if (c == '\\' && s < e) {
            char x = *s++;
            switch (x) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'a': c = '\a'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'v': c = '\v'; break;
            case 'e': c = 27; break;
            default: c = x; break; /* \\ \" \' */
            }
        }
        out[n++] = c;
    }
    while (n && out[n - 1] == '\n')
        n--;
    return n;
}

int td_printk_parse(td_syms *s, tread_alloc *a, const char *text, size_t len, uint64_t limit)
{
    memset(s, 0, sizeof *s);
    int r = alloc_tables(s, a, count_lines(text, len), len + 1, limit);
    if (r)
        return r;
    const char *p = text, *end = text + len, *q, *e;
    size_t nb = 0;
    while (next_line(&p, end, &q, &e)) {
        uint64_t addr;
        while (e > q && (e[-1] == '\r' || e[-1] == ' '))
            e--;
        if (hex(&q, e, &addr) != 0 || e - q < 5 || memcmp(q, " : \"", 4) != 0 ||
            e[-1] != '"' || e - 1 < q + 4) {
            s->bad++;
            continue;
        }
        add_entry(s, addr, nb);
        nb += unescape(q + 4, e - 1, s->names + nb);
        s->names[nb++] = 0;
    }
    s->names_len = nb;
    finish(s);
    return 0;
}

const char *td_syms_find(const td_syms *s, uint64_t addr, uint64_t *base)
{
    if (!s->n || addr < s->ent[0].addr)
        return NULL;
    size_t lo = 0, hi = s->n; /* the last entry with ent.addr <= addr */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->ent[mid].addr <= addr)
            lo = mid;
        else
            hi = mid;
    }
    if (lo == s->n - 1 && s->ent[lo].addr != addr)
        return NULL; /* past the last symbol: only its own address */
    if (base)
        *base = s->ent[lo].addr;
    return s->names + s->ent[lo].name;
}

const char *td_syms_exact(const td_syms *s, uint64_t addr)
{
    uint64_t b;
    const char *n = td_syms_find(s, addr, &b);
    return n && b == addr ? n : NULL;
}
