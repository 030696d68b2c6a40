/*
 * progress: a one-line progress bar on stderr for long reads of a large
 * regular file, redrawn at most ~10 times a second, erased at the end.
 */
#ifndef TREAD_TOOLS_PROGRESS_H
#define TREAD_TOOLS_PROGRESS_H

#include <stdint.h>

/* Inputs smaller than this finish too fast to need a bar. */
#define PROGRESS_MIN_BYTES (64ull * 1024 * 1024)

typedef struct progress {
    int active;
    int drawn;             /* the bar is on screen */
    uint64_t total;
    int64_t next_ms;       /* monotonic time of the next allowed redraw */
} progress;

/* Activates the bar when enabled and total bytes are known and large. */
void progress_init(progress *pr, int enabled, uint64_t total);

/* Redraws with done bytes if enough time has passed. Cheap otherwise. */
void progress_update(progress *pr, uint64_t done);

/* Erases the bar (if drawn); it is drawn again at the next update. */
void progress_clear(progress *pr);

/* Same, with a void * for diag's before_print hook. */
void progress_clear_hook(void *pr);

#endif
