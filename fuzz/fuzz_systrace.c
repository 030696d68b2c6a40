/*
 * libFuzzer harness for the systrace container decoder alone: the format
 * is forced and decompression is off, so every input goes to the HTML tag
 * reader, the </script> matcher, the block detection (text, base64,
 * linuxPerfData), base64 -> inflate and the ctrace path, and to the nested
 * decoders the sub-traces pick (lib/systrace). The pipeline harness only
 * gets here for inputs that sniff as systrace. Each input is parsed whole
 * and in random chunks with pauses; both must agree.
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
    int strict = fuzz_rng_below(&r, 4) == 0;
    fuzz_option opts[3] = {{TREAD_OPT_MAX_EVENT_BYTES, (int64_t)1 << 20},
                           {TREAD_OPT_MAX_STRING_BYTES, (int64_t)64 << 10},
                           {TREAD_OPT_LENIENT, 0}};
    fuzz_forced_pair(TREAD_FORMAT_SYSTRACE, opts, strict ? 3 : 2, data, size);
    return 0;
}
