/* lib/json/json_tokens.c: the scanner for plain JSON against yajl's
 * callbacks, its oracle. On hand-written texts and on 30,000 texts made
 * here (values of every kind nested, whitespace, escapes, numbers of
 * every shape, then cut, with a byte changed or a byte added), the result,
 * the tokens, the error and its byte are yajl's, at several depth limits;
 * and the scanner reads the plain ones itself (a test that it is used). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "json/json_tokens.h"

static tread_alloc alloc_std;

static uint64_t rng = 88172645463325252ull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static long compared, plain_read;

/* Both ways on s: the same result and tokens, or the same error. */
static void same(const char *s, size_t n, int max_depth)
{
    tread_buf a, b, c;
    tread_buf_init(&a, &alloc_std, 1 << 20);
    tread_buf_init(&b, &alloc_std, 1 << 20);
    tread_buf_init(&c, &alloc_std, 1 << 20);
    const char *wa = NULL, *wb = NULL;
    size_t ata = 0, atb = 0;
    int ra = json_text_tokens(&alloc_std, (const unsigned char *)s, n, max_depth, &a, &wa, &ata);
    int rb = json_text_tokens_yajl(&alloc_std, (const unsigned char *)s, n, max_depth, &b, &wb,
                                   &atb);
    int ok = ra == rb && a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0);
    if (ok && ra == -1)
        ok = ata == atb && wa && wb && strcmp(wa, wb) == 0;
    if (!ok) {
        fprintf(stderr, "differs (depth %d): %d/%d %zu/%zu bytes: %.*s\n", max_depth, ra, rb,
                a.len, b.len, (int)(n < 200 ? n : 200), s);
        CHECK(0);
    }
    if (json_text_tokens_plain((const unsigned char *)s, n, max_depth, &c) == 1) {
        plain_read++;
        CHECK(ra == 0 && c.len == b.len && memcmp(c.data, b.data, c.len) == 0);
    }
    compared++;
    tread_buf_free(&a);
    tread_buf_free(&b);
    tread_buf_free(&c);
}

static void same_all_depths(const char *s, size_t n)
{
    static const int depths[] = {1, 2, 3, 8, 64, 1000};
    for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++)
        same(s, n, depths[i]);
}

static void test_hand_written(void)
{
    static const char *const texts[] = {
        "{}", "[]", "0", "-0", "1", "-1", "12.5", "1e5", "1E+5", "1.5e-07", "-0.0e0",
        "01", "-", "1.", ".5", "1e", "1e+", "+1", "0x1", "1x", "123456789012345678901234567890",
        "true", "false", "null", "tru", "nul", "truex", "nullnull", "\"\"", "\"a\"", "\"a\\\"b\"",
        "\"\\u00e9\"", "\"tab\there\"", "\"\x7f\"", "\"\xc3\xa9\xff\"", "\"unterminated",
        "[1,2,3]", "[1,2,]", "[,]", "[1 2]", "{\"a\":1}", "{\"a\":1,}", "{\"a\"}", "{\"a\":}",
        "{a:1}", "{\"a\":1 \"b\":2}", "{\"a\":[1,{\"b\":null}],\"c\":\"d\"}", " [ 1 , 2 ] ",
        "\n\t{\r\n\"k\" : true }\n", "[1]x", "[1] 2", "[[[[[[]]]]]]", "[\f1]", "[\v1]", "[1]\f",
        "{\"\":\"\"}", "[\"\\/\"]", "[1,-]", "[-1.0E-10]", "[0.0]", "[00]", "[1.e3]",
        "{\"a\":{\"b\":{\"c\":{}}}}", "", " ", "[", "]", "{", "}", "[1", "{\"a\":1",
        "/* c */ 1", "[NaN]", "[Infinity]", "[1,2]]", "{}{}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        same_all_depths(texts[i], strlen(texts[i]));
    /* a NUL inside a string, and one after the value */
    same_all_depths("\"a\0b\"", 5);
    same_all_depths("1\0", 2);
}

/* ---- texts made here --------------------------------------------------- */

typedef struct tb {
    char *s;
    size_t len, cap;
} tb;

static void put(tb *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->s = realloc(t->s, t->cap);
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
}
static void puts_(tb *t, const char *s) { put(t, s, strlen(s)); }

static void ws(tb *t)
{
    static const char *const w[] = {"", "", "", " ", "\n", "\t", "\r\n  "};
    puts_(t, w[rnd(7)]);
}

static void string(tb *t)
{
    static const char *const parts[] = {"a", "name", "file:///x.js", "\xc3\xa9", " ", "(root)",
                                        "\\\"", "\\n", "\\u0041", "\\\\", "\t"};
    puts_(t, "\"");
    int n = (int)rnd(4);
    for (int i = 0; i < n; i++)
        puts_(t, parts[rnd(rnd(8) ? 6 : 11)]);
    puts_(t, "\"");
}

static void number(tb *t)
{
    char b[64];
    /* (one rnd() a statement: the order of a call's arguments is the
     * compiler's, and the texts must be the same in every build) */
    unsigned k = rnd(8), x = rnd(1000000), y = rnd(1000000), z = rnd(1000000);
    switch (k) {
    case 0: snprintf(b, sizeof b, "%u", x % 10); break;
    case 1: snprintf(b, sizeof b, "-%u", x % 100000); break;
    case 2: snprintf(b, sizeof b, "%u.%u", x % 1000, y % 1000); break;
    case 3: snprintf(b, sizeof b, "%ue%s%u", x % 10, y % 2 ? "-" : "+", z % 30); break;
    case 4: snprintf(b, sizeof b, "%u%u%u", x, y, z); break;
    case 5: snprintf(b, sizeof b, "0.%u", x % 100); break;
    default: snprintf(b, sizeof b, "%u", x % 400); break;
    }
    puts_(t, b);
}

static void value(tb *t, int depth)
{
    unsigned k = depth > 5 ? rnd(5) : rnd(8);
    switch (k) {
    case 0: number(t); break;
    case 1: string(t); break;
    case 2: puts_(t, rnd(2) ? "true" : "false"); break;
    case 3: puts_(t, "null"); break;
    case 4: number(t); break;
    case 5:
    case 6: {
        puts_(t, "[");
        int n = (int)rnd(6);
        for (int i = 0; i < n; i++) {
            if (i)
                puts_(t, ",");
            ws(t);
            value(t, depth + 1);
            ws(t);
        }
        puts_(t, "]");
        break;
    }
    default: {
        puts_(t, "{");
        int n = (int)rnd(5);
        for (int i = 0; i < n; i++) {
            if (i)
                puts_(t, ",");
            ws(t);
            string(t);
            ws(t);
            puts_(t, ":");
            ws(t);
            value(t, depth + 1);
        }
        puts_(t, "}");
        break;
    }
    }
}

static void test_generated(void)
{
    tb t = {0};
    for (int i = 0; i < 30000; i++) {
        t.len = 0;
        ws(&t);
        value(&t, 0);
        ws(&t);
        switch (rnd(5)) {
        case 0: /* cut */
            if (t.len)
                t.len = rnd((unsigned)t.len);
            break;
        case 1: /* a byte changed */
            if (t.len) {
                size_t at = rnd((unsigned)t.len);
                t.s[at] = "{}[],:\"\\0-e.x \x01\x80"[rnd(17)];
            }
            break;
        case 2: { /* a byte added */
            size_t at = rnd((unsigned)t.len + 1);
            put(&t, " ", 1);
            memmove(t.s + at + 1, t.s + at, t.len - at - 1);
            t.s[at] = "{}[],:\"0 "[rnd(9)];
            break;
        }
        default: break;
        }
        same(t.s, t.len, (int)(1 + rnd(10)));
    }
    free(t.s);
}

int main(void)
{
    tread_alloc_init(&alloc_std, NULL);
    test_hand_written();
    test_generated();
    /* (most made texts are whole and plain: the scanner must read them) */
    CHECK(plain_read > compared / 5);
    fprintf(stderr, "%ld texts compared, %ld read by the scanner\n", compared, plain_read);
    return TEST_EXIT();
}
