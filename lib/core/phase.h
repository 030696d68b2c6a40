/* Chrome JSON phase characters: shared by the decoders that meet them
 * (JSON "ph", Perfetto legacy_event.phase and ChromeEventBundle). */
#ifndef TREAD_CORE_PHASE_H
#define TREAD_CORE_PHASE_H

#include <tread.h>

/* The event kind of phase ph (doc/formats/json.md, section 4);
 * TREAD_EVENT_UNKNOWN for any other character. */
tread_event_kind tread__kind_of_phase(int ph);

#endif
