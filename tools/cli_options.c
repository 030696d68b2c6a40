/* cli_options: see cli_options.h. Options may come before or after the
 * command and the file, GNU style; "--" ends them. The help texts here
 * and doc/tread.1 say the same (tests/cli/help.sh checks that every option
 * named in one is named in the other). */
#include "cli_options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "split_pieces.h"

static const char global_help[] =
"Usage: tread COMMAND [OPTIONS] FILE|- ...\n"
"Read trace files as streams, in bounded memory: Chrome JSON (with its\n"
"ftrace text and systrace HTML), Perfetto protobuf, Fuchsia FXT, ftrace\n"
"text and Android systrace HTML; plain or gzip/zstd compressed.\n"
"\n"
"Commands:\n"
"  stats FILE...          summary of each trace: format, sizes, events by\n"
"                         kind, top names, processes and threads, time\n"
"                         range, warnings (and a total for several files)\n"
"  cat FILE               one JSON object per event per line (NDJSON),\n"
"                         filtered by kind, name, category, pid, tid, time\n"
"  convert FILE OUT       the trace as Chrome JSON or Perfetto protobuf\n"
"  split FILE OUTPREFIX   pieces of at most --max-bytes that each stand alone\n"
"  help [COMMAND]         this help, or a command's own\n"
"\n"
"Options of every command:\n"
"  --format NAME          force the input format: json, perfetto, fxt,\n"
"                         ftrace, systrace, cpuprofile, tracedat (default:\n"
"                         detect; a forced format the input does not look\n"
"                         like is a warning)\n"
"  --strict               reject non-standard JSON (NaN, trailing commas...)\n"
"                         and exit 3 when the input had any warning; convert\n"
"                         and split: any event left out is an error\n"
"  --max-event-bytes N    largest record accepted (default 64M)\n"
"  --max-depth N          deepest JSON nesting accepted (default 256)\n"
"  --max-string-bytes N   longest string accepted (default 32M)\n"
"  --max-line-bytes N     longest ftrace text line read (default 1M)\n"
"  --max-decompressed-bytes N\n"
"                         what one Perfetto compressed packet may expand to\n"
"                         (default 512M)\n"
"  --max-interned-bytes N interned data held (Perfetto, FXT; default 256M)\n"
"  --max-tracedat-meta-bytes N\n"
"                         largest trace.dat metadata held: a format file, a\n"
"                         section, kallsyms, a data chunk (default 64M)\n"
"                         (N: a count, suffix K, M or G allowed)\n"
"  -q, --quiet            do not print warnings\n"
"  --no-progress          no progress line, even on a terminal\n"
"  --single-thread        read, expand and decode on one thread\n"
"  -h, --help             show help and exit (after a command: its help)\n"
"  --version              show the version and exit\n"
"\n"
"Exit status: 0 success, 1 input error, 2 usage error, 3 warnings under\n"
"--strict. 'tread help COMMAND' shows a command's options and an example.\n"
"See tread(1); doc/cli-ndjson.md for the NDJSON lines.\n";

static const char stats_help[] =
"Usage: tread stats [OPTIONS] FILE|- ...\n"
"A summary of each trace: format, compression, sizes, events by kind, top\n"
"names by count and by total duration, processes and threads, the time\n"
"range, B/E slice matching, warnings by kind, the format's own counters.\n"
"With several files: a report for each, then a total.\n"
"\n"
"Options:\n"
"  --json                 JSON instead of text: one object per file (an\n"
"                         array of them and a total for several files)\n"
"  --top N                top names and processes listed (default 10)\n"
"  -j, --jobs N           read an uncompressed FXT or JSON file as N byte\n"
"                         ranges on N threads (default: 2 for files of 64\n"
"                         MiB or more)\n"
"  and the options of every command (tread --help).\n"
"\n"
"A trace that fails before its first event prints no report (--json: one\n"
"object with the error); one that fails later prints a report marked\n"
"partial, which covers the input up to the error's byte only.\n"
"\n"
"Example:\n"
"  tread stats --top 5 trace.json.gz\n"
"  tread stats --json a.pftrace b.fxt | jq '.[-1].total.events'\n";

static const char cat_help[] =
"Usage: tread cat [OPTIONS] FILE|-\n"
"Every event as one JSON object per line (NDJSON, doc/cli-ndjson.md).\n"
"\n"
"Filters (all given must hold; each may be repeated, any value matching):\n"
"  --kind K[,K...]        event kinds: complete, slice_begin, slice_end,\n"
"                         instant, counter, async_begin, ... (tread(1))\n"
"  --name PATTERN         the name starts with PATTERN, or matches it whole\n"
"                         as a glob when it holds * ? or [\n"
"  --cat PATTERN          the same for the category text\n"
"  --pid N[,N...]         the process id is one of these\n"
"  --tid N[,N...]         the thread id is one of these\n"
"  --start T, --end T     events overlapping [start, end); T in ns, or with\n"
"                         a unit: 1.5s, 200ms, 30us, 12ns (events without a\n"
"                         timestamp, such as metadata, pass)\n"
"Output:\n"
"  --limit N              stop after N events written\n"
"  --fields LIST          only these keys, in this order, e.g. name,ts_ns,args\n"
"                         (kind,format,ts_ns,dur_ns,end_ns,pid,tid,name,cat,\n"
"                         id,ph,tts_ns,tdur_ns,cpu,series,value,meta,\n"
"                         meta_str,args)\n"
"  --packets              Perfetto: one object per TracePacket, all its\n"
"                         fields by name, instead of events (no filters)\n"
"  and the options of every command (tread --help).\n"
"\n"
"Example:\n"
"  tread cat --kind complete --name 'v8.*' --start 1.5s --end 2s \\\n"
"      --fields name,ts_ns,dur_ns trace.json\n";

static const char convert_help[] =
"Usage: tread convert --to json|perfetto [OPTIONS] FILE|- OUT|-\n"
"The trace, of any format, as Chrome JSON or Perfetto protobuf, streamed\n"
"(doc/convert.md says what each output keeps).\n"
"\n"
"Options:\n"
"  --to FORMAT            json or perfetto (required)\n"
"  --max-interned N       --to perfetto: strings interned before the\n"
"                         interning state starts over\n"
"  --max-frame-bytes N    stack frame definitions held (default 64M), for\n"
"                         the stackFrames object (--to json) or the events'\n"
"                         callstacks (--to perfetto); past it, left out and\n"
"                         counted\n"
"  and the options of every command (tread --help).\n"
"\n"
"After an input error, OUT holds the events before it and tread exits 1.\n"
"\n"
"Example:\n"
"  tread convert --to perfetto trace.json.gz trace.pftrace\n";

static const char split_help[] =
"Usage: tread split --max-bytes N [OPTIONS] FILE|- OUTPREFIX\n"
"The trace cut into pieces OUTPREFIX-00000.json (.pftrace, .fxt, ...) of\n"
"at most N bytes, each a trace that stands alone; every event is in exactly\n"
"one piece or counted on standard error (doc/convert.md).\n"
"\n"
"Options:\n"
"  --max-bytes N          largest piece (suffix K, M or G allowed; required;\n"
"                         at least 256)\n"
"  --max-total-bytes N    all pieces together at most N (default: a multiple\n"
"                         of the input's size, doc/convert.md)\n"
"  --to FORMAT            json or perfetto (default: each format splits\n"
"                         into itself)\n"
"  --max-interned N       as for convert\n"
"  --max-frame-bytes N    as for convert\n"
"  and the options of every command (tread --help).\n"
"\n"
"Example:\n"
"  tread split --max-bytes 256M big.json.gz pieces/big\n";

static const char help_help[] =
"Usage: tread help [COMMAND]\n"
"The global help, or COMMAND's (stats, cat, convert, split): the same as\n"
"'tread COMMAND --help'.\n"
"\n"
"Example:\n"
"  tread help cat\n";

void cli_print_help(FILE *fp, cli_command cmd)
{
    switch (cmd) {
    case CLI_CMD_STATS: fputs(stats_help, fp); break;
    case CLI_CMD_CAT: fputs(cat_help, fp); break;
    case CLI_CMD_CONVERT: fputs(convert_help, fp); break;
    case CLI_CMD_SPLIT: fputs(split_help, fp); break;
    case CLI_CMD_HELP: fputs(help_help, fp); break;
    case CLI_CMD_NONE: fputs(global_help, fp); break;
    }
}

static const char *command_name(cli_command c)
{
    switch (c) {
    case CLI_CMD_STATS: return "stats";
    case CLI_CMD_CAT: return "cat";
    case CLI_CMD_CONVERT: return "convert";
    case CLI_CMD_SPLIT: return "split";
    case CLI_CMD_HELP: return "help";
    case CLI_CMD_NONE: break;
    }
    return "";
}

static cli_command command_by_name(const char *s)
{
    for (int c = CLI_CMD_STATS; c <= CLI_CMD_HELP; c++)
        if (strcmp(s, command_name((cli_command)c)) == 0)
            return (cli_command)c;
    return CLI_CMD_NONE;
}

/* "Try 'tread help CMD'." once a command is known. */
static void try_help(const cli_options *opt)
{
    if (opt->command != CLI_CMD_NONE && opt->command != CLI_CMD_HELP)
        fprintf(stderr, "Try 'tread help %s'.\n", command_name(opt->command));
    else
        fputs("Try 'tread --help'.\n", stderr);
}

static int usage_error(const cli_options *opt, const char *what, const char *arg)
{
    fprintf(stderr, "tread: %s '%s'\n", what, arg);
    try_help(opt);
    return EXIT_USAGE;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int usage_msg(const cli_options *opt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("tread: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    try_help(opt);
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

/* A comma-separated list of whole numbers (pids may be negative). */
static int parse_ids(const char *s, ef_ids *ids)
{
    for (;;) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (end == s || errno != 0 || (*end != ',' && *end != '\0'))
            return -1;
        if (event_filter_add_id(ids, v) != 0)
            return -1;
        if (*end == '\0')
            return 0;
        s = end + 1;
    }
}

static int parse_kinds(const char *s, event_filter *f)
{
    char name[64];
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (len == 0 || len >= sizeof name)
            return -1;
        memcpy(name, s, len);
        name[len] = '\0';
        if (event_filter_add_kind_name(f, name) != 0)
            return -1;
        if (!comma)
            return 0;
        s = comma + 1;
    }
}

/* Options that take a value. */
typedef enum value_opt {
    OPT_FORMAT, OPT_MAX_EVENT, OPT_MAX_DEPTH, OPT_MAX_STRING, OPT_MAX_LINE,
    OPT_MAX_DECOMPRESSED, OPT_MAX_INTERNED_BYTES, OPT_TOP,
    OPT_TO, OPT_MAX_BYTES, OPT_MAX_INTERNED, OPT_JOBS, OPT_JOBS_SHORT,
    OPT_KIND, OPT_NAME, OPT_CAT, OPT_PID, OPT_TID, OPT_START, OPT_END, OPT_LIMIT,
    OPT_FIELDS, OPT_MAX_TOTAL_BYTES, OPT_MAX_FRAME_BYTES, OPT_MAX_TRACEDAT_META,
    OPT_NONE
} value_opt;

static const char *const value_names[] = {
    "--format", "--max-event-bytes", "--max-depth", "--max-string-bytes",
    "--max-line-bytes", "--max-decompressed-bytes", "--max-interned-bytes", "--top",
    "--to", "--max-bytes", "--max-interned", "--jobs", "-j",
    "--kind", "--name", "--cat", "--pid", "--tid", "--start", "--end", "--limit",
    "--fields", "--max-total-bytes", "--max-frame-bytes", "--max-tracedat-meta-bytes"};

static value_opt value_option(const char *name)
{
    for (size_t i = 0; i < sizeof value_names / sizeof value_names[0]; i++)
        if (strcmp(name, value_names[i]) == 0)
            return (value_opt)i;
    return OPT_NONE;
}

static int set_value(cli_options *opt, value_opt which, const char *name,
                     const char *val)
{
    int rc = 0;
    const char *why = NULL;
    switch (which) {
    case OPT_FORMAT: rc = parse_format(val, &opt->format); break;
    case OPT_MAX_EVENT: rc = parse_size(val, &opt->max_event_bytes); break;
    case OPT_MAX_DEPTH: rc = parse_size(val, &opt->max_depth); break;
    case OPT_MAX_STRING: rc = parse_size(val, &opt->max_string_bytes); break;
    case OPT_MAX_LINE: rc = parse_size(val, &opt->max_line_bytes); break;
    case OPT_MAX_DECOMPRESSED: rc = parse_size(val, &opt->max_decompressed_bytes); break;
    case OPT_MAX_INTERNED_BYTES: rc = parse_size(val, &opt->max_interned_bytes); break;
    case OPT_MAX_TRACEDAT_META: rc = parse_size(val, &opt->max_tracedat_meta_bytes); break;
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
    case OPT_MAX_FRAME_BYTES:
        rc = parse_size(val, &opt->max_frame_bytes);
        if (rc == 0 && opt->max_frame_bytes < 1)
            rc = -1;
        break;
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
    case OPT_KIND:
        rc = parse_kinds(val, &opt->filter);
        why = "kinds are complete, slice_begin, slice_end, instant, counter, ... (tread(1))";
        break;
    case OPT_NAME:
    case OPT_CAT:
        rc = event_filter_add_pattern(which == OPT_NAME ? &opt->filter.names
                                                        : &opt->filter.cats,
                                      val, strlen(val), EF_AUTO);
        break;
    case OPT_PID: rc = parse_ids(val, &opt->filter.pids); break;
    case OPT_TID: rc = parse_ids(val, &opt->filter.tids); break;
    case OPT_START:
    case OPT_END: {
        int64_t t;
        rc = ef_parse_time(val, &t);
        why = "a time in ns, or with a unit: 1.5s, 200ms, 30us, 12ns";
        if (rc == 0 && which == OPT_START) {
            opt->filter.has_start = 1;
            opt->filter.start = t;
        } else if (rc == 0) {
            opt->filter.has_end = 1;
            opt->filter.end = t;
        }
        break;
    }
    case OPT_LIMIT: rc = parse_size(val, &opt->limit); break;
    case OPT_FIELDS: {
        const char *bad;
        size_t bad_len;
        rc = ndjson_fields_parse(&opt->fields, val, &bad, &bad_len);
        if (rc != 0) {
            fprintf(stderr, "tread: unknown field '%.*s' in --fields; the fields are\n  %s\n",
                    (int)bad_len, bad, ndjson_fields_names());
            try_help(opt);
            return EXIT_USAGE;
        }
        opt->has_fields = 1;
        break;
    }
    case OPT_NONE: break;
    }
    if (rc != 0) {
        fprintf(stderr, "tread: invalid value '%s' for %s%s%s\n", val, name,
                why ? ": " : "", why ? why : "");
        try_help(opt);
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
        opt->command = command_by_name(a);
        if (opt->command == CLI_CMD_NONE)
            return usage_error(opt, "unknown command", a);
    } else if (opt->command == CLI_CMD_HELP) {
        if (*npos > 1 || opt->help_command != CLI_CMD_NONE)
            return usage_error(opt, "unexpected argument", a);
        opt->help_command = command_by_name(a);
        if (opt->help_command == CLI_CMD_NONE) {
            opt->help_command = CLI_CMD_NONE;
            return usage_error(opt, "no help for", a);
        }
    } else if (*npos == 1 || opt->command == CLI_CMD_STATS) {
        if (!opt->path)
            opt->path = a;
        opt->paths[opt->n_paths++] = a;
    } else if (*npos == 2 && (opt->command == CLI_CMD_CONVERT ||
                              opt->command == CLI_CMD_SPLIT)) {
        opt->output = a;
    } else {
        return usage_error(opt, "unexpected argument", a);
    }
    (*npos)++;
    return 0;
}

void cli_options_free(cli_options *opt)
{
    event_filter_free(&opt->filter);
    free(opt->paths);
    opt->paths = NULL;
}

/* Options that belong to some commands only: which, and the first given. */
static int check_applies(cli_options *opt, int top_given)
{
    cli_command c = opt->command;
    int conv = c == CLI_CMD_CONVERT || c == CLI_CMD_SPLIT;
    const event_filter *f = &opt->filter;
    if (!conv && (opt->convert_to || opt->max_bytes || opt->max_interned > 0))
        return usage_msg(opt, "%s applies only to 'tread convert' and 'tread split'",
                         opt->convert_to ? "--to" : opt->max_bytes ? "--max-bytes"
                                                                   : "--max-interned");
    if (!conv && opt->max_frame_bytes > 0)
        return usage_msg(opt, "--max-frame-bytes applies only to 'tread convert' and "
                         "'tread split'");
    if (c == CLI_CMD_CONVERT && opt->max_bytes)
        return usage_msg(opt, "--max-bytes applies only to 'tread split'");
    if (c != CLI_CMD_SPLIT && opt->max_total_bytes)
        return usage_msg(opt, "--max-total-bytes applies only to 'tread split'");
    const char *cat_only = opt->packets ? "--packets"
                           : f->has_kinds ? "--kind"
                           : f->names.n ? "--name"
                           : f->cats.n ? "--cat"
                           : f->pids.n ? "--pid"
                           : f->tids.n ? "--tid"
                           : f->has_start ? "--start"
                           : f->has_end ? "--end"
                           : opt->limit > 0 ? "--limit"
                           : opt->has_fields ? "--fields" : NULL;
    if (c != CLI_CMD_CAT && cat_only)
        return usage_msg(opt, "%s applies only to 'tread cat'", cat_only);
    if (opt->packets && (f->has_kinds || f->names.n || f->cats.n || f->pids.n || f->tids.n ||
                         f->has_start || f->has_end || opt->has_fields))
        return usage_msg(opt, "--packets prints packets, not events: the event filters "
                              "and --fields do not apply");
    if (f->has_start && f->has_end && f->end <= f->start)
        return usage_msg(opt, "--end must be after --start");
    if (c != CLI_CMD_STATS && (opt->json || top_given || opt->jobs))
        return usage_msg(opt, "%s applies only to 'tread stats'",
                         opt->json ? "--json" : top_given ? "--top" : "--jobs");
    return 0;
}

int cli_parse_args(cli_options *opt, int argc, char **argv)
{
    memset(opt, 0, sizeof *opt);
    opt->format = TREAD_FORMAT_UNKNOWN;
    opt->max_event_bytes = -1;
    opt->max_depth = -1;
    opt->max_string_bytes = -1;
    opt->max_line_bytes = -1;
    opt->max_decompressed_bytes = -1;
    opt->max_interned_bytes = -1;
    opt->max_tracedat_meta_bytes = -1;
    opt->progress = 1;
    opt->top = 10;
    opt->max_interned = -1;
    opt->max_frame_bytes = -1;
    opt->limit = -1;
    event_filter_init(&opt->filter);
    opt->paths = calloc((size_t)(argc > 0 ? argc : 1), sizeof *opt->paths);
    if (!opt->paths) {
        fputs("tread: out of memory\n", stderr);
        return EXIT_INPUT_ERROR;
    }

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
            return usage_error(opt, "unknown option", a);
        memcpy(name, a, nlen);
        name[nlen] = '\0';
        value_opt which = value_option(name);
        if (which == OPT_NONE)
            return usage_error(opt, "unknown option", a);
        const char *val = eq ? eq + 1 : NULL;
        if (!val) {
            if (i + 1 >= argc)
                return usage_error(opt, "missing value for option", name);
            val = argv[++i];
        }
        if ((rc = set_value(opt, which, name, val)) != 0)
            return rc;
        if (which == OPT_TOP)
            top_given = 1;
    }
    event_filter_finish(&opt->filter);
    if (opt->command == CLI_CMD_HELP) {
        opt->show_help = 1;
        opt->command = opt->help_command; /* `tread help help`: CLI_CMD_HELP */
        return 0;
    }
    if (opt->show_help || opt->show_version)
        return 0;
    if (opt->command == CLI_CMD_NONE)
        return usage_msg(opt, "missing command");
    if (!opt->path)
        return usage_msg(opt, "missing FILE argument (use - for standard input)");
    int conv = opt->command == CLI_CMD_CONVERT || opt->command == CLI_CMD_SPLIT;
    if (conv && !opt->output)
        return usage_msg(opt, "missing %s argument",
                         opt->command == CLI_CMD_SPLIT ? "OUTPREFIX" : "OUT");
    if (opt->command == CLI_CMD_CONVERT && opt->convert_to == CLI_TO_NONE)
        return usage_msg(opt, "convert needs --to json or --to perfetto");
    if (opt->command == CLI_CMD_SPLIT && opt->max_bytes <= 0)
        return usage_msg(opt, "split needs --max-bytes N");
    if (opt->command == CLI_CMD_SPLIT && opt->max_bytes < SPLIT_MIN_MAX_BYTES)
        return usage_msg(opt, "--max-bytes must be at least %u (a piece's header "
                              "and one small record)", SPLIT_MIN_MAX_BYTES);
    if (opt->command == CLI_CMD_SPLIT && strcmp(opt->output, "-") == 0)
        return usage_msg(opt, "split writes files: OUTPREFIX cannot be -");
    if (opt->command == CLI_CMD_STATS && opt->n_paths > 1) {
        int dash = 0;
        for (int i = 0; i < opt->n_paths; i++)
            dash += strcmp(opt->paths[i], "-") == 0;
        if (dash > 1)
            return usage_msg(opt, "standard input (-) can be read only once");
    }
    return check_applies(opt, top_given);
}
