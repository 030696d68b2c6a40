/*
 * The stats collector on its own thread (tools/stats_async.c): the random
 * stream of stats_stream.h, plus names that change under one address,
 * long names and names larger than a batch, given to stats_async_event,
 * must leave the collector that stats_collector_event leaves, in every
 * detail the report reads; several times over, so that batches fill and
 * the producer waits for the thread, with the collector moving between
 * its thread and the caller's (the second core busy now and then).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats_async.h"
#include "stats_collect.h"
#include "stats_stream.h"
#include "testlib.h"

#define ROUNDS 40

/* The second core busy at some looks and not at others: the collector
 * moves between its thread and the caller's. */
static int looks;
static int busy_now_and_then(void *ctx)
{
    (void)ctx;
    looks++;
    return looks % 5 == 2 || looks % 5 == 3;
}

static char scratch[32];     /* one address, several names over time */
static char *huge, *big;     /* > a batch; > half a batch */

/* Event i of round r of the stream, some renamed. */
static tread_event event_at(int r, int i)
{
    tread_event e = stats_stream[i];
    if (i % 97 == 5) { /* the same address, the content of its round */
        snprintf(scratch, sizeof scratch, "scratch%d", r % 5);
        e.name = (tread_str){scratch, strlen(scratch)};
    } else if (i == 1234) {
        e.name = (tread_str){big, SA_BATCH / 2 + 100};
    } else if (i == 4321 && r % 8 == 0) {
        e.name = (tread_str){huge, SA_BATCH + 100};
    } else if (i % 131 == 7) {
        e.name = (tread_str){NULL, 0}; /* nameless */
    }
    return e;
}

int main(void)
{
    stats_stream_make();
    huge = malloc(SA_BATCH + 100);
    big = malloc(SA_BATCH / 2 + 100);
    memset(huge, 'h', SA_BATCH + 100);
    memset(big, 'b', SA_BATCH / 2 + 100);

    stats_collector inline_c, async_c;
    CHECK_EQ_INT(stats_collector_init(&inline_c), 0);
    CHECK_EQ_INT(stats_collector_init(&async_c), 0);
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < N_EVENTS; i++) {
            tread_event e = event_at(r, i);
            stats_collector_event(&inline_c, &e);
        }
    stats_async *a = stats_async_start(&async_c, busy_now_and_then, NULL);
    CHECK(a != NULL);
    if (a) {
        for (int r = 0; r < ROUNDS; r++)
            for (int i = 0; i < N_EVENTS; i++) {
                tread_event e = event_at(r, i);
                CHECK_EQ_INT(stats_async_event(a, &e), 0);
                /* the producer's copy is all the thread reads */
                if (e.name.ptr == scratch)
                    memset(scratch, 'x', sizeof scratch - 1);
            }
        stats_async_finish(a);
    }
    stats_collector_finish(&inline_c);
    stats_collector_finish(&async_c);
    char *want = stats_describe(&inline_c, 1), *got = stats_describe(&async_c, 1);
    CHECK(strstr(want, "scratch4") != NULL && strstr(want, "strpid") != NULL);
    CHECK(inline_c.slices_matched > 1000 && inline_c.depth_overflow > 0);
    CHECK_EQ_STR(got, want);
    CHECK(looks > 20); /* both ways, many times */
    free(want), free(got);

    /* started and finished with nothing in between */
    stats_collector empty;
    CHECK_EQ_INT(stats_collector_init(&empty), 0);
    stats_async_finish(stats_async_start(&empty, NULL, NULL));
    stats_async_finish(NULL);
    CHECK_EQ_INT(empty.names.n_entries, 1);
    stats_collector_free(&empty);

    stats_collector_free(&inline_c);
    stats_collector_free(&async_c);
    free(huge), free(big);
    return TEST_EXIT();
}
