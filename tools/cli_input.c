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

/* Reads small enough that the kernel's copy lands in the L2 cache and the
 * decoder reads it from there: with 1 MiB reads the copy (_copy_to_iter)
 * took 38% of `tread stats` on the 1 GiB FXT bench file, with 128 KiB 5%;
 * wall time 1.21 -> 1.05 s (FXT), 1.52 -> 1.45 s (ftrace), 64 KiB no
 * better (measured 2026-11-23, idle). Also the progress granularity. */
#define READ_CHUNK (128u * 1024u)

static int event_trampoline(void *user, const tread_event *ev)
{
    cli_input *in = user;
    return in->on_event ? in->on_event(in->event_user, ev) : 0;
}

static int warning_trampoline(void *user, const tread_warning *w)
{
    cli_input *in = user;
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
    if (rc == 0 && opt->single_thread)
        rc = config_parser(p, TREAD_OPT_DECOMPRESS_THREAD, 0, "--single-thread", report);
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
        diag_error(&in->diag, "%s: cannot open '%s': %s",
                   tread_error_name(TREAD_ERROR_IO), path, strerror(errno));
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

static void keep_error(cli_input *in, tread_error e, uint64_t offset,
                       const char *message)
{
    in->failed = 1;
    in->error_name = tread_error_name(e);
    in->error_offset = offset;
    snprintf(in->error_message, sizeof in->error_message, "%s",
             message ? message : "");
}

static int feed_loop(cli_input *in, int fd, const char *path)
{
    unsigned char *buf = malloc(READ_CHUNK);
    uint64_t fed = 0;
    int rc = 0;
    if (!buf) {
        diag_error(&in->diag, "%s: out of memory",
                   tread_error_name(TREAD_ERROR_NOMEM));
        keep_error(in, TREAD_ERROR_NOMEM, 0, "out of memory");
        return EXIT_INPUT_ERROR;
    }
    in->status = TREAD_STATUS_OK;
    for (;;) {
        ssize_t n = read(fd, buf, READ_CHUNK);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int err = errno;
            diag_error(&in->diag, "%s at byte %llu: cannot read '%s': %s",
                       tread_error_name(TREAD_ERROR_IO),
                       (unsigned long long)fed, path, strerror(err));
            keep_error(in, TREAD_ERROR_IO, fed, strerror(err));
            rc = EXIT_INPUT_ERROR;
            break;
        }
        if (n == 0) {
            in->status = tread_finish(in->parser);
            break;
        }
        fed += (uint64_t)n;
        in->status = tread_feed(in->parser, buf, (size_t)n);
        if (in->status != TREAD_STATUS_OK)
            break; /* error, or a callback stopped the parse */
        progress_update(&in->bar, fed);
        if (!tread_wants_input(in->parser)) { /* past its byte range */
            in->status = tread_finish(in->parser);
            break;
        }
    }
    progress_clear(&in->bar);
    if (in->status == TREAD_STATUS_ERROR) {
        diag_parse_error(&in->diag, in->parser);
        keep_error(in, tread_get_error(in->parser),
                   tread_get_error_offset(in->parser),
                   tread_get_error_message(in->parser));
        rc = EXIT_INPUT_ERROR;
    }
    free(buf);
    return rc;
}

static int packet_trampoline(void *user, const tread_perfetto_packet *pk)
{
    cli_input *in = user;
    return in->on_packet(in->event_user, pk);
}

/* range: NULL, or [begin, end) (end -1: to the end), whose diagnostics
 * are captured in in->captured */
static int run(cli_input *in, const cli_options *opt, int allow_bar, cli_event_fn on_event,
               cli_packet_fn on_packet, void *event_user, const int64_t *range)
{
    memset(in, 0, sizeof *in);
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
                          .perfetto_packet = on_packet ? packet_trampoline : NULL};
    tread_set_callbacks(in->parser, &cb, in);

    int fd;
    rc = open_input(in, opt->path, &fd);
    if (rc != 0) {
        in->failed = 1;
        return rc;
    }
    in->opened = 1;
    int is_stdin = strcmp(opt->path, "-") == 0;
    progress_init(&in->bar,
                  allow_bar && opt->progress && !is_stdin &&
                      isatty(STDERR_FILENO),
                  is_stdin ? 0 : regular_file_size(fd));
    rc = feed_loop(in, fd, opt->path);
    if (!is_stdin)
        close(fd);
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
    return run(in, opt, allow_bar, on_event, on_packet, event_user, NULL);
}

int cli_input_run_range(cli_input *in, const cli_options *opt, int allow_bar,
                        cli_event_fn on_event, void *event_user, int64_t begin, int64_t end)
{
    const int64_t range[2] = {begin, end};
    return run(in, opt, allow_bar, on_event, NULL, event_user, range);
}

void cli_input_done(cli_input *in)
{
    diag_capture_free(&in->captured);
    tread_parser_free(in->parser);
    in->parser = NULL;
}
