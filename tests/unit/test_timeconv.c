/* lib/core/timeconv.c, linked from its source: exact decimal scaling
 * (microseconds to int64 ns), integers, doubles, the FNV-1a hash.
 *
 * Expected values are worked out by hand from the comments in
 * core/timeconv.h: scaled by 10^scale, rounded to the nearest integer,
 * half away from zero; -1 for text that is not a number, -2 when the
 * result does not fit in int64. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/timeconv.h"
#include "testlib.h"

#define NOT_NUM (-1)
#define RANGE (-2)

typedef struct scaled_case {
    const char *text;
    int rc;        /* 0, NOT_NUM or RANGE */
    int64_t value; /* when rc == 0 */
} scaled_case;

static void check_scaled(const scaled_case *t, size_t n, int scale)
{
    for (size_t i = 0; i < n; i++) {
        int64_t out = 0x5a5a5a5a;
        int rc = timeconv_decimal_scaled(t[i].text, strlen(t[i].text), scale, &out);
        int ok = rc == t[i].rc && (rc != 0 || out == t[i].value);
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  timeconv_decimal_scaled(\"%s\", %d): rc %d value %" PRId64
                            ", expected rc %d value %" PRId64 "\n",
                    t[i].text, scale, rc, out, t[i].rc, t[i].value);
    }
}

static void test_scaled_us_to_ns(void)
{
    static const scaled_case t[] = {
        /* integers */
        {"0", 0, 0},
        {"1", 0, 1000},
        {"-1", 0, -1000},
        {"+1", 0, 1000},
        {"-0", 0, 0},
        {"123456", 0, 123456000},
        {"007", 0, 7000},
        /* fractions */
        {"1.5", 0, 1500},
        {"0.001", 0, 1},
        {"12.25", 0, 12250},
        {"+1.5", 0, 1500},
        {"1.0005", 0, 1001},   /* 1000.5: half away from zero */
        {"1.00049", 0, 1000},
        {"0.0015", 0, 2},
        {"0.0025", 0, 3},      /* half away from zero, not to even */
        {"-0.0025", 0, -3},
        {"0.0005", 0, 1},
        {"-0.0005", 0, -1},
        {"0.00049", 0, 0},
        {"-0.00049", 0, 0},
        {"0.0115", 0, 12},     /* 11.5; through a double it is 11.4999... */
        {"1234567890123.4565", 0, 1234567890123457},
        /* exponents */
        {"1.5e-3", 0, 2},
        {"2E+2", 0, 200000},
        {"1e3", 0, 1000000},
        {"1E3", 0, 1000000},
        {"1e-3", 0, 1},
        {"5e-4", 0, 1},
        {"4e-4", 0, 0},
        {"-5e-4", 0, -1},
        {"1e0", 0, 1000},
        {"12.5e1", 0, 125000},
        {"0e10", 0, 0},
        {"0e999999", 0, 0},
        {"1e-400", 0, 0},
        {"1e15", 0, INT64_C(1000000000000000000)},
        {"1e16", RANGE, 0},
        {"1e999999", RANGE, 0},
        /* blanks around the number (string timestamps) */
        {" 12", 0, 12000},
        {"12 ", 0, 12000},
        {"\t12.5\t ", 0, 12500},
        {"  -3  ", 0, -3000},
        /* the int64 ns limits */
        {"9223372036854775.807", 0, INT64_MAX},
        {"9223372036854775.8074", 0, INT64_MAX},
        {"9223372036854775807e-3", 0, INT64_MAX},
        {"92233720368547758.07e-1", 0, INT64_MAX},
        {"9223372036854775.8075", RANGE, 0}, /* rounds up to 2^63 */
        {"9223372036854775.808", RANGE, 0},
        {"-9223372036854775.808", 0, INT64_MIN},
        {"-9223372036854775.8075", 0, INT64_MIN},
        {"-9223372036854775.809", RANGE, 0},
        {"18446744073709552000", RANGE, 0},
        {"1e30", RANGE, 0},
        {"-1e30", RANGE, 0},
        /* junk */
        {"", NOT_NUM, 0},
        {"-", NOT_NUM, 0},
        {"+", NOT_NUM, 0},
        {" ", NOT_NUM, 0},
        {"1.2.3", NOT_NUM, 0},
        {"abc", NOT_NUM, 0},
        {"1e", NOT_NUM, 0},
        {"1e+", NOT_NUM, 0},
        {"1e-", NOT_NUM, 0},
        {"e5", NOT_NUM, 0},
        {".", NOT_NUM, 0},
        {"1x", NOT_NUM, 0},
        {"0x10", NOT_NUM, 0},
        {"1 2", NOT_NUM, 0},
        {"- 1", NOT_NUM, 0},
        {"+-1", NOT_NUM, 0},
        {"--1", NOT_NUM, 0},
        {"1,5", NOT_NUM, 0},
        {"NaN", NOT_NUM, 0},
        {"Infinity", NOT_NUM, 0},
        {"1e5e5", NOT_NUM, 0},
    };
    check_scaled(t, sizeof t / sizeof t[0], 3);
}

static void test_scaled_integers(void)
{
    static const scaled_case t[] = {
        {"12", 0, 12},
        {"12.5", 0, 13},
        {"-12.5", 0, -13},
        {"12.4999", 0, 12},
        {"-12.4999", 0, -12},
        {"0.5", 0, 1},
        {"-0.5", 0, -1},
        {"1e3", 0, 1000},
        {"1.5e1", 0, 15},
        {"25e-1", 0, 3},
        {"9223372036854775807", 0, INT64_MAX},
        {"9223372036854775807.4", 0, INT64_MAX},
        {"9223372036854775807.5", RANGE, 0},
        {"9223372036854775808", RANGE, 0},
        {"-9223372036854775808", 0, INT64_MIN},
        {"-9223372036854775808.4", 0, INT64_MIN},
        {"-9223372036854775809", RANGE, 0},
        {"18446744073709551615", RANGE, 0},
        {"1e19", RANGE, 0},
        /* 40+ digits */
        {"1234567890123456789012345678901234567890", RANGE, 0},
        {"-1234567890123456789012345678901234567890", RANGE, 0},
        {"0000000000000000000000000000000000000000042", 0, 42},
        {"0.0000000000000000000000000000000000000000042", 0, 0},
        {"1.0000000000000000000000000000000000000000000005", 0, 1},
        {"0.4999999999999999999999999999999999999999999999", 0, 0},
        {"0.5000000000000000000000000000000000000000000001", 0, 1},
        {"-0.5000000000000000000000000000000000000000000001", 0, -1},
        {"2.5000000000000000000000000000000000000000000000", 0, 3},
        {"123456789012345678901234567890123456789e-30", 0, 123456789},
        {"9223372036854775807000000000000000000000000e-24", 0, INT64_MAX},
        {"92233720368547758070000000000000000001e-19", 0, INT64_MAX},
        {"9223372036854775807500000000000000000000000e-24", RANGE, 0},
        {"", NOT_NUM, 0},
        {"x", NOT_NUM, 0},
    };
    check_scaled(t, sizeof t / sizeof t[0], 0);

    /* the length is explicit: no NUL needed, none looked for */
    int64_t out = 0;
    CHECK_EQ_INT(timeconv_decimal_scaled("12345", 3, 0, &out), 0);
    CHECK_EQ_INT(out, 123);
    CHECK_EQ_INT(timeconv_decimal_scaled("1.5e3", 3, 3, &out), 0); /* "1.5" */
    CHECK_EQ_INT(out, 1500);
    CHECK_EQ_INT(timeconv_decimal_scaled("7\0" "9", 3, 0, &out), NOT_NUM);
}

static void test_parse_integer(void)
{
    static const struct {
        const char *text;
        int kind;
        int64_t i;
        uint64_t u;
    } t[] = {
        {"0", TIMECONV_INT, 0, 0},
        {"-0", TIMECONV_INT, 0, 0},
        {"123", TIMECONV_INT, 123, 0},
        {"-42", TIMECONV_INT, -42, 0},
        {"9223372036854775807", TIMECONV_INT, INT64_MAX, 0},
        {"-9223372036854775808", TIMECONV_INT, INT64_MIN, 0},
        {"9223372036854775808", TIMECONV_UINT, 0, UINT64_C(9223372036854775808)},
        {"18446744073709551615", TIMECONV_UINT, 0, UINT64_MAX},
        {"18446744073709551616", TIMECONV_NOT_INT, 0, 0},
        {"18446744073709552000", TIMECONV_NOT_INT, 0, 0},
        {"99999999999999999999", TIMECONV_NOT_INT, 0, 0},
        {"-9223372036854775809", TIMECONV_NOT_INT, 0, 0},
        {"-18446744073709551615", TIMECONV_NOT_INT, 0, 0},
        {"", TIMECONV_NOT_INT, 0, 0},
        {"-", TIMECONV_NOT_INT, 0, 0},
        {"+1", TIMECONV_NOT_INT, 0, 0},
        {"1.0", TIMECONV_NOT_INT, 0, 0},
        {"1e3", TIMECONV_NOT_INT, 0, 0},
        {" 1", TIMECONV_NOT_INT, 0, 0},
        {"1 ", TIMECONV_NOT_INT, 0, 0},
        {"0x10", TIMECONV_NOT_INT, 0, 0},
        {"--1", TIMECONV_NOT_INT, 0, 0},
    };
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        int64_t i = 0x1234;
        uint64_t u = 0x1234;
        int kind = timeconv_parse_integer(t[k].text, strlen(t[k].text), &i, &u);
        int ok = kind == t[k].kind && (kind != TIMECONV_INT || i == t[k].i) &&
                 (kind != TIMECONV_UINT || u == t[k].u);
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  timeconv_parse_integer(\"%s\"): kind %d i %" PRId64 " u %" PRIu64
                            "\n",
                    t[k].text, kind, i, u);
    }
    int64_t i = 0;
    uint64_t u = 0;
    CHECK_EQ_INT(timeconv_parse_integer("12345", 2, &i, &u), TIMECONV_INT);
    CHECK_EQ_INT(i, 12);
    CHECK_EQ_INT(timeconv_parse_integer("-9223372036854775808999", 20, &i, &u), TIMECONV_INT);
    CHECK(i == INT64_MIN);
}

static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0; /* bit for bit: -0.0 != 0.0 */
}

static void test_parse_double(void)
{
    static const char *const t[] = {
        "0", "-0", "-0.0", "0.1", "0.2", "0.3", "1.5", "-1.5e-3", "123.456", "3.14159265358979323846",
        "0.30000000000000004", "1e22", "1e23", "1e-22", "8.5e-23", "9007199254740993",
        "9007199254740992", "123456789012345678901234567890", "2.2250738585072014e-308",
        "4.9e-324", "1.7976931348623157e308", "1e400", "-1e400", "1e-400",
        "18446744073709552000", "18446744073709551615", "0.000001", "1E+2", "12345678901234.5",
        "999999999999999.9", "0.1e1", "100e-2",
    };
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        double got = timeconv_parse_double(t[k], strlen(t[k]));
        double want = strtod(t[k], NULL);
        CHECK(same_double(got, want));
        if (!same_double(got, want))
            fprintf(stderr, "  timeconv_parse_double(\"%s\") = %.17g, strtod says %.17g\n", t[k],
                    got, want);
    }
    /* and against values the compiler rounds */
    CHECK(same_double(timeconv_parse_double("0.1", 3), 0.1));
    CHECK(same_double(timeconv_parse_double("123.456", 7), 123.456));
    CHECK(same_double(timeconv_parse_double("-0", 2), -0.0));
    CHECK(same_double(timeconv_parse_double("1e23", 4), 1e23));
    CHECK(same_double(timeconv_parse_double("8.5e-23", 7), 8.5e-23));
    CHECK(same_double(timeconv_parse_double("18446744073709552000", 20), 18446744073709551616.0));
    /* explicit length */
    CHECK(same_double(timeconv_parse_double("1.25xyz", 4), 1.25));
    CHECK(same_double(timeconv_parse_double("1.2345678901234567890123", 4), 1.23));
}

/* FNV-1a, 64 bits: offset basis 14695981039346656037 (0xcbf29ce484222325),
 * prime 1099511628211; reference values from the FNV test suite.
 * Regression (fixed): timeconv.c starts from 1469598103934665603, the basis with its last
 * digit dropped, so no value matches FNV-1a ("a" hashes to something else
 * than 0xaf63dc4c8601ec8c). Stable, but not the documented hash. */
static void test_hash64(void)
{
    CHECK(timeconv_hash64("a", 1) == UINT64_C(0xaf63dc4c8601ec8c));
    CHECK(timeconv_hash64("", 0) == UINT64_C(0xcbf29ce484222325)); /* the offset basis */
    CHECK(timeconv_hash64("foobar", 6) == UINT64_C(0x85944171f73967e8));
    CHECK(timeconv_hash64("a\0b", 3) == UINT64_C(0xe5d29919042666b2)); /* NULs count */
    CHECK(timeconv_hash64("Browser", 7) == timeconv_hash64("Browser", 7));
    CHECK(timeconv_hash64("Browser", 7) != timeconv_hash64("Renderer", 8));
    CHECK(timeconv_hash64("ab", 1) == timeconv_hash64("a", 1)); /* only n bytes */
}

int main(void)
{
    test_scaled_us_to_ns();
    test_scaled_integers();
    test_parse_integer();
    test_parse_double();
    test_hash64();
    return TEST_EXIT();
}
