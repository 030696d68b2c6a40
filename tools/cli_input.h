/*
 * cli_input: runs one parse for a command. Opens the file (or standard
 * input), configures the parser from the options and reads it with
 * tread_parse_fd (which reads a regular file ahead on a second thread,
 * TREAD_OPT_READ_THREAD); the progress bar follows the parser's bytes_in
 * from the callbacks. Warnings and errors go through diag.
 */
#ifndef TREAD_TOOLS_CLI_INPUT_H
#define TREAD_TOOLS_CLI_INPUT_H

#include <tread.h>

#include "cli_options.h"
#include "diag.h"
#include "progress.h"

typedef int (*cli_event_fn)(void *user, const tread_event *ev);
typedef int (*cli_packet_fn)(void *user, const tread_perfetto_packet *pk);

/* The raw hooks a command may add (split: each format into itself). */
typedef struct cli_hooks {
    cli_packet_fn on_packet;                                     /* may be NULL */
    int (*on_fxt_record)(void *user, const tread_fxt_record *rec); /* may be NULL */
    int (*on_blob)(void *user, const tread_blob *b);             /* may be NULL */
    int (*on_ftrace_line)(void *user, const tread_ftrace_line *l); /* may be NULL */
} cli_hooks;

typedef struct cli_input {
    tread_parser *parser;
    diag diag;
    diag_capture captured; /* a byte range's diagnostics (cli_input_run_range) */
    progress bar;
    cli_event_fn on_event;
    cli_packet_fn on_packet; /* may be NULL */
    cli_hooks hooks;         /* cli_input_run_hooks */
    void *event_user;
    tread_status status;   /* of tread_parse_fd */
    unsigned bar_tick;     /* callbacks since the bar last looked */
    int opened;            /* the input was opened: stats can be shown */
    int failed;            /* an error was reported (parse or I/O) */
    /* That error, for reports that repeat it (stats --json). */
    const char *error_name;
    uint64_t error_offset;
    char error_message[512];
} cli_input;

/* Parses opt->path, calling on_event for every event (a non-zero return
 * stops the parse; the caller knows why). allow_bar: the command's output
 * leaves the terminal free for a progress bar. Returns 0, EXIT_INPUT_ERROR
 * or EXIT_USAGE. The parser stays alive for tread_get_stats/_error until
 * cli_input_done. */
int cli_input_run(cli_input *in, const cli_options *opt, int allow_bar,
                  cli_event_fn on_event, void *event_user);

/* The same with the raw Perfetto packet hook too (cat --packets); both
 * callbacks get event_user. */
int cli_input_run_packets(cli_input *in, const cli_options *opt, int allow_bar,
                          cli_event_fn on_event, cli_packet_fn on_packet,
                          void *event_user);

/* The same with any of the raw hooks (all get event_user). */
int cli_input_run_hooks(cli_input *in, const cli_options *opt, int allow_bar,
                        cli_event_fn on_event, const cli_hooks *hooks,
                        void *event_user);

/* The same over a byte range [begin, end) (end -1: to the end;
 * TREAD_OPT_RANGE_BEGIN/END), for one of several threads: the warnings and
 * errors are kept in in->captured, for the caller to print in order. */
int cli_input_run_range(cli_input *in, const cli_options *opt, int allow_bar,
                        cli_event_fn on_event, void *event_user, int64_t begin, int64_t end);

void cli_input_done(cli_input *in);

/* --strict: every warning counts. When opt->strict and the parse of p
 * (may be NULL) had warnings, plus more of the caller's own (cat
 * --packets' unprintable packets), says so and returns
 * EXIT_STRICT_WARNINGS; else 0. cli_input_run* apply it already after a
 * whole parse without error (not for a byte range: the caller adds the
 * ranges up and calls cli_strict_count). */
int cli_strict_status(const diag *d, const cli_options *opt, const tread_parser *p,
                      uint64_t more);
int cli_strict_count(const diag *d, const cli_options *opt, uint64_t warnings);

/* msg with the library's option names (TREAD_OPT_MAX_EVENT_BYTES) turned
 * into the command line's flags (--max-event-bytes), into out. */
void cli_flag_names(char *out, size_t size, const char *msg);

/* Applies opt's parser options to p, as a run would, saying nothing;
 * returns 0 or EXIT_USAGE. */
int cli_configure(tread_parser *p, const cli_options *opt);

#endif
