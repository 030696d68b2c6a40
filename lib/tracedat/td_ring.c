/* Ring-buffer pages as the kernel writes them (kernel/trace/ring_buffer.c):
 * a page header (timestamp, commit with the lost-events flags), then
 * events, each a 32-bit header (type_len:5, time_delta:27; in that bit
 * order on a little-endian machine, the other way on a big-endian one). */
#include "tracedat/td_internal.h"

#define RB_MISSED_EVENTS (1u << 31)
#define RB_MISSED_STORED (1u << 30)
#define TYPE_PADDING 29
#define TYPE_TIME_EXTEND 30
#define TYPE_TIME_STAMP 31
#define TS_SHIFT 27
#define TS_MSB (~((1ull << 59) - 1)) /* what an absolute stamp does not hold */

static int field_at(const char *text, size_t len, const char *name, unsigned *off, unsigned *size)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i + nl < len; i++) {
        if (memcmp(text + i, name, nl) != 0 || text[i + nl] != ';')
            continue;
        const char *e = memchr(text + i, '\n', len - i);
        size_t el = e ? (size_t)(e - (text + i)) : len - i;
        unsigned v[2] = {0, 0};
        const char *keys[2] = {"offset:", "size:"};
        for (int k = 0; k < 2; k++) {
            const char *q = NULL;
            size_t kl = strlen(keys[k]);
            for (size_t j = 0; j + kl <= el; j++)
                if (memcmp(text + i + j, keys[k], kl) == 0) {
                    q = text + i + j + kl;
                    break;
                }
            if (!q)
                return -1;
            int digits = 0;
            while (q < text + i + el && *q >= '0' && *q <= '9' && digits < 6) {
                v[k] = v[k] * 10 + (unsigned)(*q++ - '0');
                digits++;
            }
            if (!digits)
                return -1;
        }
        *off = v[0];
        *size = v[1];
        return 0;
    }
    return -1;
}

void td_page_layout_parse(td_page_layout *l, const char *text, size_t len, unsigned long_size)
{
    unsigned o, s;
    l->ts_off = 0;
    l->ts_size = 8;
    l->commit_off = 8;
    l->commit_size = long_size;
    l->data_off = 8 + long_size;
    if (!text)
        return;
    if (field_at(text, len, " timestamp", &o, &s) == 0 && s == 8)
        l->ts_off = o;
    if (field_at(text, len, " commit", &o, &s) == 0 && (s == 4 || s == 8)) {
        l->commit_off = o;
        l->commit_size = s;
    }
    if (field_at(text, len, " data", &o, &s) == 0)
        l->data_off = o;
}

int td_page_open(td_page *pg, const td_page_layout *l, int be, const unsigned char *data,
                 size_t size, const char **why)
{
    memset(pg, 0, sizeof *pg);
    if (l->ts_off + 8 > size || l->commit_off + l->commit_size > size || l->data_off > size) {
        *why = "the page header does not fit the page";
        return -1;
    }
    uint64_t commit = td_uint(be, data + l->commit_off, l->commit_size);
    /* the flags are an int's bits 31 and 30, sign-extended into a 64-bit
     * local_t: what is above bit 29 is flags, not size */
    uint64_t flags = commit & (RB_MISSED_EVENTS | RB_MISSED_STORED);
    commit &= (1u << 30) - 1;
    if (commit > size - l->data_off) {
        *why = "the page's commit runs past the page";
        return -1;
    }
    pg->data = data;
    pg->size = size;
    pg->pos = l->data_off;
    pg->end = l->data_off + (size_t)commit;
    pg->ts = td_u64(be, data + l->ts_off);
    pg->missed = (flags & RB_MISSED_EVENTS) != 0;
    if ((flags & RB_MISSED_STORED) && pg->end + l->commit_size <= size)
        pg->lost = td_uint(be, data + pg->end, l->commit_size);
    return 0;
}

int td_page_next(td_page *pg, int be, td_record *r, const char **why)
{
    while (pg->pos + 4 <= pg->end) {
        const unsigned char *h = pg->data + pg->pos;
        uint32_t w = td_u32(be, h);
        unsigned type_len = be ? w >> 27 : w & 0x1f;
        uint32_t delta = be ? w & ((1u << 27) - 1) : w >> 5;
        size_t at = pg->pos;
        size_t left = pg->end - pg->pos;
        switch (type_len) {
        case TYPE_PADDING:
            if (delta == 0) { /* the rest of the page is empty */
                pg->pos = pg->end;
                return 0;
            }
            if (left < 8) {
                *why = "a padding record cut by the page's end";
                return -1;
            }
            {
                uint32_t n = td_u32(be, h + 4);
                if (n > left - 4) {
                    *why = "a padding record runs past the page's commit";
                    return -1;
                }
                /* a discarded event: its time still counts (libtraceevent) */
                pg->ts += delta;
                pg->pos += 4 + (size_t)n;
                if (n < 4)
                    pg->pos = at + 8;
            }
            continue;
        case TYPE_TIME_EXTEND:
        case TYPE_TIME_STAMP: {
            if (left < 8) {
                *why = "a time record cut by the page's end";
                return -1;
            }
            uint64_t v = ((uint64_t)td_u32(be, h + 4) << TS_SHIFT) | delta;
            if (type_len == TYPE_TIME_EXTEND)
                pg->ts += v;
            else
                pg->ts = v | (pg->ts & TS_MSB);
            pg->pos += 8;
            continue;
        }
        case 0: {
            if (left < 8) {
                *why = "an event header cut by the page's end";
                return -1;
            }
            uint32_t n = td_u32(be, h + 4);
            if (n < 4 || n - 4 > left - 8) {
                *why = "an event's length runs past the page's commit";
                return -1;
            }
            pg->ts += delta;
            r->data = h + 8;
            r->len = n - 4;
            r->ts = pg->ts;
            r->at = at;
            pg->pos += 4 + (size_t)((n + 3) & ~3u);
            if (pg->pos > pg->end)
                pg->pos = pg->end;
            return 1;
        }
        default: {
            size_t n = (size_t)type_len * 4;
            if (n > left - 4) {
                *why = "an event's length runs past the page's commit";
                return -1;
            }
            pg->ts += delta;
            r->data = h + 4;
            r->len = n;
            r->ts = pg->ts;
            r->at = at;
            pg->pos += 4 + n;
            return 1;
        }
        }
    }
    if (pg->pos < pg->end) {
        *why = "bytes after the last event of the page";
        pg->pos = pg->end;
        return -1;
    }
    return 0;
}
