/* cli_options: see cli_options.h. Options may come before or after the
 * command and the file, GNU style; "--" ends them. */
#include "cli_options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "split_pieces.h"

void cli_print_usage(FILE *fp)
{
    fputs(
"Usage: tread COMMAND [OPTIONS] FILE|- [OUT]\n"
"Read a trace file (Chrome JSON; gzip or zstd compressed or not) as a stream.\n"
"\n"
"Commands:\n"
"  stats                  summary: format, sizes, events by kind, top names,\n"
"                         processes and threads, time range, warnings\n"
"  cat                    one JSON object per event per line (NDJSON)\n"
"  cat --packets          Perfetto: one JSON object per TracePacket, all its\n"
"                         fields by name (the schema's reflective walk)\n"
"  convert --to json|perfetto FILE OUT\n"
"                         the trace as Chrome JSON or Perfetto protobuf\n"
"  split --max-bytes N FILE OUTPREFIX\n"
"                         pieces of at most N bytes that each stand alone\n"
"                         (OUTPREFIX-00000.json ...; --to as for convert)\n"
"\n"
"Options:\n"
"  --format NAME          force the input format: json, perfetto, fxt,\n"
"                         ftrace, systrace, cpuprofile (default: detect)\n"
"  --strict               reject non-standard JSON (NaN, trailing commas...)\n"
"  --max-event-bytes N    largest record accepted (suffix K, M, G allowed)\n"
"  --max-depth N          deepest nesting accepted\n"
"  --max-string-bytes N   longest string accepted (suffix K, M, G allowed)\n"
"  -q, --quiet            do not print warnings\n"
"  --no-progress          no progress bar, even on a terminal\n"
"  --single-thread        expand compressed input and Perfetto compressed\n"
"                         packets on the reading thread too (default: on\n"
"                         a second one)\n"
"  --json                 stats: one JSON object instead of text\n"
"  --top N                stats: how many top names to list (default 10)\n"
"  -j, --jobs N           stats: read an FXT file as N byte ranges on N\n"
"                         threads (default: 2 for files of 64 MiB\n"
"                         or more; 1: one thread)\n"
"  --to FORMAT            convert, split: json or perfetto\n"
"  --max-bytes N          split: largest piece (suffix K, M, G allowed;\n"
"                         at least 256)\n"
"  --max-total-bytes N    split: all pieces together at most N (default:\n"
"                         a multiple of the input's size, doc/convert.md)\n"
"  --max-interned N       convert, split to perfetto: strings interned\n"
"                         before the interning state starts over\n"
"  -h, --help             show this help and exit\n"
"  --version              show the version and exit\n"
"\n"
"Exit status: 0 success, 1 input error, 2 usage error.\n"
"See tread(1) and doc/cli-ndjson.md for the output formats.\n",
          fp);
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "tread: %s '%s'\nTry 'tread --help'.\n", what, arg);
    return EXIT_USAGE;
}

/* A positive count, with an optional binary K/M/G suffix. */
static int parse_size(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno != 0 || v <= 0)
        return -1;
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end != '\0' || v > (INT64_MAX >> shift))
        return -1;
    *out = (int64_t)v << shift;
    return 0;
}

static int parse_format(const char *s, tread_format *out)
{
    for (int f = TREAD_FORMAT_UNKNOWN + 1; f < TREAD_FORMAT_COUNT_; f++) {
        if (strcmp(s, tread_format_name((tread_format)f)) == 0) {
            *out = (tread_format)f;
            return 0;
        }
    }
    return -1;
}

/* Options that take a value. */
typedef enum value_opt {
    OPT_FORMAT, OPT_MAX_EVENT, OPT_MAX_DEPTH, OPT_MAX_STRING, OPT_TOP,
    OPT_TO, OPT_MAX_BYTES, OPT_MAX_INTERNED, OPT_JOBS, OPT_JOBS_SHORT,
    OPT_MAX_TOTAL_BYTES, OPT_NONE
} value_opt;

static value_opt value_option(const char *name)
{
    static const char *const names[] = {
        "--format", "--max-event-bytes", "--max-depth", "--max-string-bytes",
        "--top", "--to", "--max-bytes", "--max-interned", "--jobs", "-j",
        "--max-total-bytes"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return (value_opt)i;
    return OPT_NONE;
}

static int set_value(cli_options *opt, value_opt which, const char *name,
                     const char *val)
{
    int rc = 0;
    switch (which) {
    case OPT_FORMAT: rc = parse_format(val, &opt->format); break;
    case OPT_MAX_EVENT: rc = parse_size(val, &opt->max_event_bytes); break;
    case OPT_MAX_DEPTH: rc = parse_size(val, &opt->max_depth); break;
    case OPT_MAX_STRING: rc = parse_size(val, &opt->max_string_bytes); break;
    case OPT_TOP: rc = parse_size(val, &opt->top); break;
    case OPT_TO:
        if (strcmp(val, "json") == 0)
            opt->convert_to = CLI_TO_JSON;
        else if (strcmp(val, "perfetto") == 0)
            opt->convert_to = CLI_TO_PERFETTO;
        else
            rc = -1;
        break;
    case OPT_MAX_BYTES: rc = parse_size(val, &opt->max_bytes); break;
    case OPT_MAX_TOTAL_BYTES: rc = parse_size(val, &opt->max_total_bytes); break;
    case OPT_MAX_INTERNED:
        rc = parse_size(val, &opt->max_interned);
        if (rc == 0 && opt->max_interned > (1 << 24))
            rc = -1; /* the table holds 2 slots per string */
        break;
    case OPT_JOBS:
    case OPT_JOBS_SHORT:
        rc = parse_size(val, &opt->jobs);
        if (rc == 0 && (*val < '0' || *val > '9' || opt->jobs > 64))
            rc = -1; /* a plain count */
        break;
    case OPT_NONE: break;
    }
    if (rc != 0) {
        fprintf(stderr, "tread: invalid value '%s' for %s\n"
                        "Try 'tread --help'.\n", val, name);
        return EXIT_USAGE;
    }
    return 0;
}

static int flag_option(cli_options *opt, const char *a)
{
    if (strcmp(a, "--strict") == 0)
        opt->strict = 1;
    else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
        opt->quiet = 1;
    else if (strcmp(a, "--no-progress") == 0)
        opt->progress = 0;
    else if (strcmp(a, "--single-thread") == 0)
        opt->single_thread = 1;
    else if (strcmp(a, "--json") == 0)
        opt->json = 1;
    else if (strcmp(a, "--packets") == 0)
        opt->packets = 1;
    else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
        opt->show_help = 1;
    else if (strcmp(a, "--version") == 0)
        opt->show_version = 1;
    else
        return 0;
    return 1;
}

static int positional(cli_options *opt, const char *a, int *npos)
{
    if (*npos == 0) {
        if (strcmp(a, "stats") == 0)
            opt->command = CLI_CMD_STATS;
        else if (strcmp(a, "cat") == 0)
            opt->command = CLI_CMD_CAT;
        else if (strcmp(a, "convert") == 0)
            opt->command = CLI_CMD_CONVERT;
        else if (strcmp(a, "split") == 0)
            opt->command = CLI_CMD_SPLIT;
        else
            return usage_error("unknown command", a);
    } else if (*npos == 1) {
        opt->path = a;
    } else if (*npos == 2 && (opt->command == CLI_CMD_CONVERT ||
                              opt->command == CLI_CMD_SPLIT)) {
        opt->output = a;
    } else {
        return usage_error("unexpected argument", a);
    }
    (*npos)++;
    return 0;
}

int cli_parse_args(cli_options *opt, int argc, char **argv)
{
    memset(opt, 0, sizeof *opt);
    opt->format = TREAD_FORMAT_UNKNOWN;
    opt->max_event_bytes = -1;
    opt->max_depth = -1;
    opt->max_string_bytes = -1;
    opt->progress = 1;
    opt->top = 10;
    opt->max_interned = -1;

    int npos = 0, only_positional = 0, top_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int rc;
        if (only_positional || a[0] != '-' || strcmp(a, "-") == 0) {
            if ((rc = positional(opt, a, &npos)) != 0)
                return rc;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_positional = 1;
            continue;
        }
        if (flag_option(opt, a))
            continue;
        /* --name=value or --name value */
        const char *eq = strchr(a, '=');
        char name[32];
        size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        if (nlen >= sizeof name)
            return usage_error("unknown option", a);
        memcpy(name, a, nlen);
        name[nlen] = '\0';
        value_opt which = value_option(name);
        if (which == OPT_NONE)
            return usage_error("unknown option", a);
        const char *val = eq ? eq + 1 : NULL;
        if (!val) {
            if (i + 1 >= argc)
                return usage_error("missing value for option", name);
            val = argv[++i];
        }
        if ((rc = set_value(opt, which, name, val)) != 0)
            return rc;
        if (which == OPT_TOP)
            top_given = 1;
    }
    if (opt->show_help || opt->show_version)
        return 0;
    if (opt->command == CLI_CMD_NONE) {
        fputs("tread: missing command\nTry 'tread --help'.\n", stderr);
        return EXIT_USAGE;
    }
    if (!opt->path) {
        fputs("tread: missing FILE argument (use - for standard input)\n"
              "Try 'tread --help'.\n", stderr);
        return EXIT_USAGE;
    }
    int conv = opt->command == CLI_CMD_CONVERT || opt->command == CLI_CMD_SPLIT;
    if (conv && !opt->output) {
        fprintf(stderr, "tread: missing %s argument\nTry 'tread --help'.\n",
                opt->command == CLI_CMD_SPLIT ? "OUTPREFIX" : "OUT");
        return EXIT_USAGE;
    }
    if (opt->command == CLI_CMD_CONVERT && opt->convert_to == CLI_TO_NONE) {
        fputs("tread: convert needs --to json or --to perfetto\n"
              "Try 'tread --help'.\n", stderr);
        return EXIT_USAGE;
    }
    if (opt->command == CLI_CMD_SPLIT && opt->max_bytes <= 0) {
        fputs("tread: split needs --max-bytes N\nTry 'tread --help'.\n", stderr);
        return EXIT_USAGE;
    }
    if (opt->command == CLI_CMD_SPLIT && opt->max_bytes < SPLIT_MIN_MAX_BYTES) {
        fprintf(stderr, "tread: --max-bytes must be at least %u (a piece's "
                "header and one small record)\nTry 'tread --help'.\n",
                SPLIT_MIN_MAX_BYTES);
        return EXIT_USAGE;
    }
    if (opt->command != CLI_CMD_SPLIT && opt->max_total_bytes) {
        fputs("tread: --max-total-bytes applies only to 'tread split'\n", stderr);
        return EXIT_USAGE;
    }
    if (opt->command == CLI_CMD_SPLIT && strcmp(opt->output, "-") == 0) {
        fputs("tread: split writes files: OUTPREFIX cannot be -\n"
              "Try 'tread --help'.\n", stderr);
        return EXIT_USAGE;
    }
    if (!conv && (opt->convert_to || opt->max_bytes || opt->max_interned > 0)) {
        fprintf(stderr, "tread: %s applies only to 'tread convert' and 'tread split'\n",
                opt->convert_to ? "--to" : opt->max_bytes ? "--max-bytes"
                                                          : "--max-interned");
        return EXIT_USAGE;
    }
    if (opt->command == CLI_CMD_CONVERT && opt->max_bytes) {
        fputs("tread: --max-bytes applies only to 'tread split'\n", stderr);
        return EXIT_USAGE;
    }
    if (opt->command != CLI_CMD_CAT && opt->packets) {
        fputs("tread: --packets applies only to 'tread cat'\n", stderr);
        return EXIT_USAGE;
    }
    if (opt->command != CLI_CMD_STATS && (opt->json || top_given || opt->jobs)) {
        fprintf(stderr, "tread: %s applies only to 'tread stats'\n",
                opt->json ? "--json" : top_given ? "--top" : "--jobs");
        return EXIT_USAGE;
    }
    return 0;
}
