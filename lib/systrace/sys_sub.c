#include "systrace/sys_sub.h"
#include "core/sniff.h"

#include <stdio.h>
#include <string.h>

void sys_counts_free(sys_counts *c, tread_parser *p)
{
    if (c->v)
        tread_free(&p->alloc, c->v);
    c->v = NULL;
    c->n = 0;
}

size_t sys_counts_put(const sys_counts *c, tread_counter *out, size_t max, size_t n)
{
    for (size_t i = 0; i < c->n; i++)
        n = tread__counter_put(out, max, n, c->v[i].name, c->v[i].value);
    return n;
}

/* Adds the nested decoder's counters to s->counts, before it is freed. */
static void harvest(sys_sub *s)
{
    sys_counts *c = s->counts;
    if (!c || !s->dec || !s->ops->counters)
        return;
    tread_counter got[128];
    size_t n = s->ops->counters(s->dec, got, 128);
    if (n > 128)
        n = 128;
    if (!c->v) {
        c->v = tread_malloc(&s->p->alloc, SYS_COUNTS_MAX * sizeof *c->v);
        if (!c->v)
            return; /* counters are a report: the trace goes on without them */
    }
    const char *fmt = tread_format_name(s->ops->format);
    for (size_t i = 0; i < n; i++) {
        char name[SYS_COUNT_NAME];
        snprintf(name, sizeof name, "%s.%s", fmt, got[i].name);
        size_t j = 0;
        while (j < c->n && strcmp(c->v[j].name, name) != 0)
            j++;
        if (j == c->n) {
            if (c->n == SYS_COUNTS_MAX)
                continue;
            memcpy(c->v[j].name, name, sizeof name);
            c->v[j].value = 0;
            c->n++;
        }
        c->v[j].value += got[i].value;
    }
}

int sys_sub_init(sys_sub *s, tread_parser *p, tread_format fallback, const char *what,
                 uint64_t off, sys_counts *counts)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->counts = counts;
    s->fallback = fallback;
    s->what = what;
    s->off = off;
    s->buf_off = off;
    s->next_off = off;
    s->buf = tread_malloc(&p->alloc, SYS_SUB_STAGE);
    if (!s->buf) {
        tread__fail(p, TREAD_ERROR_NOMEM, off, "out of memory");
        return -1;
    }
    return 0;
}

void sys_sub_free(sys_sub *s)
{
    harvest(s);
    if (s->dec)
        s->ops->destroy(s->dec);
    s->dec = NULL;
    if (s->buf)
        tread_free(&s->p->alloc, s->buf);
    s->buf = NULL;
}

unsigned char *sys_sub_room(sys_sub *s, size_t *room)
{
    /* never compacted: pieces then start at the same points of the text
     * whatever the chunking and the pauses, and so do the offsets the
     * nested decoder reports (a piece is fed whole before writing goes on) */
    if (!s->len)
        s->head = 0;
    *room = SYS_SUB_STAGE - s->head - s->len;
    return s->buf + s->head + s->len;
}

void sys_sub_commit(sys_sub *s, size_t n, uint64_t in_off)
{
    if (!s->len)
        s->buf_off = in_off;
    s->len += n;
}

/* Stops decoding this sub-trace: what is left of it is skipped. */
static void kill(sys_sub *s)
{
    harvest(s);
    if (s->dec)
        s->ops->destroy(s->dec);
    s->dec = NULL;
    s->dead = 1;
    s->decided = 1;
    s->resume = 0;
    s->head = s->len = 0;
}

/* Picks the nested decoder from the staged bytes. Returns 0 when decided
 * (or dead), 1 when more bytes are needed, -1 when out of memory. */
static int decide(sys_sub *s, int final)
{
    if (s->decided)
        return 0;
    /* containers put their data after a line break (systrace's blocks):
     * the sniffer looks from the first non-blank byte (a Perfetto stream,
     * which may start with 0x0a, is never carried this way) */
    size_t b = 0;
    while (b < s->len && (s->buf[s->head + b] == '\n' || s->buf[s->head + b] == '\r' ||
                          s->buf[s->head + b] == ' ' || s->buf[s->head + b] == '\t'))
        b++;
    if (b == s->len && !final && s->len < SYS_SUB_STAGE)
        return 1;
    int need_more = 0;
    tread_format f = tread_sniff_format(s->buf + s->head + b, s->len - b, final, &need_more);
    if (need_more && !final && s->len - b < TREAD_SNIFF_MAX && s->len < SYS_SUB_STAGE)
        return 1;
    if (b == s->len) {
        kill(s); /* empty: nothing to decode, nothing to say */
        return 0;
    }
    if (f == TREAD_FORMAT_UNKNOWN)
        f = s->fallback;
    const tread_decoder_ops *ops = f == TREAD_FORMAT_SYSTRACE ? NULL : tread__decoder_for(f);
    if (!ops) {
        tread__warn(s->p, TREAD_WARN_UNKNOWN_RECORD, s->off,
                    "%s holds %s, which tread cannot decode there: skipped", s->what,
                    f == TREAD_FORMAT_UNKNOWN ? "no trace format tread knows"
                                              : tread_format_name(f));
        kill(s);
        return 0;
    }
    s->ops = ops;
    s->dec = ops->create(s->p);
    if (!s->dec) {
        tread__fail(s->p, TREAD_ERROR_NOMEM, s->off, "out of memory");
        return -1;
    }
    s->decided = 1;
    return 0;
}

/* A nested failure other than memory becomes a warning: the container
 * goes on without the rest of this sub-trace. */
static tread_status nested_failed(sys_sub *s, int saved_state)
{
    tread_parser *p = s->p;
    if (p->err == TREAD_ERROR_NOMEM)
        return TREAD_STATUS_ERROR;
    char msg[sizeof p->err_msg];
    memcpy(msg, p->err_msg, sizeof msg);
    uint64_t at = p->err_offset;
    p->state = saved_state;
    p->err = TREAD_ERROR_NONE;
    p->err_msg[0] = 0;
    tread__warn(p, TREAD_WARN_BAD_RECORD, at, "%s: %s: the rest of it is skipped", s->what, msg);
    kill(s);
    return TREAD_STATUS_OK;
}

/* One call of the nested decoder's feed (data NULL, n 0 to resume), with
 * the parser's offset moved to the container offset off. */
static tread_status nested_feed(sys_sub *s, const unsigned char *d, size_t n, uint64_t off,
                                size_t *consumed)
{
    tread_parser *p = s->p;
    int saved_state = p->state;
    uint64_t saved = p->dec_offset;
    *consumed = 0;
    /* the sub-trace's events carry its own format */
    tread_format saved_fmt = p->stats.format;
    p->stats.format = s->ops->format;
    p->dec_offset = off;
    tread_status st = s->ops->feed(s->dec, d, n, consumed);
    p->dec_offset = saved;
    p->stats.format = saved_fmt;
    s->resume = st == TREAD_STATUS_PAUSED;
    /* whether the bytes were staged or passed zero-copy (buf_off only
     * follows the staged ones): the same offset whatever the feeding */
    if (d)
        s->next_off = off + *consumed;
    if (st == TREAD_STATUS_ERROR) {
        *consumed = n;
        return nested_failed(s, saved_state);
    }
    return st;
}

tread_status sys_sub_flush(sys_sub *s, int final)
{
    int rc = decide(s, final);
    if (rc)
        return rc < 0 ? TREAD_STATUS_ERROR : TREAD_STATUS_OK;
    if (s->dead) {
        s->head = s->len = 0;
        return TREAD_STATUS_OK;
    }
    if (s->resume) {
        /* the nested decoder finishes what it stopped in first */
        size_t c;
        tread_status st = nested_feed(s, NULL, 0, s->next_off, &c);
        if (st != TREAD_STATUS_OK || s->dead)
            return st;
    }
    while (s->len) {
        size_t c = 0;
        tread_status st = nested_feed(s, s->buf + s->head, s->len, s->buf_off, &c);
        if (s->dead)
            return st;
        if (c > s->len)
            c = s->len;
        s->head += c;
        s->len -= c;
        s->buf_off += c;
        if (!s->len)
            s->head = 0;
        if (st != TREAD_STATUS_OK)
            return st;
    }
    return TREAD_STATUS_OK;
}

tread_status sys_sub_pass(sys_sub *s, const unsigned char *d, size_t n, uint64_t off,
                          size_t *consumed)
{
    *consumed = 0;
    if (s->dead) {
        *consumed = n;
        return TREAD_STATUS_OK;
    }
    if (s->decided && !s->len && !s->resume) {
        tread_status st = nested_feed(s, d, n, off, consumed);
        if (s->dead)
            *consumed = n;
        return st;
    }
    /* undecided, or bytes staged before these: stage them too */
    while (*consumed < n) {
        size_t room;
        unsigned char *w = sys_sub_room(s, &room);
        if (room) {
            size_t k = n - *consumed < room ? n - *consumed : room;
            memcpy(w, d + *consumed, k);
            sys_sub_commit(s, k, off + *consumed);
            *consumed += k;
        }
        if (!s->decided && s->len < TREAD_SNIFF_MAX && *consumed == n)
            break; /* sniffing waits for more */
        tread_status st = sys_sub_flush(s, 0);
        if (st != TREAD_STATUS_OK || s->dead) {
            if (s->dead)
                *consumed = n;
            return st;
        }
        if (s->decided && !s->len && *consumed < n) {
            size_t c = 0;
            st = nested_feed(s, d + *consumed, n - *consumed, off + *consumed, &c);
            *consumed = s->dead ? n : *consumed + c;
            return st;
        }
    }
    return TREAD_STATUS_OK;
}

tread_status sys_sub_resume(sys_sub *s)
{
    return sys_sub_flush(s, 0);
}

tread_status sys_sub_finish(sys_sub *s)
{
    if (s->finished)
        return TREAD_STATUS_OK;
    tread_status st = sys_sub_flush(s, 1);
    if (st != TREAD_STATUS_OK)
        return st;
    if (s->dec) {
        tread_parser *p = s->p;
        int saved_state = p->state;
        uint64_t saved = p->dec_offset;
        tread_format saved_fmt = p->stats.format;
        p->stats.format = s->ops->format;
        /* the end of the sub-trace's input, for the nested decoder's
         * end-of-input reports (all staged bytes were fed above) */
        p->dec_offset = s->next_off;
        st = s->ops->finish(s->dec);
        p->dec_offset = saved;
        p->stats.format = saved_fmt;
        if (st == TREAD_STATUS_ERROR)
            st = nested_failed(s, saved_state);
        if (st != TREAD_STATUS_OK)
            return st;
    }
    s->finished = 1;
    return TREAD_STATUS_OK;
}
