/*
 * progress: a one-line progress display on stderr, redrawn at most ~10
 * times a second, erased at the end. For a large regular file, a bar with
 * the share read; for a stream (standard input, whose size is unknown),
 * the bytes read so far. Both show the rate.
 */
#ifndef TREAD_TOOLS_PROGRESS_H
#define TREAD_TOOLS_PROGRESS_H

#include <stdint.h>

/* Inputs smaller than this finish too fast to need a bar. */
#define PROGRESS_MIN_BYTES (64ull * 1024 * 1024)
/* A stream is shown once it has taken this long: short ones never are. */
#define PROGRESS_STREAM_DELAY_MS 500

typedef struct progress {
    int active;
    int drawn;             /* the line is on screen */
    int stream;            /* size unknown: bytes and rate only */
    uint64_t total;
    int64_t start_ms;      /* monotonic time of progress_init */
    int64_t next_ms;       /* monotonic time of the next allowed redraw */
} progress;

/* Activates the display when enabled and either stream, or total bytes
 * are known and large. */
void progress_init(progress *pr, int enabled, uint64_t total, int stream);

/* Redraws with done bytes if enough time has passed. Cheap otherwise. */
void progress_update(progress *pr, uint64_t done);

/* Erases the line (if drawn); it is drawn again at the next update. */
void progress_clear(progress *pr);

/* Same, with a void * for diag's before_print hook. */
void progress_clear_hook(void *pr);

#endif
