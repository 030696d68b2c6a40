/*
 * diag: warnings and errors on stderr, in the forms tread(1) documents:
 *   tread: warning: <kind> at byte <offset>: <message>
 *   tread: error: <error name> at byte <offset>: <message>
 */
#ifndef TREAD_TOOLS_DIAG_H
#define TREAD_TOOLS_DIAG_H

#include <stdint.h>

#include <tread.h>

/* Warnings printed before the rest are only counted. */
#define DIAG_MAX_PRINTED_WARNINGS 20

/* Lines held instead of printed (a byte range read on a thread of its
 * own: its lines are printed after the ranges before it). */
typedef struct diag_capture {
    char *buf;       /* lines, each tagged 'W' (warning) or 'E' and
                        its length (diag.c capture_line) */
    size_t len, size;
} diag_capture;

typedef struct diag {
    int quiet;
    uint64_t printed;
    diag_capture *capture; /* NULL: print at once */
    /* Called before anything is printed: the progress bar clears its
     * line, so that a message does not land in the middle of it. */
    void (*before_print)(void *ctx);
    void *before_print_ctx;
} diag;

void diag_init(diag *d, int quiet);

/* A tread_callbacks.warning callback; user is a diag *. */
int diag_warning_cb(void *user, const tread_warning *w);

/* After the parse: "N warnings in total, M shown" when some were not. */
void diag_warning_summary(const diag *d, uint64_t total);

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void diag_error(const diag *d, const char *fmt, ...);

/* Prints the lines of a capture through d (warnings count against d's
 * limit; errors are always printed); returns 1 if it held an error. */
int diag_replay(diag *d, const diag_capture *c);
void diag_capture_free(diag_capture *c);

#endif
