/* Recognising compression and trace formats from their first bytes. */
#ifndef TREAD_CORE_SNIFF_H
#define TREAD_CORE_SNIFF_H

#include <stddef.h>
#include <tread.h>

/* Bytes the format sniffer may hold back before it decides. */
#define TREAD_SNIFF_MAX 4096

/* Compression from the first bytes. Sets *need_more (and returns NONE)
 * when n is too short to tell and final is 0. */
tread_compression tread_sniff_compression(const unsigned char *d, size_t n,
                                          int final, int *need_more);

/* Trace format from the first decompressed bytes; TREAD_FORMAT_UNKNOWN
 * with *need_more set when undecided, or plainly when nothing fits. */
tread_format tread_sniff_format(const unsigned char *d, size_t n, int final,
                                int *need_more);

#endif
