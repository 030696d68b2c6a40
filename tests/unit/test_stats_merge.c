/*
 * `tread stats` over byte ranges (tools/stats_merge.c): a random stream of
 * events (stats_stream.h), cut into 2 and 3 parts at many places, collected part
 * by part and merged, must leave the collector the whole stream leaves:
 * every name with its count and duration, in the same order, the slice
 * counts, threads, processes with their labels, the time range and the
 * providers.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats_collect.h"
#include "stats_merge.h"
#include "stats_stream.h"
#include "testlib.h"

/* The stream collected as parts [0, a), [a, b), [b, N) (b 0: two parts). */
static char *collect_parts(int a, int b, int slices)
{
    int cut[4] = {0, a, b ? b : N_EVENTS, N_EVENTS};
    int parts = b ? 3 : 2;
    stats_collector *c = calloc((size_t)parts, sizeof *c);
    for (int k = 0; k < parts; k++) {
        CHECK_EQ_INT(stats_collector_init(&c[k]), 0);
        c[k].keep_underflows = k > 0;
        for (int i = cut[k]; i < cut[k + 1]; i++)
            stats_collector_event(&c[k], &stats_stream[i]);
    }
    for (int k = 1; k < parts; k++)
        CHECK_EQ_INT(stats_collector_merge(&c[0], &c[k]), 0);
    stats_collector_merge_done(&c[0]);
    stats_collector_finish(&c[0]);
    char *s = stats_describe(&c[0], slices);
    for (int k = 0; k < parts; k++)
        stats_collector_free(&c[k]);
    free(c);
    return s;
}

int main(void)
{
    stats_stream_make();
    stats_collector whole;
    CHECK_EQ_INT(stats_collector_init(&whole), 0);
    for (int i = 0; i < N_EVENTS; i++)
        stats_collector_event(&whole, &stats_stream[i]);
    stats_collector_finish(&whole);
    char *want = stats_describe(&whole, 1), *want_rest = stats_describe(&whole, 0);
    /* the stream has what the merge must get right */
    CHECK(whole.slices_matched > 1000);
    CHECK(whole.unmatched_end > 10);
    CHECK(whole.unclosed_begin > 10);
    CHECK(whole.depth_overflow > 0);
    CHECK(strstr(want, "strpid") != NULL);
    stats_collector_free(&whole);
    int bad = 0, exact = 0;
    for (int a = 0; a <= N_EVENTS; a += 13) {
        int b = a + (N_EVENTS - a) / 2;
        for (int parts = 2; parts <= 3; parts++) {
            int deep = (a > DEEP_FROM && a < DEEP_TO) ||
                       (parts == 3 && b > DEEP_FROM && b < DEEP_TO);
            char *got = collect_parts(a, parts == 3 ? b : 0, !deep);
            exact += !deep;
            if (strcmp(got, deep ? want_rest : want) != 0 && !bad++)
                fprintf(stderr, "%d parts cut at %d, %d differ\n", parts, a, b);
            free(got);
        }
    }
    CHECK(exact > 600);
    CHECK_EQ_INT(bad, 0);
    free(want);
    free(want_rest);
    return TEST_EXIT();
}
