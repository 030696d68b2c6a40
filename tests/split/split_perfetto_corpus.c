/* split_perfetto over trace files at three piece sizes (16 KiB, and
 * a fortieth and a quarter of the file, at least 2 KiB), each split checked by split_pf_verify
 * (the whole file read once for the three): every input
 * packet in one piece, in order, byte for byte; its events from the piece
 * equal its events from the whole file, every field but the offset; added
 * packets only restate metadata; piece sizes within --max-bytes. Also
 * split with the input fed in 509-byte chunks: the same pieces.
 * Usage: split_perfetto_corpus [-s BYTES] FILE...; prints one line per
 * split (-s: that piece size only, to replay a fuzz finding). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_dump.h"
#include "split_pf_check.h"

static int same_pieces(const pieces_mem *a, const pieces_mem *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->piece[i].len != b->piece[i].len ||
            memcmp(a->piece[i].data, b->piece[i].data, a->piece[i].len) != 0)
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    int failed = 0;
    uint64_t only = 0;
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "-s") == 0) {
        only = strtoull(argv[2], NULL, 10);
        first = 3;
    }
    for (int i = first; i < argc; i++) {
        size_t len;
        unsigned char *in = dump_read_file(argv[i], &len);
        if (!in) {
            printf("FAIL %s: cannot read\n", argv[i]);
            failed = 1;
            continue;
        }
        uint64_t sizes[3] = {16384, len / 40 > 2048 ? len / 40 : 2048,
                             len / 4 > 2048 ? len / 4 : 2048};
        if (only)
            sizes[0] = sizes[1] = sizes[2] = only;
        int ok = 1;
        char err[4096];
        split_pf_whole *whole = split_pf_whole_read(in, len); /* once for the three */
        for (int k = 0; k < 3 && ok; k++) {
            pieces_mem pm;
            split_perfetto_stats st;
            if (split_pf_run(in, len, sizes[k], 0, &pm, &st, err, sizeof err) ||
                split_pf_verify_whole(whole, in, len, &pm, sizes[k], &st, err, sizeof err)) {
                printf("FAIL %s at %llu bytes: %s\n", argv[i], (unsigned long long)sizes[k], err);
                ok = 0;
            } else if (k == 0) {
                pieces_mem pc;
                if (split_pf_run(in, len, sizes[k], 509, &pc, NULL, err, sizeof err) ||
                    !same_pieces(&pm, &pc)) {
                    printf("FAIL %s: other pieces when read in 509-byte chunks\n", argv[i]);
                    ok = 0;
                }
                pieces_mem_free(&pc);
            }
            if (ok)
                printf("ok %s %llu: %zu pieces, %llu packets, %llu added (%llu bytes), %llu "
                       "counters and %llu legacy deltas rewritten, %zu state ends before the "
                       "piece, %llu compact switches without their previous thread\n", argv[i],
                       (unsigned long long)sizes[k], pm.n, (unsigned long long)st.packets,
                       (unsigned long long)st.state_packets, (unsigned long long)st.state_bytes,
                       (unsigned long long)st.counters_rewritten,
                       (unsigned long long)st.deltas_rewritten, split_pf_state_ends,
                       (unsigned long long)st.sched_prevs_lost);
            split_pf_state_ends = 0;
            pieces_mem_free(&pm);
        }
        split_pf_whole_free(whole);
        failed |= !ok;
        free(in);
    }
    return failed;
}
