/*
 * libFuzzer harness for the FXT decoder alone: the format is forced and
 * whole-file decompression is off, so every input goes straight to the
 * record framing, the per-provider tables, the record-to-event mapping and
 * large-record streaming. The driver (harness.c) walks every event's args
 * with tread_args_next, tread_args_skip and tread_args_find, which runs the
 * lazy FXT args codec (lib/fxt/fxt_args.c) on the record's words, and
 * hashes every blob piece. Each input is parsed whole (the reference) and
 * in random chunks with pauses; both must agree, and limits small enough
 * for a few KiB of input to reach them are drawn half the time. Then it is
 * read again as two byte ranges cut at a random offset, which must add up
 * to the whole.
 */
#include <stdint.h>
#include <stdlib.h>

#include <tread.h>

#include "harness.h"

typedef struct fxt_fuzz_options {
    int64_t max_event_bytes;
    int64_t max_interned_bytes;
    int64_t max_string_bytes;   /* 0: the default */
    int64_t max_warnings;       /* -1: the default */
} fxt_fuzz_options;

static void draw_options(fxt_fuzz_options *o, fuzz_rng *r)
{
    o->max_event_bytes = fuzz_rng_below(r, 2) ? (int64_t)1 << 20
                                              : 64 + (int64_t)fuzz_rng_below(r, 40000);
    o->max_interned_bytes = fuzz_rng_below(r, 4) == 0 ? 4096 + (int64_t)fuzz_rng_below(r, 8192)
                                                      : (int64_t)16 << 20;
    o->max_string_bytes = fuzz_rng_below(r, 4) == 0 ? 16 + (int64_t)fuzz_rng_below(r, 256) : 0;
    o->max_warnings = fuzz_rng_below(r, 4) == 0 ? (int64_t)fuzz_rng_below(r, 4) : -1;
}

static tread_parser *new_parser(const fxt_fuzz_options *o)
{
    tread_parser *p = tread_parser_create(NULL);
    if (!p)
        abort();
    if (tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_FXT) != 0 ||
        tread_config(p, TREAD_OPT_DECOMPRESS, 0) != 0 ||
        tread_config(p, TREAD_OPT_MAX_EVENT_BYTES, o->max_event_bytes) != 0 ||
        tread_config(p, TREAD_OPT_MAX_INTERNED_BYTES, o->max_interned_bytes) != 0)
        fuzz_fail("tread_config rejects an FXT option");
    if (o->max_string_bytes)
        tread_config(p, TREAD_OPT_MAX_STRING_BYTES, o->max_string_bytes);
    if (o->max_warnings >= 0)
        tread_config(p, TREAD_OPT_MAX_WARNINGS_REPORTED, o->max_warnings);
    return p;
}

__attribute__((visibility("default")))
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_rng r;
    fxt_fuzz_options o;
    fuzz_rng_init(&r, data, size);
    draw_options(&o, &r);

    fuzz_outcome out[2];
    for (int i = 0; i < 2; i++) {
        fuzz_plan plan = {i, SIZE_MAX, 0, TREAD_FORMAT_FXT, 0};
        tread_parser *p = new_parser(&o);
        fuzz_run(p, &plan, data, size, &out[i]);
        tread_parser_free(p);
    }
    fuzz_compare(&out[0], &out[1]);
    fuzz_compare_errors(&out[0], &out[1]);
    fuzz_compare_counts(&out[0], &out[1]);

    /* Byte ranges: [0, cut) and [cut, end), chunked and paused, report
     * between them what the whole does (the digest of the second goes on
     * from the first's); an error is the second's too, wherever it is. */
    uint64_t cut = fuzz_rng_below(&r, (uint64_t)size + 9);
    fuzz_outcome part[2];
    for (int i = 0; i < 2; i++) {
        fuzz_plan plan = {1, SIZE_MAX, 0, TREAD_FORMAT_FXT, i ? part[0].digest : 0};
        tread_parser *p = new_parser(&o);
        if (tread_config(p, i ? TREAD_OPT_RANGE_BEGIN : TREAD_OPT_RANGE_END, (int64_t)cut) != 0)
            fuzz_fail("tread_config rejects a byte range");
        fuzz_run(p, &plan, data, size, &part[i]);
        tread_parser_free(p);
    }
    if (out[0].status == TREAD_STATUS_ERROR) {
        if (part[1].status != TREAD_STATUS_ERROR)
            fuzz_fail("byte ranges: the error is not the last range's too");
        fuzz_compare_errors(&out[0], &part[1]);
        return 0;
    }
    if (part[0].status != TREAD_STATUS_OK || part[1].status != TREAD_STATUS_OK)
        fuzz_fail("byte ranges: an error the whole does not have");
    if (part[0].events + part[1].events != out[0].events ||
        part[0].records + part[1].records != out[0].records ||
        (o.max_warnings < 0 && (part[0].warnings + part[1].warnings != out[0].warnings ||
                                part[1].digest != out[0].digest)))
        fuzz_fail("byte ranges: the two ranges do not add up to the whole");
    return 0;
}
