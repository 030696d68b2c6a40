/*
 * cli_options: the command line of `tread`, parsed into one struct.
 */
#ifndef TREAD_TOOLS_CLI_OPTIONS_H
#define TREAD_TOOLS_CLI_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

#include <tread.h>

#include "event_filter.h"
#include "ndjson_fields.h"

typedef enum cli_command {
    CLI_CMD_NONE = 0,
    CLI_CMD_STATS,
    CLI_CMD_CAT,
    CLI_CMD_CONVERT,
    CLI_CMD_SPLIT,
    CLI_CMD_HELP              /* `tread help [CMD]` (parsed into show_help) */
} cli_command;

/* --to: the output format of convert and split. */
enum { CLI_TO_NONE = 0, CLI_TO_JSON, CLI_TO_PERFETTO };

typedef struct cli_options {
    cli_command command;
    const char *path;         /* "-" is standard input; stats: the first */
    const char **paths;       /* stats FILE...: all of them (n_paths) */
    int n_paths;
    int show_help;            /* --help, -h, `tread help [CMD]`: the help of
                                 command (CLI_CMD_NONE: the global one) */
    cli_command help_command; /* while parsing `tread help CMD` */
    int show_version;

    /* Parser options; -1 (or TREAD_FORMAT_UNKNOWN) leaves the default. */
    tread_format format;
    int strict;
    int64_t max_event_bytes;
    int64_t max_depth;
    int64_t max_string_bytes;
    int64_t max_line_bytes;
    int64_t max_decompressed_bytes;
    int64_t max_interned_bytes;
    int64_t max_tracedat_meta_bytes;

    int quiet;                /* -q: no warnings on stderr */
    int progress;             /* 1 auto, 0 --no-progress */
    int single_thread;        /* --single-thread: no helper threads */
    int inline_inflate;       /* set by `tread stats` for its byte ranges of
                                 a compressed file: no decompression thread */

    /* cat */
    int packets;              /* --packets: Perfetto packets via the walk */
    event_filter filter;      /* --kind, --name, --cat, --pid, --tid,
                                 --start, --end */
    int64_t limit;            /* --limit N: events written at most; -1 all */
    int has_fields;           /* --fields LIST */
    ndjson_fields fields;

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
    int64_t max_frame_bytes;  /* --max-frame-bytes N, -1: default */
} cli_options;

/* Exit codes, as documented in doc/tread.1 (EXIT STATUS):
 *   0  success
 *   1  input error: a file that does not open or read, a trace that
 *      cannot be read to its end, a write error, out of memory
 *   2  usage error: the command line is wrong; nothing was read
 *   3  --strict and the input had warnings (the output is complete)
 * An input error wins over warnings. */
enum { EXIT_INPUT_ERROR = 1, EXIT_USAGE = 2, EXIT_STRICT_WARNINGS = 3 };

/* Parses argv. Returns 0, or EXIT_USAGE after printing why to stderr.
 * Call cli_options_free after either. */
int cli_parse_args(cli_options *opt, int argc, char **argv);
void cli_options_free(cli_options *opt);

/* The global help (CLI_CMD_NONE) or one command's: usage, options, an
 * example. */
void cli_print_help(FILE *fp, cli_command cmd);

#endif
