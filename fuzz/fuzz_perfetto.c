/*
 * libFuzzer harness for the Perfetto decoder alone: the format is forced and
 * whole-file decompression is off, so every input goes straight to the
 * TracePacket framing, sequences, interning, clocks and TrackEvent mapping
 * (compressed_packets inside the trace are still expanded, under a budget).
 * The driver (harness.c) walks every event's args with tread_args_next,
 * tread_args_skip and tread_args_find, which runs the lazy args codec
 * (lib/perfetto/pf_args.c) on what the decoder kept. Each input is parsed
 * whole by the general reader alone (TREAD_OPT_PERFETTO_FAST_PATH 0) with
 * compressed packets expanded inline (TREAD_OPT_DECOMPRESS_THREAD 0): the
 * reference; whole with the fast reader, and in random chunks with pauses
 * (fast reader on or off), both expanding on the decompression thread;
 * all runs must agree, errors included. When tread has isa-l, the
 * reference is run again inflating with zlib (TREAD_OPT_INFLATE 0), the
 * oracle (fuzz_compare_engines).
 */
#include <stdint.h>
#include <stdlib.h>

#include <tread.h>

#include "harness.h"

/* Memory bounds: a few KiB of input must not make tread hold more. */
#define PF_FUZZ_MAX_DECOMPRESSED ((int64_t)16 << 20)
#define PF_FUZZ_DECODED_BUDGET ((uint64_t)32 << 20)

/* Options drawn once per input, applied to both runs. */
typedef struct pf_fuzz_options {
    int64_t max_event_bytes;
    int64_t max_interned_bytes; /* 0: the default */
    int64_t max_string_bytes;   /* 0: the default */
    int strict;
    int64_t max_warnings;       /* -1: the default */
    int stressed_fast;          /* the chunked run with the fast reader */
} pf_fuzz_options;

static void draw_options(pf_fuzz_options *o, fuzz_rng *r)
{
    /* Often the defaults, else the smallest limits tread_config accepts and
     * a few KiB of input reach. */
    o->max_event_bytes = fuzz_rng_below(r, 2) ? (int64_t)1 << 20
                                              : 64 + (int64_t)fuzz_rng_below(r, 4096);
    o->max_interned_bytes = fuzz_rng_below(r, 4) == 0 ? 4096 + (int64_t)fuzz_rng_below(r, 8192)
                                                      : (int64_t)16 << 20;
    o->max_string_bytes = fuzz_rng_below(r, 4) == 0 ? 16 + (int64_t)fuzz_rng_below(r, 1024) : 0;
    o->strict = fuzz_rng_below(r, 4) == 0;
    o->max_warnings = fuzz_rng_below(r, 4) == 0 ? (int64_t)fuzz_rng_below(r, 4) : -1;
    o->stressed_fast = fuzz_rng_below(r, 4) != 0;
}

static tread_parser *new_parser(const pf_fuzz_options *o, int fast, int thread)
{
    tread_parser *p = tread_parser_create(NULL);
    if (!p)
        abort();
    if (tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_PERFETTO) != 0 ||
        tread_config(p, TREAD_OPT_DECOMPRESS, 0) != 0 ||
        tread_config(p, TREAD_OPT_MAX_EVENT_BYTES, o->max_event_bytes) != 0 ||
        tread_config(p, TREAD_OPT_MAX_DECOMPRESSED_BYTES, PF_FUZZ_MAX_DECOMPRESSED) != 0 ||
        tread_config(p, TREAD_OPT_MAX_INTERNED_BYTES, o->max_interned_bytes) != 0)
        fuzz_fail("tread_config rejects a Perfetto option");
    if (o->max_string_bytes)
        tread_config(p, TREAD_OPT_MAX_STRING_BYTES, o->max_string_bytes);
    if (o->strict)
        tread_config(p, TREAD_OPT_LENIENT, 0);
    if (o->max_warnings >= 0)
        tread_config(p, TREAD_OPT_MAX_WARNINGS_REPORTED, o->max_warnings);
    if (tread_config(p, TREAD_OPT_PERFETTO_FAST_PATH, fast) != 0)
        fuzz_fail("tread_config rejects PERFETTO_FAST_PATH");
    if (tread_config(p, TREAD_OPT_DECOMPRESS_THREAD, thread) != 0)
        fuzz_fail("tread_config rejects DECOMPRESS_THREAD");
    return p;
}

__attribute__((visibility("default")))
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_rng r;
    pf_fuzz_options o;
    fuzz_rng_init(&r, data, size);
    draw_options(&o, &r);

    /* the general reader whole, the fast reader whole, the stressed run */
    static const int stressed[3] = {0, 0, 1};
    int fast[3] = {0, 1, o.stressed_fast};
    fuzz_outcome out[3];
    for (int i = 0; i < 3; i++) {
        fuzz_plan plan = {stressed[i], SIZE_MAX, PF_FUZZ_DECODED_BUDGET, TREAD_FORMAT_PERFETTO,
                          0};
        tread_parser *p = new_parser(&o, fast[i], i > 0);
        fuzz_run(p, &plan, data, size, &out[i]);
        tread_parser_free(p);
    }
    fuzz_compare(&out[0], &out[1]);
    fuzz_compare_errors(&out[0], &out[1]);
    fuzz_compare(&out[0], &out[2]);
    /* the same reader whole and stressed: the same statistics and counters */
    fuzz_compare_counts(&out[o.stressed_fast ? 1 : 0], &out[2]);
    if (fuzz_have_isal()) {
        /* the reference again with the other inflate engine */
        fuzz_plan plan = {0, SIZE_MAX, PF_FUZZ_DECODED_BUDGET, TREAD_FORMAT_PERFETTO, 0};
        tread_parser *p = new_parser(&o, 0, 0);
        if (tread_config(p, TREAD_OPT_INFLATE, 0) != 0)
            fuzz_fail("tread_config rejects INFLATE 0");
        fuzz_outcome z;
        fuzz_run(p, &plan, data, size, &z);
        tread_parser_free(p);
        fuzz_compare_engines(&z, &out[0]);
    }
    return 0;
}
