#include "json/json_scan.h"

#include <string.h>

#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
#define JS_SSE2 1
#if defined(__x86_64__)
#include <immintrin.h>
#define JS_AVX2 1
#endif
#endif

void json_scan_start(json_scan *s, unsigned char *stack, size_t stack_max, int had_value)
{
    int portable = s->portable;
    memset(s, 0, sizeof *s);
    s->portable = portable;
    s->stack = stack;
    s->stack_max = stack_max;
    s->had_value = had_value;
#ifdef JS_AVX2
    s->avx2 = !portable && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") &&
              __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
#endif
}

static inline int is_ws(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* Blanks and the comma between two elements. */
static const unsigned char js_gap_byte[256] = {[' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1,
                                               [','] = 1};

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
/* Whether the string opening at data[q] is a marker: "P" or "CpuProfile";
 * assumed so when the input ends first. */
static inline int marker_at(const unsigned char *data, size_t n, size_t q)
{
    if (n - q < 12)
        return 1;
    const unsigned char *t = data + q + 1;
    if (t[1] == '"')
        return t[0] == 'P';
    return t[10] == '"' && t[0] == 'C' && memcmp(t, "CpuProfile", 10) == 0;
}

/* The bytes of a block that a backslash escapes (bs: its backslashes;
 * *esc 1: its first byte is escaped by the last block's last one), a
 * backslash escaping the byte after it, which is then no backslash of its
 * own; *esc then says whether this block's last byte escapes the next
 * block's first. */
static inline uint64_t escaped_bytes(uint64_t bs, uint64_t *esc)
{
    uint64_t escaped = *esc, b = bs & ~*esc;
    *esc = 0;
    while (b) {
        unsigned k = (unsigned)__builtin_ctzll(b);
        if (k == 63) {
            *esc = 1;
            break;
        }
        escaped |= 1ull << (k + 1);
        b &= ~(3ull << k);
    }
    return escaped;
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

static inline void masks_sse2(const unsigned char *p, uint64_t *q, uint64_t *bs, uint64_t *st,
                              uint64_t *pc)
{
    const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\'), v20 = _mm_set1_epi8(0x20),
                  vo = _mm_set1_epi8('{'), vc = _mm_set1_epi8('}'), vs = _mm_set1_epi8('/');
    uint64_t mq = 0, mb = 0, ms = 0;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 4
#endif
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
        __m128i o = _mm_or_si128(v, v20); /* '[' ']' as '{' '}' */
        int sh = 16 * k;
        mq |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vq)) << sh;
        mb |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vb)) << sh;
        ms |= (uint64_t)(unsigned)_mm_movemask_epi8(
                  _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(o, vo), _mm_cmpeq_epi8(o, vc)),
                               _mm_cmpeq_epi8(v, vs)))
              << sh;
    }
    *q = mq;
    *bs = mb;
    *st = ms;
    *pc = ~0ull; /* every byte may be 'P' or 'C': a mask costs more than it saves here */
}

/* The most bytes a skim goes without an element beginning: what the exact
 * scan may read again after it (json_scan_blocks.h). */
#define JS_SKIM_SPAN 4096

#define JS_NAME scan_blocks_sse2
#define JS_SKIM_NAME skim_blocks_sse2
#define JS_TARGET
#define JS_MASKS(p, q, bs, st, pc) masks_sse2(p, &q, &bs, &st, &pc)
#define JS_PXOR prefix_xor
#include "json/json_scan_blocks.h"
#undef JS_NAME
#undef JS_SKIM_NAME
#undef JS_TARGET
#undef JS_MASKS
#undef JS_PXOR

#ifdef JS_AVX2
/* The same 32 bytes a vector, and the prefix XOR as one carry-less
 * multiplication, where the CPU has them (checked at run time). */
#define JS_AVX2_TARGET __attribute__((target("avx2,pclmul,bmi,bmi2")))
JS_AVX2_TARGET static inline void masks_avx2(const unsigned char *p, uint64_t *q, uint64_t *bs,
                                             uint64_t *st, uint64_t *pc)
{
    const __m256i vq = _mm256_set1_epi8('"'), vb = _mm256_set1_epi8('\\'),
                  v20 = _mm256_set1_epi8(0x20), vo = _mm256_set1_epi8('{'),
                  vc = _mm256_set1_epi8('}'), vs = _mm256_set1_epi8('/');
    __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    __m256i o0 = _mm256_or_si256(v0, v20), o1 = _mm256_or_si256(v1, v20);
    *q = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v0, vq)) |
         (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v1, vq)) << 32;
    *bs = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v0, vb)) |
          (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v1, vb)) << 32;
    __m256i s0 = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(o0, vo), _mm256_cmpeq_epi8(o0, vc)),
                                 _mm256_cmpeq_epi8(v0, vs));
    __m256i s1 = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(o1, vo), _mm256_cmpeq_epi8(o1, vc)),
                                 _mm256_cmpeq_epi8(v1, vs));
    *st = (uint64_t)(uint32_t)_mm256_movemask_epi8(s0) |
          (uint64_t)(uint32_t)_mm256_movemask_epi8(s1) << 32;
    const __m256i vP = _mm256_set1_epi8('P'), vC = _mm256_set1_epi8('C');
    *pc = (uint64_t)(uint32_t)_mm256_movemask_epi8(
              _mm256_or_si256(_mm256_cmpeq_epi8(v0, vP), _mm256_cmpeq_epi8(v0, vC))) |
          (uint64_t)(uint32_t)_mm256_movemask_epi8(
              _mm256_or_si256(_mm256_cmpeq_epi8(v1, vP), _mm256_cmpeq_epi8(v1, vC)))
              << 32;
}

JS_AVX2_TARGET static inline uint64_t prefix_xor_clmul(uint64_t x)
{
    return (uint64_t)_mm_cvtsi128_si64(
        _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8(-1), 0));
}

#define JS_NAME scan_blocks_avx2
#define JS_SKIM_NAME skim_blocks_avx2
#define JS_TARGET JS_AVX2_TARGET
#define JS_MASKS(p, q, bs, st, pc) masks_avx2(p, &q, &bs, &st, &pc)
#define JS_PXOR prefix_xor_clmul
#include "json/json_scan_blocks.h"
#undef JS_NAME
#undef JS_SKIM_NAME
#undef JS_TARGET
#undef JS_MASKS
#undef JS_PXOR
#endif
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
            if (!s->marked && off + i >= s->skim_after && off + i + 64 <= begin) {
                size_t at;
#ifdef JS_AVX2
                if (s->avx2)
                    at = skim_blocks_avx2(s, data, n, i, off, begin);
                else
#endif
                    at = skim_blocks_sse2(s, data, n, i, off, begin);
                if (at != i) {
                    i = at; /* between two elements (or where it began) */
                    continue;
                }
            }
            int ended = 0;
#ifdef JS_AVX2
            if (s->avx2)
                i = scan_blocks_avx2(s, data, n, i, off, begin, &ended);
            else
#endif
                i = scan_blocks_sse2(s, data, n, i, off, begin, &ended);
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
