/* progress: see progress.h. */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdio.h>
#include <time.h>

#define PROGRESS_INTERVAL_MS 100
#define PROGRESS_WIDTH 40

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void progress_init(progress *pr, int enabled, uint64_t total)
{
    pr->active = enabled && total > PROGRESS_MIN_BYTES;
    pr->drawn = 0;
    pr->total = total;
    pr->next_ms = pr->active ? now_ms() + PROGRESS_INTERVAL_MS : 0;
}

void progress_update(progress *pr, uint64_t done)
{
    if (!pr->active)
        return;
    int64_t t = now_ms();
    if (t < pr->next_ms)
        return;
    pr->next_ms = t + PROGRESS_INTERVAL_MS;
    if (done > pr->total)
        done = pr->total;
    unsigned pct = (unsigned)(done * 100 / pr->total);
    unsigned fill = (unsigned)(done * PROGRESS_WIDTH / pr->total);
    char bar[PROGRESS_WIDTH + 1];
    for (unsigned i = 0; i < PROGRESS_WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[PROGRESS_WIDTH] = '\0';
    fprintf(stderr, "\r[%s] %3u%% %.1f/%.1f MiB", bar, pct,
            (double)done / (1024.0 * 1024.0),
            (double)pr->total / (1024.0 * 1024.0));
    fflush(stderr);
    pr->drawn = 1;
}

void progress_clear(progress *pr)
{
    if (!pr->drawn)
        return;
    fputs("\r\033[K", stderr); /* carriage return, erase to end of line */
    fflush(stderr);
    pr->drawn = 0;
}

void progress_clear_hook(void *pr)
{
    progress_clear(pr);
}
