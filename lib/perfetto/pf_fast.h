/*
 * The fast reader of the common TrackEvent packets (pf_fast.c): a handler
 * beside the general reader, which pf_decoder.c tries first.
 */
#ifndef TREAD_PERFETTO_PF_FAST_H
#define TREAD_PERFETTO_PF_FAST_H

#include "perfetto/pf_context.h"

/* The fast reader (PF_FAST_* in pf_context.h). */
int pf_fast_packet(pf_decoder *d, const unsigned char *data, size_t len, uint64_t off,
                   int level);

#endif
