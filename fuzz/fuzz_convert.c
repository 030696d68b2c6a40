/*
 * libFuzzer harness for `tread convert` and `tread split`: whatever the
 * decoders make of an input (format sniffed, every decoder reachable) goes
 * through the converters (tools/convert_sink.c, convert_json.c,
 * convert_perfetto.c) into files, once whole and once split into pieces of
 * a few hundred bytes up. The converters must never crash, and what they
 * write must hold up:
 *
 * - every output (the whole one and each piece) reads back with tread,
 *   format forced, strict JSON, without an error or a warning (but the
 *   unknown-phase warning when the input had events of an unknown phase:
 *   the converters carry them over as they are, doc/convert.md);
 * - the pieces hold the events of the whole output: the same number of
 *   events that are not metadata (doc/convert.md, "tread split").
 *
 * The first byte of the input chooses the output format and the piece
 * size; the rest is the trace. Whole-file decompression is off (the
 * pipeline harness fuzzes it) and limits are small, so the parse stays
 * bounded.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tread.h>

#include "convert_sink.h"
#include "harness.h"

static char dir[64]; /* this process's scratch directory */

int LLVMFuzzerInitialize(int *argc, char ***argv);

static void remove_dir(void)
{
    rmdir(dir); /* emptied after every input */
}

__attribute__((visibility("default")))
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(dir, sizeof dir, "/tmp/tread-fuzz-convert-XXXXXX");
    if (!mkdtemp(dir))
        fuzz_fail("cannot make a scratch directory");
    atexit(remove_dir);
    /* split names each piece on standard output */
    if (!freopen("/dev/null", "w", stdout))
        fuzz_fail("cannot silence standard output");
    return 0;
}

static void configure_input(tread_parser *p)
{
    if (tread_config(p, TREAD_OPT_DECOMPRESS, 0) != 0 ||
        tread_config(p, TREAD_OPT_MAX_EVENT_BYTES, 1 << 20) != 0 ||
        tread_config(p, TREAD_OPT_MAX_STRING_BYTES, 256 << 10) != 0 ||
        tread_config(p, TREAD_OPT_MAX_DEPTH, 64) != 0 ||
        tread_config(p, TREAD_OPT_MAX_INTERNED_BYTES, 16 << 20) != 0 ||
        tread_config(p, TREAD_OPT_MAX_DECOMPRESSED_BYTES, 16 << 20) != 0)
        fuzz_fail("tread_config rejects an option");
}

/* Whether the input had an event of unknown kind with a phase, which the
 * converters keep (and the read-back rightly warns about again). */
static int input_unknown;

static int on_event(void *user, const tread_event *ev)
{
    if (ev->kind == TREAD_EVENT_UNKNOWN && ev->phase > ' ' && ev->phase < 127)
        input_unknown = 1;
    return convert_sink_event(user, ev) != 0;
}

/* Converts the trace into path (whole) or prefix-NNNNN pieces. Returns
 * the pieces written (1 for whole), or 0 when the sink failed (out of
 * memory or a limit: a clean refusal, nothing to check). */
static unsigned convert(const uint8_t *data, size_t size, convert_to to, const char *path,
                        const char *prefix, uint64_t max_bytes)
{
    convert_sink s;
    if (convert_sink_open(&s, to, path, prefix, max_bytes, CONVERT_PF_MAX_INTERNED_DEFAULT) != 0)
        fuzz_fail("convert_sink_open fails on a scratch file");
    tread_parser *p = tread_parser_create(NULL);
    if (!p)
        abort();
    configure_input(p);
    const tread_callbacks cb = {.event = on_event};
    tread_set_callbacks(p, &cb, &s);
    tread_status st = tread_feed(p, data, size);
    if (st == TREAD_STATUS_OK)
        st = tread_finish(p);
    if (st == TREAD_STATUS_PAUSED && !s.failed)
        fuzz_fail("the parse paused without the sink asking to stop");
    tread_parser_free(p);
    int close_rc = convert_sink_close(&s);
    unsigned pieces = s.prefix ? s.piece_no : 1;
    int failed = s.failed || close_rc != 0;
    convert_sink_free(&s);
    return failed ? 0 : pieces;
}

typedef struct reread {
    uint64_t events;     /* not metadata */
} reread;

static int count_event(void *user, const tread_event *ev)
{
    reread *r = user;
    if (ev->kind != TREAD_EVENT_METADATA)
        r->events++;
    return 0;
}

static int any_warning(void *user, const tread_warning *w)
{
    (void)user;
    if (w->kind == TREAD_WARN_UNKNOWN_PHASE && input_unknown)
        return 0;
    fprintf(stderr, "fuzz_convert: warning %s at byte %llu: %s\n", tread_warning_name(w->kind),
            (unsigned long long)w->offset, w->message);
    fuzz_fail("an output of the converter reads back with a warning");
}

/* Reads one output back; fails the run unless it is clean. */
static void check_output(const char *path, convert_to to, reread *r)
{
    tread_parser *p = tread_parser_create(NULL);
    if (!p)
        abort();
    if (tread_config(p, TREAD_OPT_FORMAT,
                     to == CONVERT_TO_JSON ? TREAD_FORMAT_JSON : TREAD_FORMAT_PERFETTO) != 0 ||
        tread_config(p, TREAD_OPT_LENIENT, 0) != 0)
        fuzz_fail("tread_config rejects a read-back option");
    const tread_callbacks cb = {.event = count_event, .warning = any_warning};
    tread_set_callbacks(p, &cb, r);
    tread_status st = tread_parse_path(p, path);
    if (st != TREAD_STATUS_OK) {
        fprintf(stderr, "fuzz_convert: %s: %s at byte %llu: %s\n", path,
                tread_error_name(tread_get_error(p)),
                (unsigned long long)tread_get_error_offset(p), tread_get_error_message(p));
        fuzz_fail("an output of the converter does not read back");
    }
    tread_parser_free(p);
}

__attribute__((visibility("default")))
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    convert_to to = (data[0] & 1) ? CONVERT_TO_PERFETTO : CONVERT_TO_JSON;
    uint64_t max_bytes = 256 + (uint64_t)(data[0] >> 1) * 64; /* 256..8384 */
    data++;
    size--;
    const char *ext = to == CONVERT_TO_JSON ? "json" : "pftrace";
    input_unknown = 0;

    char whole[128], prefix[96], piece[128];
    snprintf(whole, sizeof whole, "%s/whole.%s", dir, ext);
    snprintf(prefix, sizeof prefix, "%s/piece", dir);

    unsigned n_whole = convert(data, size, to, whole, NULL, 0);
    unsigned n_pieces = convert(data, size, to, NULL, prefix, max_bytes);
    if (n_whole && n_pieces) {
        reread w = {0}, s = {0};
        check_output(whole, to, &w);
        for (unsigned i = 0; i < n_pieces; i++) {
            snprintf(piece, sizeof piece, "%s-%05u.%s", prefix, i, ext);
            check_output(piece, to, &s);
        }
        if (w.events != s.events) {
            fprintf(stderr, "fuzz_convert: %llu events whole, %llu in %u pieces\n",
                    (unsigned long long)w.events, (unsigned long long)s.events, n_pieces);
            fuzz_fail("the pieces do not hold the events of the whole conversion");
        }
    }
    unlink(whole);
    for (unsigned i = 0;; i++) {
        snprintf(piece, sizeof piece, "%s-%05u.%s", prefix, i, ext);
        if (unlink(piece) != 0)
            break;
    }
    return 0;
}
