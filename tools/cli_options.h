/*
 * cli_options: the command line of `tread`, parsed into one struct.
 */
#ifndef TREAD_TOOLS_CLI_OPTIONS_H
#define TREAD_TOOLS_CLI_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

#include <tread.h>

typedef enum cli_command {
    CLI_CMD_NONE = 0,
    CLI_CMD_STATS,
    CLI_CMD_CAT,
    CLI_CMD_CONVERT,
    CLI_CMD_SPLIT
} cli_command;

/* --to: the output format of convert and split. */
enum { CLI_TO_NONE = 0, CLI_TO_JSON, CLI_TO_PERFETTO };

typedef struct cli_options {
    cli_command command;
    const char *path;         /* "-" is standard input */
    int show_help;
    int show_version;

    /* Parser options; -1 (or TREAD_FORMAT_UNKNOWN) leaves the default. */
    tread_format format;
    int strict;
    int64_t max_event_bytes;
    int64_t max_depth;
    int64_t max_string_bytes;

    int quiet;                /* -q: no warnings on stderr */
    int progress;             /* 1 auto, 0 --no-progress */
    int single_thread;        /* --single-thread: no helper threads */

    /* cat */
    int packets;              /* --packets: Perfetto packets via the walk */

    /* stats */
    int json;                 /* --json */
    int64_t top;              /* --top N */
    int64_t jobs;             /* --jobs N, 0: automatic */

    /* convert, split */
    const char *output;       /* OUT (convert) or OUTPREFIX (split) */
    int convert_to;           /* --to: CLI_TO_* */
    int64_t max_bytes;        /* split --max-bytes N */
    int64_t max_total_bytes;  /* split --max-total-bytes N, 0: default */
    int64_t max_interned;     /* --max-interned N, -1: default */
} cli_options;

/* Exit codes, as documented in doc/tread.1. */
enum { EXIT_INPUT_ERROR = 1, EXIT_USAGE = 2 };

/* Parses argv. Returns 0, or EXIT_USAGE after printing why to stderr. */
int cli_parse_args(cli_options *opt, int argc, char **argv);

void cli_print_usage(FILE *fp);

#endif
