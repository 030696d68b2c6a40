/* Chrome JSON phase characters to event kinds. */
#include "core/phase.h"

tread_event_kind tread__kind_of_phase(int ph)
{
    switch (ph) {
    case 'B': return TREAD_EVENT_SLICE_BEGIN;
    case 'E': return TREAD_EVENT_SLICE_END;
    case 'X': return TREAD_EVENT_COMPLETE;
    case 'i': case 'I': case 'R': return TREAD_EVENT_INSTANT;
    case 'C': return TREAD_EVENT_COUNTER;
    case 'b': case 'S': return TREAD_EVENT_ASYNC_BEGIN;
    case 'n': case 'T': case 'p': return TREAD_EVENT_ASYNC_STEP;
    case 'e': case 'F': return TREAD_EVENT_ASYNC_END;
    case 's': return TREAD_EVENT_FLOW_BEGIN;
    case 't': return TREAD_EVENT_FLOW_STEP;
    case 'f': return TREAD_EVENT_FLOW_END;
    case 'P': return TREAD_EVENT_SAMPLE;
    case 'N': return TREAD_EVENT_OBJECT_NEW;
    case 'O': return TREAD_EVENT_OBJECT_SNAPSHOT;
    case 'D': return TREAD_EVENT_OBJECT_DELETE;
    case 'M': return TREAD_EVENT_METADATA;
    case 'V': case 'v': return TREAD_EVENT_MEMORY_DUMP;
    case 'c': return TREAD_EVENT_CLOCK_SYNC;
    case '(': return TREAD_EVENT_CONTEXT_ENTER;
    case ')': return TREAD_EVENT_CONTEXT_LEAVE;
    case '=': return TREAD_EVENT_ID_LINK;
    default: return TREAD_EVENT_UNKNOWN;
    }
}
