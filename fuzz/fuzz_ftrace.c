/*
 * libFuzzer harness for the ftrace text decoder alone: the format is forced
 * and decompression is off, so every input goes to the line splitter, the
 * column parser (lib/ftrace/ftrace_line.c), the event mapping
 * (ftrace_map.c, atrace payloads included) and the lazy TREAD_ARGS_FTRACE
 * codec, which the driver (harness.c) walks for every event. Each input is
 * parsed whole and in random chunks with pauses; both must agree. Half the
 * time the line limit is small enough for a few hundred bytes to reach it.
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
    int64_t max_line = fuzz_rng_below(&r, 2) ? (int64_t)1 << 20
                                             : 256 + (int64_t)fuzz_rng_below(&r, 1024);
    int64_t max_warnings = fuzz_rng_below(&r, 4) == 0 ? (int64_t)fuzz_rng_below(&r, 4) : -1;

    fuzz_option opts[2] = {{TREAD_OPT_MAX_LINE_BYTES, max_line},
                           {TREAD_OPT_MAX_WARNINGS_REPORTED, max_warnings}};
    fuzz_forced_pair(TREAD_FORMAT_FTRACE, opts, max_warnings >= 0 ? 2 : 1, data, size);
    return 0;
}
