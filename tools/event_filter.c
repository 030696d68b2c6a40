/* event_filter: see event_filter.h. */
#include "event_filter.h"

#include <stdlib.h>
#include <string.h>

void event_filter_init(event_filter *f)
{
    memset(f, 0, sizeof *f);
}

static void patterns_free(ef_patterns *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i].s);
    free(p->v);
    memset(p, 0, sizeof *p);
}

void event_filter_free(event_filter *f)
{
    patterns_free(&f->names);
    patterns_free(&f->cats);
    free(f->pids.v);
    free(f->tids.v);
    memset(f, 0, sizeof *f);
}

int event_filter_add_kind_name(event_filter *f, const char *name)
{
    for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++)
        if (strcmp(name, tread_event_kind_name((tread_event_kind)k)) == 0) {
            f->kinds |= (uint64_t)1 << k;
            f->has_kinds = 1;
            return 0;
        }
    return -1;
}

static int has_glob_chars(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] == '*' || s[i] == '?' || s[i] == '[')
            return 1;
    return 0;
}

int event_filter_add_pattern(ef_patterns *p, const char *s, size_t len, ef_match how)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 4;
        ef_pattern *v = realloc(p->v, cap * sizeof *v);
        if (!v)
            return -1;
        p->v = v;
        p->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, s, len);
    copy[len] = '\0';
    p->v[p->n].s = copy;
    p->v[p->n].len = len;
    p->v[p->n].glob = how == EF_GLOB || (how == EF_AUTO && has_glob_chars(s, len));
    p->n++;
    return 0;
}

int event_filter_add_id(ef_ids *ids, int64_t v)
{
    if (ids->n == ids->cap) {
        size_t cap = ids->cap ? ids->cap * 2 : 4;
        int64_t *nv = realloc(ids->v, cap * sizeof *nv);
        if (!nv)
            return -1;
        ids->v = nv;
        ids->cap = cap;
    }
    ids->v[ids->n++] = v;
    return 0;
}

void event_filter_finish(event_filter *f)
{
    f->active = f->has_kinds || f->names.n || f->cats.n || f->pids.n || f->tids.n ||
                f->has_start || f->has_end;
}

/* One [set] at pat[*pi] (just past '['); 1/0 whether c is in it, -1 when
 * the set is not closed (then '[' is an ordinary byte). Moves *pi past ']'. */
static int set_match(const char *pat, size_t plen, size_t *pi, unsigned char c)
{
    size_t i = *pi;
    int negate = 0, in = 0;
    if (i < plen && (pat[i] == '!' || pat[i] == '^')) {
        negate = 1;
        i++;
    }
    size_t first = i;
    while (i < plen && (pat[i] != ']' || i == first)) {
        unsigned char lo = (unsigned char)pat[i];
        if (i + 2 < plen && pat[i + 1] == '-' && pat[i + 2] != ']') {
            unsigned char hi = (unsigned char)pat[i + 2];
            if (c >= lo && c <= hi)
                in = 1;
            i += 3;
        } else {
            if (c == lo)
                in = 1;
            i++;
        }
    }
    if (i >= plen)
        return -1;
    *pi = i + 1;
    return in != negate;
}

/* Iterative, with one backtrack point (the last '*'): O(plen * slen) at
 * worst, no recursion whatever the pattern. */
int ef_glob_match(const char *pat, size_t plen, const char *s, size_t slen)
{
    size_t p = 0, i = 0, star_p = (size_t)-1, star_i = 0;
    while (i < slen) {
        if (p < plen) {
            char pc = pat[p];
            if (pc == '*') {
                star_p = ++p;
                star_i = i;
                continue;
            }
            if (pc == '?') {
                p++;
                i++;
                continue;
            }
            if (pc == '[') {
                size_t q = p + 1;
                int m = set_match(pat, plen, &q, (unsigned char)s[i]);
                if (m == 1) {
                    p = q;
                    i++;
                    continue;
                }
                if (m < 0 && s[i] == '[') {
                    p++;
                    i++;
                    continue;
                }
            } else if (pc == s[i]) {
                p++;
                i++;
                continue;
            }
        }
        if (star_p == (size_t)-1)
            return 0;
        p = star_p;
        i = ++star_i;
    }
    while (p < plen && pat[p] == '*')
        p++;
    return p == plen;
}

static int patterns_match(const ef_patterns *p, const tread_str *str)
{
    const char *s = str->ptr ? str->ptr : "";
    size_t len = str->ptr ? str->len : 0;
    for (size_t i = 0; i < p->n; i++) {
        const ef_pattern *pt = &p->v[i];
        if (pt->glob ? ef_glob_match(pt->s, pt->len, s, len)
                     : pt->len <= len && memcmp(s, pt->s, pt->len) == 0)
            return 1;
    }
    return 0;
}

static int ids_have(const ef_ids *ids, int64_t v)
{
    for (size_t i = 0; i < ids->n; i++)
        if (ids->v[i] == v)
            return 1;
    return 0;
}

int event_filter_pass(const event_filter *f, const tread_event *ev)
{
    if (!f->active)
        return 1;
    if (f->has_kinds && ((unsigned)ev->kind >= 64 || !(f->kinds >> ev->kind & 1)))
        return 0;
    if ((f->has_start || f->has_end) && (ev->flags & TREAD_HAS_TS)) {
        if (f->has_end && ev->ts >= f->end)
            return 0;
        if (f->has_start) {
            int64_t e = ev->ts;
            if ((ev->flags & TREAD_HAS_DUR) && ev->dur > 0)
                e = (ev->ts > 0 && ev->dur > INT64_MAX - ev->ts) ? INT64_MAX : ev->ts + ev->dur;
            if (e < f->start)
                return 0;
        }
    }
    if (f->pids.n && (!(ev->flags & TREAD_HAS_PID) || !ids_have(&f->pids, ev->pid)))
        return 0;
    /* tid: absent means "== pid" (tread.h), except when no pid either */
    if (f->tids.n) {
        if (!(ev->flags & (TREAD_HAS_TID | TREAD_HAS_PID)) || !ids_have(&f->tids, ev->tid))
            return 0;
    }
    if (f->names.n && !patterns_match(&f->names, &ev->name))
        return 0;
    if (f->cats.n && !patterns_match(&f->cats, &ev->cat))
        return 0;
    return 1;
}

int ef_parse_time(const char *s, int64_t *ns)
{
    static const struct {
        const char *suffix;
        int64_t mult;
        int digits; /* decimals that still make whole ns */
    } units[] = {{"ns", 1, 0}, {"us", 1000, 3}, {"ms", 1000000, 6}, {"s", 1000000000, 9}};
    int neg = 0;
    if (*s == '-' || *s == '+')
        neg = *s++ == '-';
    if (*s < '0' || *s > '9')
        return -1;
    uint64_t whole = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (whole > (UINT64_MAX - 9) / 10)
            return -1;
        whole = whole * 10 + (uint64_t)(*s - '0');
    }
    const char *frac = NULL;
    size_t nfrac = 0;
    if (*s == '.') {
        frac = ++s;
        while (*s >= '0' && *s <= '9')
            s++;
        nfrac = (size_t)(s - frac);
        if (nfrac == 0)
            return -1;
    }
    int64_t mult = 1;
    int digits = 0;
    if (*s) {
        size_t u = 0;
        while (u < sizeof units / sizeof units[0] && strcmp(s, units[u].suffix) != 0)
            u++;
        if (u == sizeof units / sizeof units[0])
            return -1;
        mult = units[u].mult;
        digits = units[u].digits;
    }
    if (whole > (uint64_t)INT64_MAX / (uint64_t)mult)
        return -1;
    uint64_t v = whole * (uint64_t)mult;
    /* the fraction, exactly, down to whole ns (finer digits must be 0) */
    uint64_t scale = (uint64_t)mult;
    for (size_t i = 0; i < nfrac; i++) {
        int d = frac[i] - '0';
        if ((int)i < digits) {
            scale /= 10;
            v += (uint64_t)d * scale;
        } else if (d != 0) {
            return -1; /* below a nanosecond */
        }
    }
    if (v > (uint64_t)INT64_MAX)
        return -1;
    *ns = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}
