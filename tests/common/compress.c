/* compress: see compress.h. */
#include "compress.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

size_t test_gzip(const void *in, size_t n, unsigned char *out, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        abort();
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END)
        abort();
    size_t len = cap - z.avail_out;
    deflateEnd(&z);
    return len;
}

size_t test_zstd(const void *in, size_t n, unsigned char *out, size_t cap)
{
    size_t r = ZSTD_compress(out, cap, in, n, 3);
    if (ZSTD_isError(r))
        abort();
    return r;
}
