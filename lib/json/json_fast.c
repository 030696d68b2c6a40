#include "json/json_fast.h"
#include "core/args.h"

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
#endif

/* Bytes that end the plain part of a string: the closing quote, and the
 * backslash and control bytes, which send the record to yajl. */
static const unsigned char str_stop[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* Containers open inside one record that the fast path follows; deeper
 * records go to yajl. */
#define FAST_MAX_NEST 64

static inline int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* Where the plain text of the string starting at p stops: at its closing
 * quote, at an escape or control byte, or at end. Most strings are keys
 * and names of a few bytes, so the first step usually finds the quote;
 * a hit there returns at once, without the byte loop. */
static inline const unsigned char *string_stop(const unsigned char *p, const unsigned char *end)
{
#if defined(__SSE2__) && defined(__GNUC__)
    /* sixteen bytes a step: '"', '\\' and bytes below 0x20 (max_epu8
     * with 0x1f equals 0x1f exactly there) */
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'),
                  ctl = _mm_set1_epi8(0x1f);
    while (end - p >= 16) {
        __m128i w = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, quote), _mm_cmpeq_epi8(w, bslash)),
                                   _mm_cmpeq_epi8(_mm_max_epu8(w, ctl), ctl));
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m)
            return p + __builtin_ctz(m);
        p += 16;
    }
#endif
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* eight bytes at a time: the lowest flagged byte of the three tests
     * is always a true hit, so it is exact */
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    while (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
        uint64_t hit = (((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w)) & highs;
        if (hit)
            return p + (__builtin_ctzll(hit) >> 3);
        p += 8;
    }
#endif
    while (p < end && !str_stop[*p])
        p++;
    return p;
}

/* The end of the JSON number at p, or NULL when it is malformed or may go
 * on past the chunk (the byte after it must be seen; *cut is then set). */
static inline const unsigned char *number_end(const unsigned char *p, const unsigned char *end,
                                              int *cut)
{
    if (*p == '-' && ++p == end)
        return *cut = 1, NULL;
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        do
            p++;
        while (p < end && is_digit(*p));
    } else {
        return NULL;
    }
    if (p < end && *p == '.') {
        const unsigned char *digits = ++p;
        while (p < end && is_digit(*p))
            p++;
        if (p == digits)
            return *cut = p == end, NULL;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        const unsigned char *digits = p;
        while (p < end && is_digit(*p))
            p++;
        if (p == digits)
            return *cut = p == end, NULL;
    }
    return p < end ? p : (*cut = 1, NULL);
}

/* args_put_str for text inside the input: short strings are copied as one
 * 16-byte block when the input and the buffer have room for it, which
 * beats a memcpy call for the keys and names that make up most tokens. */
static inline int put_text(tread_buf *b, unsigned type, const unsigned char *s, size_t n,
                           const unsigned char *in_end)
{
    if (n <= 16 && in_end - s >= 16 && b->cap - b->len >= 6 + 16) {
        unsigned char *o = b->data + b->len;
        uint32_t n32 = (uint32_t)n;
        o[0] = (unsigned char)type;
        memcpy(o + 1, &n32, 4);
        memcpy(o + 5, s, 16);
        o[5 + n] = 0;
        b->len += n + 6;
        return 0;
    }
    return args_put_str(b, type, s, n);
}

size_t json_fast_record(json_decoder *d, const unsigned char *s, size_t n, int *cut)
{
    json_record *r = &d->rec;
    tread_buf *tok = &r->tok;
    const unsigned char *p = s + 1, *end = s + n;
    const size_t max_str = d->p->max_string_bytes;
    unsigned char stack[FAST_MAX_NEST]; /* 'm' or 'a' per container inside */
    int nest = 0;
    int field = -1, vf = -1;
    int cont_f = -1; /* the field whose container is open at nest 0, or -1 */
    if (d->depth >= d->max_depth)
        return 0;
    int max_nest = d->max_depth - d->depth - 1;
    if (max_nest > FAST_MAX_NEST)
        max_nest = FAST_MAX_NEST;

/* Every way out but the record's own '}' is "not plain": yajl decides. */
#define WS()                                        \
    do {                                            \
        while (p < end && *p <= ' ' && json_is_ws(*p)) \
            p++;                                    \
        if (p == end)                               \
            return *cut = 1, 0;                     \
    } while (0)
#define PUT(call)                           \
    do {                                    \
        if (call)                           \
            return 0;                       \
    } while (0)

    WS();
    if (*p != '"')
        return 0; /* an empty record too: yajl's path warns about it */

key: /* p is at the key's opening quote */
    {
        const unsigned char *k = p + 1, *q = string_stop(k, end);
        if (q == end)
            return *cut = 1, 0;
        if (*q != '"' || (size_t)(q - k) > max_str)
            return 0;
        if (nest == 0)
            field = json_field_lookup(k, (size_t)(q - k));
        PUT(put_text(tok, TOK_KEY, k, (size_t)(q - k), end));
        p = q + 1;
        WS();
        if (*p != ':')
            return 0;
        p++;
        WS();
    }

value: /* p is at the value's first byte */
    vf = field;
    if (field >= 0) {
        r->field[field] = tok->len + 1;
        field = -1;
    }
    switch (*p) {
    case '"': {
        const unsigned char *v = p + 1, *q = string_stop(v, end);
        if (q == end)
            return *cut = 1, 0;
        if (*q != '"' || (size_t)(q - v) > max_str)
            return 0;
        PUT(put_text(tok, TOK_STR, v, (size_t)(q - v), end));
        p = q + 1;
        break;
    }
    case '{':
        if (nest >= max_nest)
            return 0;
        if (nest == 0)
            cont_f = vf;
        stack[nest++] = 'm';
        PUT(args_put_tok(tok, TOK_DICT_BEGIN));
        p++;
        WS();
        if (*p == '"')
            goto key;
        if (*p != '}')
            return 0;
        nest--;
        PUT(args_put_tok(tok, TOK_DICT_END));
        p++;
        goto closed;
    case '[':
        if (nest >= max_nest)
            return 0;
        if (nest == 0)
            cont_f = vf;
        stack[nest++] = 'a';
        PUT(args_put_tok(tok, TOK_ARRAY_BEGIN));
        p++;
        WS();
        if (*p != ']')
            goto value;
        nest--;
        PUT(args_put_tok(tok, TOK_ARRAY_END));
        p++;
        goto closed;
    case 't':
        if (end - p < 4)
            return *cut = 1, 0;
        if (memcmp(p, "true", 4) != 0)
            return 0;
        PUT(args_put_tok(tok, TOK_TRUE));
        p += 4;
        break;
    case 'f':
        if (end - p < 5)
            return *cut = 1, 0;
        if (memcmp(p, "false", 5) != 0)
            return 0;
        PUT(args_put_tok(tok, TOK_FALSE));
        p += 5;
        break;
    case 'n':
        if (end - p < 4)
            return *cut = 1, 0;
        if (memcmp(p, "null", 4) != 0)
            return 0;
        PUT(args_put_tok(tok, TOK_NULL));
        p += 4;
        break;
    default: {
        const unsigned char *q = NULL;
        if (vf >= JF_TS && vf <= JF_TDUR) {
            /* a time or an id: read as a number too, in the usual shape
             * ([-]digits[.digits], 15 digits at most, 1 to 3 after the
             * point, no exponent), which is timeconv_decimal_scaled's
             * fast path: emitting then gets the same value without
             * reading the text again. Other shapes: number_end. */
            const unsigned char *x = p + (*p == '-'), *d0 = x;
            uint64_t v = 0;
            while (x < end && is_digit(*x))
                v = v * 10 + (unsigned)(*x++ - '0');
            size_t ni = (size_t)(x - d0), nf = 0;
            if (x < end && *x == '.') {
                const unsigned char *f0 = ++x;
                while (x < end && is_digit(*x))
                    v = v * 10 + (unsigned)(*x++ - '0');
                nf = (size_t)(x - f0);
                if (nf == 0 || nf > 3)
                    ni = 0; /* not this shape */
            }
            if (x < end && ni >= 1 && ni + nf <= 15 && (*d0 != '0' || ni == 1) && *x != 'e' &&
                *x != 'E') {
                r->num[vf] = *p == '-' ? -(int64_t)v : (int64_t)v;
                r->num_frac[vf] = (unsigned char)nf;
                r->num_ok |= 1u << vf;
                r->num_at[vf] = tok->len + 1;
                q = x;
            }
        }
        if (!q)
            q = number_end(p, end, cut);
        if (!q || (size_t)(q - p) > max_str)
            return 0;
        PUT(put_text(tok, TOK_NUM, p, (size_t)(q - p), end));
        p = q;
        break;
    }
    }
    if (0) {
    closed: /* a container ended: at nest 0, say where its tokens end */
        if (nest == 0 && cont_f >= 0) {
            r->cend_ok |= 1u << cont_f;
            r->cend_at[cont_f] = r->field[cont_f];
            r->cend[cont_f] = tok->len;
            cont_f = -1;
        }
    }

    /* after a value: a comma, or the end of its container; a literal or
     * number followed by anything else (1x, 01, truex) is not plain */
    for (;;) {
        WS();
        int in_map = nest == 0 || stack[nest - 1] == 'm';
        if (*p == ',') {
            p++;
            WS();
            if (!in_map)
                goto value;
            if (*p != '"')
                return 0;
            goto key;
        }
        if (*p == '}' && in_map) {
            p++;
            if (nest == 0)
                return (size_t)(p - s);
            nest--;
            PUT(args_put_tok(tok, TOK_DICT_END));
            goto closed;
        }
        if (*p == ']' && !in_map) {
            p++;
            nest--;
            PUT(args_put_tok(tok, TOK_ARRAY_END));
            goto closed;
        }
        return 0;
    }
#undef WS
#undef PUT
}

/* After a number at q (< end): 1 when what follows, up to the next value,
 * is plain: blanks, then the array's ']' or a comma and the first byte of
 * a number. yajl learns that a number ended only from the byte after it,
 * and by then the filter has read ahead and said what it found (a
 * trailing comma, a comment, NaN): such a number is yajl's, so that its
 * event comes after those warnings as it does without the fast path.
 * 0 otherwise, with *cut set when the bytes at hand end first. */
static inline int next_is_plain(const unsigned char *q, const unsigned char *end, int *cut)
{
    if (end - q >= 2 && *q == ',' && (is_digit(q[1]) || q[1] == '-'))
        return 1; /* written compactly, as node and DevTools do */
    while (q < end && json_is_ws(*q))
        q++;
    if (q == end)
        return *cut = 1, 0;
    if (*q == ']')
        return 1;
    if (*q != ',')
        return 0;
    q++;
    while (q < end && json_is_ws(*q))
        q++;
    if (q == end)
        return *cut = 1, 0;
    return *q == '-' || is_digit(*q);
}

/* The values of a .cpuprofile's samples[] or timeDeltas[] (which: 0 or
 * 1), each given to json_profile_file_value as the yajl path gives it
 * (scalar() in json_decoder.c): a plain number whose next byte, within
 * the bytes at hand, is a blank, a comma or the array's ']'. Anything
 * else (a string, a literal, a comment, "01", a number the chunk cuts)
 * is yajl's, from before the comma. The numbers of these two arrays are
 * most of a profile's bytes, and yajl with the filter cost ~540 of the
 * ~830 instructions a sample took before (doc/formats/cpuprofile.md). */
static int fast_numbers(json_decoder *d, const unsigned char *data, size_t len, size_t *pos,
                        int which)
{
    tread_parser *p = d->p;
    const unsigned char *end = data + len;
    size_t i = *pos;
    int outcome = FAST_BAIL;
    for (;;) {
        size_t j = i;
        if (len - j >= 2 && data[j] == ',' && d->fast_had_value &&
            (is_digit(data[j + 1]) || data[j + 1] == '-')) {
            j++; /* a comma and the next number: the common case */
            goto number;
        }
        while (j < len && json_is_ws(data[j]))
            j++;
        if (j == len) {
            *pos = len;
            return FAST_DONE;
        }
        if (d->fast_had_value) {
            if (data[j] != ',') {
                if (data[j] == ']')
                    outcome = FAST_CUT;
                break;
            }
            j++;
            while (j < len && json_is_ws(data[j]))
                j++;
            if (j == len) {
                outcome = FAST_CUT;
                break;
            }
        }
    number:; /* a label may not precede a declaration in C11 */
        /* the common case read in one pass: an integer of 1 to 15
         * digits, which text_int and text_us (json_profile.c) read
         * exactly, goes in as a number */
        const unsigned char *sp = data + j, *q = sp + (*sp == '-'), *dig = q;
        uint64_t u = 0;
        while (q < end && is_digit(*q))
            u = u * 10 + (unsigned)(*q++ - '0');
        if (q == end) {
            outcome = FAST_CUT; /* it may go on in the next chunk */
            break;
        }
        size_t nd = (size_t)(q - dig);
        int rc, cut = 0;
        if (nd >= 1 && nd <= 15 && (*dig != '0' || nd == 1) && next_is_plain(q, end, &cut)) {
            int64_t v = *sp == '-' ? -(int64_t)u : (int64_t)u;
            i = (size_t)(q - data);
            d->fast_had_value = 1;
            d->fast_values++;
            d->last_good_off = p->dec_offset + i;
            d->last_good_kind = JSON_GOOD_VALUE;
            rc = json_profile_file_num(d, which, which ? v * 1000 : v, p->dec_offset + j);
        } else {
            /* a fraction, an exponent, a long integer: as text; 1x, 01,
             * 1"": yajl says what is wrong */
            if (!cut)
                q = number_end(sp, end, &cut);
            if (!q || cut || (size_t)(q - sp) > p->max_string_bytes ||
                !next_is_plain(q, end, &cut)) {
                if (cut)
                    outcome = FAST_CUT;
                break;
            }
            size_t n = (size_t)(q - sp);
            i = j + n;
            d->fast_had_value = 1;
            d->fast_values++;
            d->last_good_off = p->dec_offset + i;
            d->last_good_kind = JSON_GOOD_VALUE;
            rc = json_profile_file_value(d, which, TOK_NUM, (const char *)sp, n,
                                         p->dec_offset + j);
        }
        if (rc < 0 || p->state == P_ERROR) {
            *pos = i;
            return FAST_ERROR;
        }
        if (p->stop_requested) {
            p->stop_requested = 0;
            *pos = i;
            return FAST_PAUSED;
        }
    }
    *pos = i;
    return outcome;
}

int json_fast_run(json_decoder *d, const unsigned char *data, size_t len, size_t *pos)
{
    if (d->role[d->depth - 1] == ROLE_PSAMPLES || d->role[d->depth - 1] == ROLE_PDELTAS)
        return fast_numbers(d, data, len, pos, d->role[d->depth - 1] == ROLE_PDELTAS);
    tread_parser *p = d->p;
    tread_json_section sect = TREAD_JSON_TRACE_EVENTS;
    switch (d->role[d->depth - 1]) {
    case ROLE_SAMPLES: sect = TREAD_JSON_SAMPLES; break;
    case ROLE_SYS_EVENTS: sect = TREAD_JSON_SYSTEM_EVENTS; break;
    case ROLE_NODES: sect = TREAD_JSON_PROFILE_NODES; break;
    default: break;
    }
    size_t i = *pos;
    int outcome = FAST_BAIL;
    for (;;) {
        size_t j = i;
        while (j < len && json_is_ws(data[j]))
            j++;
        if (j == len) {
            *pos = len; /* blanks change nothing for yajl either */
            return FAST_DONE;
        }
        if (d->fast_had_value) {
            /* a comma is taken only with the record after it, so that yajl
             * never has to be told about a comma it did not see */
            if (data[j] != ',') {
                if (data[j] == ']')
                    outcome = FAST_CUT; /* the array ends */
                break;
            }
            j++;
            while (j < len && json_is_ws(data[j]))
                j++;
            if (j == len) {
                outcome = FAST_CUT;
                break;
            }
        }
        if (data[j] != '{')
            break;
        if (json_range_mark(d, p->dec_offset + j)) {
            *pos = i;
            return p->range_done ? FAST_RANGE_END : FAST_BAIL;
        }
        json_record_reset(&d->rec, sect, p->dec_offset + j);
        int cut = 0;
        size_t n = json_fast_record(d, data + j, len - j, &cut);
        if (!n) {
            if (cut)
                outcome = FAST_CUT;
            break;
        }
        i = j + n;
        d->fast_had_value = 1;
        d->last_good_off = p->dec_offset + i;
        d->last_good_kind = JSON_GOOD_VALUE;
        p->stats.fast_records++;
        if (json_emit_record(d, 0)) {
            d->emit_pending = 1;
            p->stop_requested = 1;
        }
        if (p->state == P_ERROR) {
            *pos = i;
            return FAST_ERROR;
        }
        if (p->stop_requested) {
            p->stop_requested = 0;
            *pos = i;
            return FAST_PAUSED;
        }
    }
    *pos = i;
    return outcome;
}
