#include "json/json_scan.h"

#include <string.h>

#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
#define JS_SSE2 1
#endif

void json_scan_start(json_scan *s, unsigned char *stack, size_t stack_max, int had_value)
{
    int portable = s->portable;
    memset(s, 0, sizeof *s);
    s->portable = portable;
    s->stack = stack;
    s->stack_max = stack_max;
    s->had_value = had_value;
}

static inline int is_ws(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline void push(json_scan *s, unsigned char c)
{
    if (s->nest < s->stack_max)
        s->stack[s->nest] = c == '{' ? 'm' : 'a';
    s->nest++;
}

/* The string whose closing quote is at offset o: a profile marker? Its
 * bytes are checked when they are at hand, else it is assumed to be. */
static void check_marker(json_scan *s, const unsigned char *data, uint64_t off, uint64_t o)
{
    uint64_t len = o - s->str_start - 1;
    if (len != 1 && len != 10)
        return;
    if (s->str_start < off) {
        s->marked = 1;
        return;
    }
    const unsigned char *t = data + (s->str_start - off) + 1;
    if ((len == 1 && t[0] == 'P') || (len == 10 && memcmp(t, "CpuProfile", 10) == 0))
        s->marked = 1;
}

#ifdef JS_SSE2
/* Whether the string opening at data[q] (followed by 'P' or 'C') may be a
 * marker: "P" or "CpuProfile"; assumed so when the input ends first. */
static int marker_at(const unsigned char *data, size_t n, size_t q)
{
    size_t left = n - q - 1;
    const unsigned char *t = data + q + 1;
    if (t[0] == 'P')
        return left < 2 || t[1] == '"';
    return left < 11 || memcmp(t, "CpuProfile\"", 11) == 0;
}

static inline uint64_t prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* Inside a container element, outside strings and comments: 64 bytes a
 * step while 64 are left. Returns where it stopped: after the bracket
 * that closed the element (*ended), at a '/' outside strings, or at the
 * last short block, the string state carried into the byte loop. */
static size_t scan_blocks(json_scan *s, const unsigned char *data, size_t n, size_t i,
                          uint64_t off, int *ended)
{
    const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\'), v20 = _mm_set1_epi8(0x20),
                  vo = _mm_set1_epi8('{'), vc = _mm_set1_epi8('}'), vs = _mm_set1_epi8('/'),
                  vp = _mm_set1_epi8('P'), vC = _mm_set1_epi8('C');
    uint64_t in_str = 0;   /* all ones: the last block ended inside a string */
    uint64_t esc = 0;      /* 1: its last byte escapes this block's first */
    uint64_t prev_open = 0; /* its last byte opened a string */
    while (n - i >= 64) {
        const size_t base = i;
        const unsigned char *p = data + i;
        uint64_t q = 0, bs = 0, st = 0, pc = 0;
        for (int k = 0; k < 4; k++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
            __m128i o = _mm_or_si128(v, v20); /* '[' ']' as '{' '}' */
            int sh = 16 * k;
            q |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vq)) << sh;
            bs |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vb)) << sh;
            st |= (uint64_t)(unsigned)_mm_movemask_epi8(
                      _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(o, vo), _mm_cmpeq_epi8(o, vc)),
                                   _mm_cmpeq_epi8(v, vs)))
                  << sh;
            pc |= (uint64_t)(unsigned)_mm_movemask_epi8(
                      _mm_or_si128(_mm_cmpeq_epi8(v, vp), _mm_cmpeq_epi8(v, vC)))
                  << sh;
        }
        uint64_t umark = 0; /* escaped 'u's */
        if (bs | esc) {
            /* a backslash escapes the byte after it, which is then no
             * backslash of its own */
            uint64_t escaped = esc, b = bs & ~esc;
            esc = 0;
            while (b) {
                unsigned k = (unsigned)__builtin_ctzll(b);
                if (k == 63) {
                    esc = 1;
                    break;
                }
                escaped |= 1ull << (k + 1);
                b &= ~(3ull << k);
            }
            q &= ~escaped;
            for (uint64_t e = escaped; e; e &= e - 1)
                if (p[__builtin_ctzll(e)] == 'u')
                    umark |= e & -e;
        }
        uint64_t inside = prefix_xor(q) ^ in_str; /* opening quote in, closing out */
        uint64_t open = q & inside;
        uint64_t cand = open & (pc >> 1);
        if (prev_open && (pc & 1) && marker_at(data, n, base - 1))
            s->marked = 1;
        st &= ~inside;
        uint64_t upto = ~0ull; /* the bytes of this element in the block */
        while (st) {
            unsigned k = (unsigned)__builtin_ctzll(st);
            unsigned char c = p[k];
            if (c == '/') {
                upto = (1ull << k) - 1;
                i += k;
                break;
            }
            if (c == '{' || c == '[') {
                push(s, c);
            } else if (--s->nest == 0) {
                s->elem = JS_GAP;
                *ended = 1;
                upto = k == 63 ? ~0ull : (2ull << k) - 1;
                i += k + 1;
                break;
            }
            st &= st - 1;
        }
        if (umark & upto)
            s->marked = 1;
        for (cand &= upto; cand; cand &= cand - 1)
            if (marker_at(data, n, base + (size_t)__builtin_ctzll(cand)))
                s->marked = 1;
        if (upto != ~0ull || *ended)
            return i; /* outside any string */
        in_str = (uint64_t)((int64_t)inside >> 63);
        if (in_str && open)
            s->str_start = off + i + 63 - (uint64_t)__builtin_clzll(open);
        prev_open = open >> 63;
        i += 64;
    }
    s->in_str = in_str != 0;
    s->esc = (int)esc;
    return i;
}
#endif

static inline int scalar_byte(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '+' || c == '-' || c == '.';
}

int json_scan_run(json_scan *s, const unsigned char *data, size_t n, size_t *pi, uint64_t off,
                  uint64_t begin)
{
    size_t i = *pi;
    while (i < n) {
#ifdef JS_SSE2
        if (s->elem == JS_CONTAINER && !s->in_str && !s->comment && !s->portable && n - i >= 64) {
            int ended = 0;
            i = scan_blocks(s, data, n, i, off, &ended);
            if (ended) {
                if (s->marked) {
                    *pi = i;
                    return JS_MARKED;
                }
                continue;
            }
            if (i >= n)
                break;
        }
#endif
        unsigned char c = data[i];
        uint64_t o = off + i;
        if (s->comment) {
            if (s->comment == 1) {
                if (c == '/' || c == '*') {
                    s->comment = c == '/' ? 2 : 3;
                    i++;
                    continue;
                }
                s->comment = 0; /* no comment: the byte is read as it is */
            } else {
                if (s->comment == 2)
                    s->comment = c == '\n' ? 0 : 2;
                else if (s->comment == 3)
                    s->comment = c == '*' ? 4 : 3;
                else
                    s->comment = c == '/' ? 0 : c == '*' ? 4 : 3;
                i++;
                continue;
            }
        }
        if (s->in_str) {
            i++;
            if (s->esc) {
                s->esc = 0;
                if (c == 'u')
                    s->marked = 1;
            } else if (c == '\\') {
                s->esc = 1;
            } else if (c == '"') {
                s->in_str = 0;
                check_marker(s, data, off, o);
                if (s->elem == JS_STRING) {
                    s->elem = JS_GAP;
                    if (s->marked) {
                        *pi = i;
                        return JS_MARKED;
                    }
                }
            }
            continue;
        }
        if (s->elem == JS_SCALAR) {
            if (scalar_byte(c)) {
                i++;
                continue;
            }
            s->elem = JS_GAP; /* c is read between elements */
        }
        if (s->elem == JS_GAP) {
            if (is_ws(c) || c == ',') {
                i++;
                continue;
            }
            if (c == '/') {
                s->comment = 1;
                i++;
                continue;
            }
            *pi = i;
            if (c == ']' || c == '}')
                return JS_CLOSE;
            if (o >= begin)
                return JS_START;
            s->had_before = s->had_value;
            s->had_value = 1;
            s->marked = 0;
            s->elem_start = o;
            i++;
            if (c == '"') {
                s->elem = JS_STRING;
                s->in_str = 1;
                s->str_start = o;
            } else if (c == '{' || c == '[') {
                s->elem = JS_CONTAINER;
                s->nest = 0;
                push(s, c);
            } else {
                s->elem = JS_SCALAR;
            }
            continue;
        }
        /* inside a container element */
        i++;
        if (c == '"') {
            s->in_str = 1;
            s->str_start = o;
        } else if (c == '/') {
            s->comment = 1;
        } else if (c == '{' || c == '[') {
            push(s, c);
        } else if ((c == '}' || c == ']') && --s->nest == 0) {
            s->elem = JS_GAP;
            if (s->marked) {
                *pi = i;
                return JS_MARKED;
            }
        }
    }
    *pi = n;
    return JS_MORE;
}
