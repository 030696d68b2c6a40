/* progress: see progress.h. */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdio.h>
#include <time.h>

#define PROGRESS_INTERVAL_MS 100
#define PROGRESS_WIDTH 40
#define MIB (1024.0 * 1024.0)

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void progress_init(progress *pr, int enabled, uint64_t total, int stream)
{
    pr->stream = stream;
    pr->active = enabled && (stream || total > PROGRESS_MIN_BYTES);
    pr->drawn = 0;
    pr->total = total;
    pr->start_ms = now_ms();
    pr->next_ms = pr->start_ms + (stream ? PROGRESS_STREAM_DELAY_MS : PROGRESS_INTERVAL_MS);
}

void progress_update(progress *pr, uint64_t done)
{
    if (!pr->active)
        return;
    int64_t t = now_ms();
    if (t < pr->next_ms)
        return;
    pr->next_ms = t + PROGRESS_INTERVAL_MS;
    double secs = (double)(t - pr->start_ms) / 1000.0;
    double rate = secs > 0 ? (double)done / MIB / secs : 0;
    if (pr->stream) {
        fprintf(stderr, "\r%.1f MiB read, %.1f MiB/s\033[K", (double)done / MIB, rate);
    } else {
        if (done > pr->total)
            done = pr->total;
        unsigned pct = (unsigned)(done * 100 / pr->total);
        unsigned fill = (unsigned)(done * PROGRESS_WIDTH / pr->total);
        char bar[PROGRESS_WIDTH + 1];
        for (unsigned i = 0; i < PROGRESS_WIDTH; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[PROGRESS_WIDTH] = '\0';
        fprintf(stderr, "\r[%s] %3u%% %.1f/%.1f MiB, %.1f MiB/s\033[K", bar, pct,
                (double)done / MIB, (double)pr->total / MIB, rate);
    }
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
