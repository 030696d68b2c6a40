/* A minimal test harness: CHECK* macros count failures; main returns
 * TEST_EXIT() (0 pass, 1 fail) for automake's test driver. */
#ifndef TREAD_TESTLIB_H
#define TREAD_TESTLIB_H

#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <tread.h>

/* defined in testlib.c, so helpers in other files count too */
extern int test_failures;
extern int test_checks;

#define CHECK(cond)                                                            \
    do {                                                                       \
        test_checks++;                                                         \
        if (!(cond)) {                                                         \
            test_failures++;                                                   \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
        }                                                                      \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                     \
    do {                                                                       \
        long long a_ = (long long)(a), b_ = (long long)(b);                    \
        test_checks++;                                                         \
        if (a_ != b_) {                                                        \
            test_failures++;                                                   \
            fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n",        \
                    __FILE__, __LINE__, #a, a_, #b, b_);                       \
        }                                                                      \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                     \
    do {                                                                       \
        const char *a_ = (a), *b_ = (b);                                       \
        test_checks++;                                                         \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                               \
            test_failures++;                                                   \
            fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n",          \
                    __FILE__, __LINE__, #a, a_ ? a_ : "(null)",                \
                    b_ ? b_ : "(null)");                                       \
        }                                                                      \
    } while (0)

/* The format counter name of p (tread_get_format_counters); a name the
 * decoder does not report is a failed check (and 0). */
uint64_t test_format_counter(const tread_parser *p, const char *name);

/* xorshift64: a reproducible stream of pseudo-random numbers; *state
 * starts at any nonzero seed, one per test file or use. */
static inline uint64_t test_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#define TEST_EXIT()                                                            \
    (fprintf(stderr, "%d checks, %d failed\n", test_checks, test_failures),    \
     test_failures ? 1 : 0)

#endif
