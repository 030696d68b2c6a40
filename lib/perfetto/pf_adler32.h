/* pf_adler32.c: zlib's adler32(), faster. */
#ifndef TREAD_PERFETTO_PF_ADLER32_H
#define TREAD_PERFETTO_PF_ADLER32_H

#include <stddef.h>
#include <stdint.h>

uint32_t pf_adler32(uint32_t adler, const unsigned char *p, size_t len);

#endif
