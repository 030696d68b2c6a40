/*
 * tools/pos_index against a plain oracle: every position added is found
 * under its hash, exactly once, and no other; across the index's growth,
 * with many positions sharing a hash or a home slot (probes that pass
 * over other hashes and wrap around the end of the table), and hashes
 * never added find nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "pos_index.h"
#include "testlib.h"

static uint64_t rng = 0x0123456789abcdefull;

/* positions found under h, as a count per position (seen[]) */
static size_t find_all(const pos_index *x, uint64_t h, unsigned char *seen, size_t n)
{
    size_t it = 0, pos, found = 0;
    memset(seen, 0, n);
    while (pos_index_next(x, h, &it, &pos)) {
        CHECK(pos < n);
        if (pos < n)
            seen[pos]++;
        found++;
    }
    return found;
}

static void run(uint64_t hash_space, size_t n)
{
    pos_index x;
    pos_index_init(&x);
    uint64_t *h = malloc(n * sizeof *h);
    unsigned char *seen = malloc(n);
    CHECK(h && seen);
    if (!h || !seen)
        return;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        /* a small space makes many positions share a hash; high bits set
         * make hashes that differ only above the mask share a home slot */
        uint64_t r = test_rand(&rng);
        h[i] = hash_space ? (r % hash_space) | (r % 3 == 0 ? 1ull << 63 : 0) : r;
        if (pos_index_add(&x, h[i], i) != 0)
            bad++;
        /* every 97th step: all positions so far, under their hashes */
        if (i % 97 == 0 || i == n - 1) {
            for (size_t j = 0; j <= i; j++) {
                find_all(&x, h[j], seen, n);
                size_t want = 0;
                for (size_t k = 0; k <= i; k++)
                    want += h[k] == h[j];
                size_t got = 0;
                for (size_t k = 0; k < n; k++) {
                    if (seen[k] > 1 || (seen[k] && (k > i || h[k] != h[j])))
                        bad++;
                    got += seen[k];
                }
                if (got != want || !seen[j])
                    bad++;
            }
        }
    }
    CHECK_EQ_INT((int)bad, 0);
    CHECK(x.cap >= 2 * n);
    /* hashes never added */
    for (int k = 0; k < 200; k++) {
        uint64_t q = test_rand(&rng) | (1ull << 62);
        int added = 0;
        for (size_t i = 0; i < n; i++)
            added |= h[i] == q;
        if (!added)
            CHECK_EQ_INT((int)find_all(&x, q, seen, n), 0);
    }
    pos_index_free(&x);
    CHECK(x.cap == 0 && x.slot == NULL);
    free(h);
    free(seen);
}

int main(void)
{
    pos_index x;
    pos_index_init(&x);
    size_t it = 0, pos;
    CHECK_EQ_INT(pos_index_next(&x, 5, &it, &pos), 0); /* empty: no table yet */
    CHECK_EQ_INT(pos_index_add(&x, 5, (size_t)UINT32_MAX - 1), -1);
    CHECK_EQ_INT((int)x.n, 0);
    pos_index_free(&x);

    run(0, 3000);  /* distinct hashes */
    run(7, 700);   /* long runs of one hash */
    run(64, 2000); /* home slots shared, wrapping probes */
    return TEST_EXIT();
}
