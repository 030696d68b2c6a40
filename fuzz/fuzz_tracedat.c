/*
 * libFuzzer harness for the trace.dat decoder alone: the format is forced
 * and decompression is off, so every input goes to the header states,
 * the format parser, the page reader and the event mapping
 * (lib/tracedat/), read as a stream (the file mode's pread is covered by
 * tests/unit/test_tracedat and the recordings), and the lazy
 * TREAD_ARGS_TRACEDAT codec, which the driver (harness.c) walks for every
 * event. Each input is parsed whole and in random chunks with pauses; both
 * must agree. Half the time the metadata limit is small enough for a few
 * KiB to reach it.
 */
#include <stdint.h>
#include <stdlib.h>

#include <tread.h>

#include "harness.h"

__attribute__((visibility("default")))
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_rng r;
    fuzz_rng_init(&r, data, size);
    int64_t max_meta = fuzz_rng_below(&r, 2) ? (int64_t)1 << 24
                                             : 4096 + (int64_t)fuzz_rng_below(&r, 8192);
    int64_t max_warnings = fuzz_rng_below(&r, 4) == 0 ? (int64_t)fuzz_rng_below(&r, 4) : -1;

    fuzz_outcome out[2];
    for (int i = 0; i < 2; i++) {
        fuzz_plan plan = {i, SIZE_MAX, 0, TREAD_FORMAT_TRACEDAT, 0};
        tread_parser *p = tread_parser_create(NULL);
        if (!p)
            abort();
        if (tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_TRACEDAT) != 0 ||
            tread_config(p, TREAD_OPT_DECOMPRESS, 0) != 0 ||
            tread_config(p, TREAD_OPT_MAX_TRACEDAT_META_BYTES, max_meta) != 0)
            fuzz_fail("tread_config rejects a tracedat option");
        if (max_warnings >= 0)
            tread_config(p, TREAD_OPT_MAX_WARNINGS_REPORTED, max_warnings);
        fuzz_run(p, &plan, data, size, &out[i]);
        tread_parser_free(p);
    }
    fuzz_compare(&out[0], &out[1]);
    fuzz_compare_errors(&out[0], &out[1]);
    fuzz_compare_counts(&out[0], &out[1]);
    return 0;
}
