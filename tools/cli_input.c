/* cli_input: see cli_input.h. */
#define _POSIX_C_SOURCE 200809L
#include "cli_input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The progress bar looks at the parser's bytes_in every this many
 * callbacks (progress_update draws at most a few times a second). */
#define BAR_TICK 4096u

static void bar_tick(cli_input *in)
{
    if (!in->bar.active || ++in->bar_tick < BAR_TICK)
        return;
    in->bar_tick = 0;
    tread_stats s;
    tread_get_stats(in->parser, &s);
    progress_update(&in->bar, s.bytes_in);
}

static int event_trampoline(void *user, const tread_event *ev)
{
    cli_input *in = user;
    bar_tick(in);
    return in->on_event ? in->on_event(in->event_user, ev) : 0;
}

static int warning_trampoline(void *user, const tread_warning *w)
{
    cli_input *in = user;
    bar_tick(in);
    return diag_warning_cb(&in->diag, w);
}

/* report: say why a value is refused (else only return EXIT_USAGE) */
static int config_parser(tread_parser *p, tread_option o, int64_t v, const char *name,
                         int report)
{
    if (tread_config(p, o, v) == 0)
        return 0;
    if (report)
        fprintf(stderr, "tread: invalid value %lld for %s\n"
                        "Try 'tread --help'.\n", (long long)v, name);
    return EXIT_USAGE;
}

static int configure_parser(tread_parser *p, const cli_options *opt, int report)
{
    int rc = 0;
    if (opt->format != TREAD_FORMAT_UNKNOWN)
        rc = config_parser(p, TREAD_OPT_FORMAT, opt->format, "--format", report);
    if (rc == 0 && opt->strict)
        rc = config_parser(p, TREAD_OPT_LENIENT, 0, "--strict", report);
    if (rc == 0 && opt->max_event_bytes > 0)
        rc = config_parser(p, TREAD_OPT_MAX_EVENT_BYTES, opt->max_event_bytes,
                           "--max-event-bytes", report);
    if (rc == 0 && opt->max_depth > 0)
        rc = config_parser(p, TREAD_OPT_MAX_DEPTH, opt->max_depth, "--max-depth", report);
    if (rc == 0 && opt->max_string_bytes > 0)
        rc = config_parser(p, TREAD_OPT_MAX_STRING_BYTES, opt->max_string_bytes,
                           "--max-string-bytes", report);
    if (rc == 0 && opt->max_line_bytes > 0)
        rc = config_parser(p, TREAD_OPT_MAX_LINE_BYTES, opt->max_line_bytes,
                           "--max-line-bytes", report);
    if (rc == 0 && opt->max_decompressed_bytes > 0)
        rc = config_parser(p, TREAD_OPT_MAX_DECOMPRESSED_BYTES, opt->max_decompressed_bytes,
                           "--max-decompressed-bytes", report);
    if (rc == 0 && opt->max_interned_bytes > 0)
        rc = config_parser(p, TREAD_OPT_MAX_INTERNED_BYTES, opt->max_interned_bytes,
                           "--max-interned-bytes", report);
    if (rc == 0 && opt->max_tracedat_meta_bytes > 0)
        rc = config_parser(p, TREAD_OPT_MAX_TRACEDAT_META_BYTES, opt->max_tracedat_meta_bytes,
                           "--max-tracedat-meta-bytes", report);
    if (rc == 0 && opt->inline_inflate && !opt->single_thread)
        rc = config_parser(p, TREAD_OPT_DECOMPRESS_THREAD, 0, "a byte range", report);
    if (rc == 0 && opt->single_thread) {
        rc = config_parser(p, TREAD_OPT_DECOMPRESS_THREAD, 0, "--single-thread", report);
        if (rc == 0)
            rc = config_parser(p, TREAD_OPT_READ_THREAD, 0, "--single-thread", report);
    }
    /* Warnings beyond the printed ones need no callback; the stats still
     * count them all. Best effort: diag caps them as well. */
    if (rc == 0)
        (void)tread_config(p, TREAD_OPT_MAX_WARNINGS_REPORTED,
                           opt->quiet ? 0 : DIAG_MAX_PRINTED_WARNINGS);
    return rc;
}

int cli_configure(tread_parser *p, const cli_options *opt)
{
    return configure_parser(p, opt, 0);
}

static void keep_error(cli_input *in, tread_error e, uint64_t offset,
                       const char *message)
{
    in->failed = 1;
    in->error_name = tread_error_name(e);
    in->error_offset = offset;
    size_t n = message ? strlen(message) : 0;
    if (n >= sizeof in->error_message)
        n = sizeof in->error_message - 1;
    memcpy(in->error_message, message ? message : "", n);
    in->error_message[n] = '\0';
}

static int open_input(cli_input *in, const char *path, int *fd)
{
    if (strcmp(path, "-") == 0) {
        *fd = STDIN_FILENO;
        return 0;
    }
    do
        *fd = open(path, O_RDONLY);
    while (*fd < 0 && errno == EINTR);
    if (*fd < 0) {
        char msg[256];
        snprintf(msg, sizeof msg, "cannot open '%s': %s", path, strerror(errno));
        diag_error(&in->diag, "%s: %s", tread_error_name(TREAD_ERROR_IO), msg);
        keep_error(in, TREAD_ERROR_IO, 0, msg);
        return EXIT_INPUT_ERROR;
    }
    return 0;
}

/* Size of a regular file for the progress bar, or 0 when unknown. */
static uint64_t regular_file_size(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0)
        return 0;
    return (uint64_t)st.st_size;
}


/* The library's messages name its options (TREAD_OPT_MAX_EVENT_BYTES);
 * on the command line, the flag that sets the same limit is what helps. */
static const char *const option_flags[][2] = {
    {"TREAD_OPT_MAX_EVENT_BYTES", "--max-event-bytes"},
    {"TREAD_OPT_MAX_DEPTH", "--max-depth"},
    {"TREAD_OPT_MAX_STRING_BYTES", "--max-string-bytes"},
    {"TREAD_OPT_MAX_LINE_BYTES", "--max-line-bytes"},
    {"TREAD_OPT_MAX_DECOMPRESSED_BYTES", "--max-decompressed-bytes"},
    {"TREAD_OPT_MAX_INTERNED_BYTES", "--max-interned-bytes"},
    {"TREAD_OPT_MAX_TRACEDAT_META_BYTES", "--max-tracedat-meta-bytes"},
};

void cli_flag_names(char *out, size_t size, const char *msg)
{
    size_t o = 0, n = sizeof option_flags / sizeof option_flags[0];
    if (size == 0)
        return;
    if (!msg)
        msg = "";
    while (*msg && o + 1 < size) {
        const char *flag = NULL;
        size_t len = 0;
        for (size_t i = 0; i < n && !flag; i++) {
            len = strlen(option_flags[i][0]);
            if (strncmp(msg, option_flags[i][0], len) == 0 && msg[len] != '_' &&
                !(msg[len] >= 'A' && msg[len] <= 'Z'))
                flag = option_flags[i][1];
        }
        if (!flag) {
            out[o++] = *msg++;
            continue;
        }
        size_t flen = strlen(flag);
        if (o + flen >= size)
            break;
        memcpy(out + o, flag, flen);
        o += flen;
        msg += len;
    }
    out[o] = '\0';
}

static int parse_loop(cli_input *in, int fd, const char *path)
{
    /* A callback's stop ends the command (the caller knows why): it is
     * not resumed. */
    in->status = tread_parse_fd(in->parser, fd);
    progress_clear(&in->bar);
    if (in->status != TREAD_STATUS_ERROR)
        return 0;
    tread_error e = tread_get_error(in->parser);
    char msg[sizeof in->error_message];
    cli_flag_names(msg, sizeof msg, tread_get_error_message(in->parser));
    if (e == TREAD_ERROR_IO) /* the library's message does not know the path */
        diag_error(&in->diag, "%s at byte %llu: '%s': %s", tread_error_name(e),
                   (unsigned long long)tread_get_error_offset(in->parser), path, msg);
    else
        diag_error(&in->diag, "%s at byte %llu: %s", tread_error_name(e),
                   (unsigned long long)tread_get_error_offset(in->parser), msg);
    keep_error(in, e, tread_get_error_offset(in->parser), msg);
    return EXIT_INPUT_ERROR;
}

static int packet_trampoline(void *user, const tread_perfetto_packet *pk)
{
    cli_input *in = user;
    return in->on_packet(in->event_user, pk);
}

static int ftrace_line_trampoline(void *user, const tread_ftrace_line *l)
{
    cli_input *in = user;
    return in->hooks.on_ftrace_line(in->event_user, l);
}

static int fxt_trampoline(void *user, const tread_fxt_record *rec)
{
    cli_input *in = user;
    return in->hooks.on_fxt_record(in->event_user, rec);
}

static int blob_trampoline(void *user, const tread_blob *b)
{
    cli_input *in = user;
    return in->hooks.on_blob(in->event_user, b);
}

/* range: NULL, or [begin, end) (end -1: to the end), whose diagnostics
 * are captured in in->captured */
static int run(cli_input *in, const cli_options *opt, int allow_bar, cli_event_fn on_event,
               const cli_hooks *hooks, void *event_user, const int64_t *range)
{
    cli_packet_fn on_packet = hooks ? hooks->on_packet : NULL;
    memset(in, 0, sizeof *in);
    if (hooks)
        in->hooks = *hooks;
    diag_init(&in->diag, opt->quiet);
    if (range)
        in->diag.capture = &in->captured;
    in->diag.before_print = progress_clear_hook;
    in->diag.before_print_ctx = &in->bar;
    in->on_event = on_event;
    in->on_packet = on_packet;
    in->event_user = event_user;

    in->parser = tread_parser_create(NULL);
    if (!in->parser) {
        diag_error(&in->diag, "%s: cannot create a parser",
                   tread_error_name(TREAD_ERROR_NOMEM));
        in->failed = 1;
        return EXIT_INPUT_ERROR;
    }
    int rc = configure_parser(in->parser, opt, 1);
    if (rc == 0 && range && range[0])
        rc = config_parser(in->parser, TREAD_OPT_RANGE_BEGIN, range[0], "a byte range", 1);
    if (rc == 0 && range && range[1] >= 0)
        rc = config_parser(in->parser, TREAD_OPT_RANGE_END, range[1], "a byte range", 1);
    if (rc != 0)
        return rc;
    tread_callbacks cb = {.event = event_trampoline, .warning = warning_trampoline,
                          .perfetto_packet = on_packet ? packet_trampoline : NULL,
                          .fxt_record = in->hooks.on_fxt_record ? fxt_trampoline : NULL,
                          .blob = in->hooks.on_blob ? blob_trampoline : NULL,
                          .ftrace_line = in->hooks.on_ftrace_line ? ftrace_line_trampoline
                                                                  : NULL};
    tread_set_callbacks(in->parser, &cb, in);

    int fd;
    rc = open_input(in, opt->path, &fd);
    if (rc != 0) {
        in->failed = 1;
        return rc;
    }
    in->opened = 1;
    int is_stdin = strcmp(opt->path, "-") == 0;
    /* standard input: a count of bytes and a rate, its size unknown */
    progress_init(&in->bar, allow_bar && opt->progress && isatty(STDERR_FILENO),
                  is_stdin ? 0 : regular_file_size(fd), is_stdin);
    rc = parse_loop(in, fd, opt->path);
    if (!is_stdin)
        close(fd);
    if (rc == 0 && !range)
        rc = cli_strict_status(&in->diag, opt, in->parser, 0);
    return rc;
}

int cli_input_run(cli_input *in, const cli_options *opt, int allow_bar,
                  cli_event_fn on_event, void *event_user)
{
    return run(in, opt, allow_bar, on_event, NULL, event_user, NULL);
}

int cli_input_run_packets(cli_input *in, const cli_options *opt, int allow_bar,
                          cli_event_fn on_event, cli_packet_fn on_packet,
                          void *event_user)
{
    const cli_hooks hooks = {.on_packet = on_packet};
    return run(in, opt, allow_bar, on_event, &hooks, event_user, NULL);
}

int cli_input_run_hooks(cli_input *in, const cli_options *opt, int allow_bar,
                        cli_event_fn on_event, const cli_hooks *hooks,
                        void *event_user)
{
    return run(in, opt, allow_bar, on_event, hooks, event_user, NULL);
}

int cli_input_run_range(cli_input *in, const cli_options *opt, int allow_bar,
                        cli_event_fn on_event, void *event_user, int64_t begin, int64_t end)
{
    const int64_t range[2] = {begin, end};
    return run(in, opt, allow_bar, on_event, NULL, event_user, range);
}

int cli_strict_status(const diag *d, const cli_options *opt, const tread_parser *p,
                      uint64_t more)
{
    uint64_t n = more;
    if (p) {
        tread_stats s;
        tread_get_stats(p, &s);
        n += s.warnings;
    }
    return cli_strict_count(d, opt, n);
}

int cli_strict_count(const diag *d, const cli_options *opt, uint64_t warnings)
{
    if (!opt->strict || warnings == 0)
        return 0;
    diag_error(d, "--strict: the input had %llu warning%s (exit status %d)",
               (unsigned long long)warnings, warnings == 1 ? "" : "s", EXIT_STRICT_WARNINGS);
    return EXIT_STRICT_WARNINGS;
}

void cli_input_done(cli_input *in)
{
    diag_capture_free(&in->captured);
    tread_parser_free(in->parser);
    in->parser = NULL;
}
