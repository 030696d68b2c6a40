/* One JSON record (an event object, a sample, a frame, a top-level
 * member) as it is assembled: its members as an args token stream, plus
 * where the value of each field tread knows about starts. */
#ifndef TREAD_JSON_RECORD_H
#define TREAD_JSON_RECORD_H

#include <tread/json.h>
#include "core/buf.h"

enum json_field {
    JF_NAME, JF_CAT, JF_PH, JF_TS, JF_TTS, JF_PID, JF_TID, JF_DUR, JF_TDUR,
    JF_ARGS, JF_CNAME, JF_ID, JF_ID2, JF_SCOPE, JF_BP, JF_BIND_ID,
    JF_FLOW_IN, JF_FLOW_OUT, JF_S, JF_SF, JF_STACK, JF_ESF, JF_ESTACK,
    JF_TIDELTA, JF_TICOUNT, JF_USE_ASYNC_TTS, JF_CPU, JF_WEIGHT, JF_PARENT,
    JF_CATEGORY,
    JF_COUNT
};

typedef struct json_record {
    tread_buf tok;              /* members, as args tokens */
    size_t field[JF_COUNT];     /* 1 + offset of each field's value token;
                                   0 when absent (the last duplicate wins) */
    int cur_field;              /* field whose value comes next, or -1 */
    tread_json_section section;
    uint64_t offset;            /* input offset of the record */
    tread_buf key;              /* frame id / top-level key (NUL-ended) */
} json_record;

/* Which field a key names, or -1. */
int json_field_lookup(const unsigned char *s, size_t n);

void json_record_reset(json_record *r, tread_json_section section, uint64_t offset);

#endif
