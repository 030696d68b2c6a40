/* libFuzzer harness for split_perfetto (tools/split_perfetto.c): any input
 * read as Perfetto and split into pieces kept in memory
 * (tests/split/pieces_mem.c), at a piece size chosen from a hash of the
 * input (from smaller than one packet up to one piece), then checked by
 * split_pf_verify (tests/split/split_pf_check.h): every input packet in
 * exactly one piece, in order, byte for byte; its events from its piece
 * equal its events from the whole input, every field but the offset;
 * added packets only restate metadata; piece sizes within the limit. The
 * input fed in small chunks must give the same pieces. A failed check
 * aborts with the reason. Seeds: fuzz/seeds/split_perfetto/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "split_pf_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint64_t sizes[] = {64, 300, 1024, 4096, 1u << 20};
    fuzz_rng r;
    fuzz_rng_init(&r, data, size);
    uint64_t max = sizes[fuzz_rng_below(&r, sizeof sizes / sizeof sizes[0])];
    size_t chunk = 1 + (size_t)fuzz_rng_below(&r, 64);
    pieces_mem pm, pc;
    split_perfetto_stats st;
    char err[4096];
    if (split_pf_run(data, size, max, 0, &pm, &st, err, sizeof err)) {
        fprintf(stderr, "split_perfetto failed: %s\n", err);
        abort();
    }
    if (split_pf_verify(data, size, &pm, max, &st, err, sizeof err)) {
        fprintf(stderr, "pieces at %llu bytes: %s\n", (unsigned long long)max, err);
        abort();
    }
    if (split_pf_run(data, size, max, chunk, &pc, NULL, err, sizeof err)) {
        fprintf(stderr, "split_perfetto failed in %zu-byte chunks: %s\n", chunk, err);
        abort();
    }
    int same = pc.n == pm.n;
    for (size_t i = 0; same && i < pm.n; i++)
        same = pc.piece[i].len == pm.piece[i].len &&
               memcmp(pc.piece[i].data, pm.piece[i].data, pm.piece[i].len) == 0;
    if (!same) {
        fprintf(stderr, "other pieces in %zu-byte chunks\n", chunk);
        abort();
    }
    pieces_mem_free(&pm);
    pieces_mem_free(&pc);
    return 0;
}
