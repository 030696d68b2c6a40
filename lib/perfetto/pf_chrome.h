/* ChromeEventBundle (pf_chrome.c). */
#ifndef TREAD_PERFETTO_PF_CHROME_H
#define TREAD_PERFETTO_PF_CHROME_H

#include "perfetto/pf_context.h"

/* A ChromeEventBundle. Queues its metadata and legacy
 * events, and sets up the legacy JSON for pf_chrome_continue. */
int pf_chrome_bundle(pf_decoder *d, const unsigned char *m, size_t len, const pf_base *base);
/* Feeds queued legacy JSON to the nested JSON decoder. */
tread_status pf_chrome_continue(pf_decoder *d);
void pf_chrome_free(pf_decoder *d);

#endif
