/* Compressed copies of test data, for the tests of compressed input. */
#ifndef TREAD_TEST_COMPRESS_H
#define TREAD_TEST_COMPRESS_H

#include <stddef.h>

/* One gzip member (zstd frame) holding in[0, n) in out[0, cap); returns
 * its length. Aborts when it does not fit. */
size_t test_gzip(const void *in, size_t n, unsigned char *out, size_t cap);
size_t test_zstd(const void *in, size_t n, unsigned char *out, size_t cap);

#endif
