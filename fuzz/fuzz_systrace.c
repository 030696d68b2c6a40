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
    fuzz_outcome out[2];
    for (int i = 0; i < 2; i++) {
        fuzz_plan plan = {i, SIZE_MAX, 0, TREAD_FORMAT_SYSTRACE, 0};
        tread_parser *p = tread_parser_create(NULL);
        if (!p)
            abort();
        if (tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_SYSTRACE) != 0 ||
            tread_config(p, TREAD_OPT_DECOMPRESS, 0) != 0 ||
            tread_config(p, TREAD_OPT_MAX_EVENT_BYTES, (int64_t)1 << 20) != 0 ||
            tread_config(p, TREAD_OPT_MAX_STRING_BYTES, (int64_t)64 << 10) != 0)
            fuzz_fail("tread_config rejects a systrace option");
        if (strict)
            tread_config(p, TREAD_OPT_LENIENT, 0);
        fuzz_run(p, &plan, data, size, &out[i]);
        tread_parser_free(p);
    }
    fuzz_compare(&out[0], &out[1]);
    fuzz_compare_errors(&out[0], &out[1]);
    fuzz_compare_counts(&out[0], &out[1]);
    return 0;
}
