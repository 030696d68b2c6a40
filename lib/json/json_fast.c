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

#if defined(__GNUC__)
#define JS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define JS_UNLIKELY(x) (x)
#endif

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

/* The digits at p (up to end) appended to *v (v = v * 10 + digit, modulo
 * 2^64: the callers take at most 15 digits); where they stop. Eight
 * bytes a step: times are 7 to 16 digits, and a digit loop costs ~8
 * instructions a digit. */
static inline const unsigned char *read_digits(const unsigned char *p, const unsigned char *end,
                                               uint64_t *v)
{
    uint64_t acc = *v;
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    static const uint64_t pow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                      100000000};
    while (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        /* a byte is a digit when its high nibble is 3 before and after
         * adding 6; a carry out of a non-digit byte (>= 0xfa) reaches
         * only later bytes, so the first non-digit is found exactly */
        const uint64_t f0 = 0xf0f0f0f0f0f0f0f0ull, t3 = 0x3030303030303030ull;
        uint64_t bad = ((w & f0) ^ t3) | (((w + 0x0606060606060606ull) & f0) ^ t3);
        unsigned k = bad ? (unsigned)__builtin_ctzll(bad) >> 3 : 8;
        if (k == 0)
            break;
        /* the k digits to the top bytes, zeros below them: the usual
         * three multiplications make the 8-digit number */
        uint64_t d = (w & 0x0f0f0f0f0f0f0f0full) << (8 * (8 - k));
        d = (d * 10 + (d >> 8)) & 0x00ff00ff00ff00ffull;
        d = (d * 100 + (d >> 16)) & 0x0000ffff0000ffffull;
        d = (d * 10000 + (d >> 32)) & 0xffffffffull;
        acc = acc * pow10[k] + d;
        p += k;
        if (k < 8) {
            *v = acc;
            return p;
        }
    }
#endif
    while (p < end && is_digit(*p))
        acc = acc * 10 + (unsigned)(*p++ - '0');
    *v = acc;
    return p;
}

/* json_field_lookup, with the keys nearly every event has (ph, ts, pid,
 * tid, cat, dur, tts, name, args, tdur) told apart by one word compare
 * each when four bytes can be read at k. */
static inline int key_field(const unsigned char *k, size_t n, const unsigned char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define W4(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
    if (n >= 2 && n <= 4 && end - k >= 4) {
        uint32_t w;
        memcpy(&w, k, 4);
        switch (n) {
        case 2:
            w &= 0xffff;
            if (w == W4('t', 's', 0, 0)) return JF_TS;
            if (w == W4('p', 'h', 0, 0)) return JF_PH;
            break;
        case 3:
            w &= 0xffffff;
            if (w == W4('p', 'i', 'd', 0)) return JF_PID;
            if (w == W4('t', 'i', 'd', 0)) return JF_TID;
            if (w == W4('c', 'a', 't', 0)) return JF_CAT;
            if (w == W4('d', 'u', 'r', 0)) return JF_DUR;
            if (w == W4('t', 't', 's', 0)) return JF_TTS;
            break;
        default:
            if (w == W4('n', 'a', 'm', 'e')) return JF_NAME;
            if (w == W4('a', 'r', 'g', 's')) return JF_ARGS;
            if (w == W4('t', 'd', 'u', 'r')) return JF_TDUR;
            break;
        }
    }
#undef W4
#endif
    return json_field_lookup(k, n);
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
#define WS()                                                \
    do {                                                    \
        if (JS_UNLIKELY(p == end || *p <= ' ')) {           \
            while (p < end && *p <= ' ' && json_is_ws(*p))  \
                p++;                                        \
            if (p == end)                                   \
                return *cut = 1, 0;                         \
        }                                                   \
    } while (0)
/* The tokens go out through a local cursor (od, olen, ocap), which the
 * compiler keeps in registers: stores of token bytes could alias tok's
 * members, so writing through tok would reload them after every byte.
 * tok->len is set again before anything that may grow the buffer and
 * when the record is done (a record handed to yajl starts over). */
#define LOAD_OUT() (od = tok->data, olen = tok->len, ocap = tok->cap)
#define PUT_TOK(type)                                   \
    do {                                                \
        if (olen < ocap) {                              \
            od[olen++] = (unsigned char)(type);         \
        } else {                                        \
            tok->len = olen;                            \
            if (args_put_tok(tok, (type)))              \
                return 0;                               \
            LOAD_OUT();                                 \
        }                                               \
    } while (0)
/* text inside the input: short strings go as one 16-byte block when the
 * input and the buffer have room for it, which beats a memcpy call for
 * the keys and names that make up most tokens */
#define PUT_TEXT(type, str, n)                                                    \
    do {                                                                          \
        const unsigned char *s_ = (str);                                          \
        size_t n_ = (n);                                                          \
        if (n_ <= 16 && end - s_ >= 16 && ocap - olen >= 6 + 16) {                \
            unsigned char *o_ = od + olen;                                        \
            uint32_t n32_ = (uint32_t)n_;                                         \
            o_[0] = (unsigned char)(type);                                        \
            memcpy(o_ + 1, &n32_, 4);                                             \
            memcpy(o_ + 5, s_, 16);                                               \
            o_[5 + n_] = 0;                                                       \
            olen += n_ + 6;                                                       \
        } else {                                                                  \
            tok->len = olen;                                                      \
            if (args_put_str(tok, (type), s_, n_))                                \
                return 0;                                                         \
            LOAD_OUT();                                                           \
        }                                                                         \
    } while (0)
    unsigned char *od;
    size_t olen, ocap;
    LOAD_OUT();

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
            field = key_field(k, (size_t)(q - k), end);
        PUT_TEXT(TOK_KEY, k, (size_t)(q - k));
        if (end - q > 2 && q[1] == ':' && q[2] > ' ') {
            p = q + 2; /* "key":value, as most writers put it */
        } else {
            p = q + 1;
            WS();
            if (*p != ':')
                return 0;
            p++;
            WS();
        }
    }

value: /* p is at the value's first byte */
    vf = field;
    if (field >= 0) {
        r->field[field] = olen + 1;
        field = -1;
    }
    switch (*p) {
    case '"': {
        const unsigned char *v = p + 1, *q = string_stop(v, end);
        if (q == end)
            return *cut = 1, 0;
        if (*q != '"' || (size_t)(q - v) > max_str)
            return 0;
        PUT_TEXT(TOK_STR, v, (size_t)(q - v));
        p = q + 1;
        break;
    }
    case '{':
        if (nest >= max_nest)
            return 0;
        if (nest == 0)
            cont_f = vf;
        stack[nest++] = 'm';
        PUT_TOK(TOK_DICT_BEGIN);
        p++;
        WS();
        if (*p == '"')
            goto key;
        if (*p != '}')
            return 0;
        nest--;
        PUT_TOK(TOK_DICT_END);
        p++;
        goto closed;
    case '[':
        if (nest >= max_nest)
            return 0;
        if (nest == 0)
            cont_f = vf;
        stack[nest++] = 'a';
        PUT_TOK(TOK_ARRAY_BEGIN);
        p++;
        WS();
        if (*p != ']')
            goto value;
        nest--;
        PUT_TOK(TOK_ARRAY_END);
        p++;
        goto closed;
    case 't':
        if (end - p < 4)
            return *cut = 1, 0;
        if (memcmp(p, "true", 4) != 0)
            return 0;
        PUT_TOK(TOK_TRUE);
        p += 4;
        break;
    case 'f':
        if (end - p < 5)
            return *cut = 1, 0;
        if (memcmp(p, "false", 5) != 0)
            return 0;
        PUT_TOK(TOK_FALSE);
        p += 5;
        break;
    case 'n':
        if (end - p < 4)
            return *cut = 1, 0;
        if (memcmp(p, "null", 4) != 0)
            return 0;
        PUT_TOK(TOK_NULL);
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
            x = read_digits(x, end, &v);
            size_t ni = (size_t)(x - d0), nf = 0;
            if (x < end && *x == '.') {
                const unsigned char *f0 = ++x;
                x = read_digits(x, end, &v);
                nf = (size_t)(x - f0);
                if (nf == 0 || nf > 3)
                    ni = 0; /* not this shape */
            }
            if (x < end && ni >= 1 && ni + nf <= 15 && (*d0 != '0' || ni == 1) && *x != 'e' &&
                *x != 'E') {
                r->num[vf] = *p == '-' ? -(int64_t)v : (int64_t)v;
                r->num_frac[vf] = (unsigned char)nf;
                r->num_ok |= 1u << vf;
                r->num_at[vf] = olen + 1;
                q = x;
            }
        }
        if (!q)
            q = number_end(p, end, cut);
        if (!q || (size_t)(q - p) > max_str)
            return 0;
        PUT_TEXT(TOK_NUM, p, (size_t)(q - p));
        p = q;
        break;
    }
    }
    if (0) {
    closed: /* a container ended: at nest 0, say where its tokens end */
        if (nest == 0 && cont_f >= 0) {
            r->cend_ok |= 1u << cont_f;
            r->cend_at[cont_f] = r->field[cont_f];
            r->cend[cont_f] = olen;
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
            if (nest == 0) {
                tok->len = olen;
                return (size_t)(p - s);
            }
            nest--;
            PUT_TOK(TOK_DICT_END);
            goto closed;
        }
        if (*p == ']' && !in_map) {
            p++;
            nest--;
            PUT_TOK(TOK_ARRAY_END);
            goto closed;
        }
        return 0;
    }
#undef WS
#undef LOAD_OUT
#undef PUT_TOK
#undef PUT_TEXT
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
