/* One JSON record (an event object, a sample, a frame, a top-level
 * member) as it is assembled: its members as an args token stream, plus
 * where the value of each field tread knows about starts. */
#ifndef TREAD_JSON_RECORD_H
#define TREAD_JSON_RECORD_H

#include <tread/json.h>
#include <stdint.h>
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
    /* What the fast path (json_fast.c) learnt while it wrote the tokens,
     * so that emitting need not read them again. Each holds for field f
     * only while its bit is set and its *_at[f] equals field[f] (a later
     * duplicate moves field[f]); json_record_reset clears the bits. */
    uint32_t num_ok;            /* JF_TS..JF_TDUR: a number of the usual shape */
    size_t num_at[JF_COUNT];
    int64_t num[JF_COUNT];      /* its digits as an integer, sign included */
    unsigned char num_frac[JF_COUNT]; /* how many were after the point (0-3) */
    uint32_t cend_ok;           /* a container: where its tokens end */
    size_t cend_at[JF_COUNT];
    size_t cend[JF_COUNT];      /* offset just past its END token */
    tread_json_section section;
    uint64_t offset;            /* input offset of the record */
    tread_buf key;              /* frame id / top-level key (NUL-ended) */
} json_record;

/* Which field a key names, or -1. */
int json_field_lookup(const unsigned char *s, size_t n);

void json_record_reset(json_record *r, tread_json_section section, uint64_t offset);

#endif
