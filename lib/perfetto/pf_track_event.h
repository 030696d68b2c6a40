/* TrackEvent (pf_track_event.c), the general reader's handler. */
#ifndef TREAD_PERFETTO_PF_TRACK_EVENT_H
#define TREAD_PERFETTO_PF_TRACK_EVENT_H

#include "perfetto/pf_context.h"
#include "perfetto/pf_seq.h"

/* The events of one TrackEvent. base has the packet's
 * common fields (offset, seq, ts). -1 after tread__fail. */
int pf_track_event(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len,
                   const pf_base *base);

#endif
