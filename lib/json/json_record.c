#include "json/json_record.h"

#include <string.h>

#define IS(lit) (n == sizeof(lit) - 1 && memcmp(s, lit, n) == 0)

int json_field_lookup(const unsigned char *s, size_t n)
{
    /* Dispatch on length and first byte: most keys are decided by one
     * compare, since this runs for every member of every event. */
    switch (n) {
    case 1:
        return s[0] == 's' ? JF_S : -1;
    case 2:
        if (s[0] == 'p') return s[1] == 'h' ? JF_PH : -1;
        if (s[0] == 't') return s[1] == 's' ? JF_TS : -1;
        if (s[0] == 'i') return s[1] == 'd' ? JF_ID : -1;
        if (s[0] == 'b') return s[1] == 'p' ? JF_BP : -1;
        if (s[0] == 's') return s[1] == 'f' ? JF_SF : -1;
        return -1;
    case 3:
        if (IS("pid")) return JF_PID;
        if (IS("tid")) return JF_TID;
        if (IS("cat")) return JF_CAT;
        if (IS("dur")) return JF_DUR;
        if (IS("tts")) return JF_TTS;
        if (IS("id2")) return JF_ID2;
        if (IS("esf")) return JF_ESF;
        if (IS("cpu")) return JF_CPU;
        return -1;
    case 4:
        if (IS("name")) return JF_NAME;
        if (IS("args")) return JF_ARGS;
        if (IS("tdur")) return JF_TDUR;
        return -1;
    case 5:
        if (IS("cname")) return JF_CNAME;
        if (IS("scope")) return JF_SCOPE;
        if (IS("stack")) return JF_STACK;
        return -1;
    case 6:
        if (IS("estack")) return JF_ESTACK;
        if (IS("weight")) return JF_WEIGHT;
        if (IS("parent")) return JF_PARENT;
        return -1;
    case 7:
        if (IS("bind_id")) return JF_BIND_ID;
        if (IS("flow_in")) return JF_FLOW_IN;
        if (IS("tidelta")) return JF_TIDELTA;
        if (IS("ticount")) return JF_TICOUNT;
        return -1;
    case 8:
        if (IS("flow_out")) return JF_FLOW_OUT;
        if (IS("category")) return JF_CATEGORY;
        return -1;
    case 13:
        return IS("use_async_tts") ? JF_USE_ASYNC_TTS : -1;
    default:
        return -1;
    }
}

void json_record_reset(json_record *r, tread_json_section section, uint64_t offset)
{
    r->tok.len = 0;
    memset(r->field, 0, sizeof r->field);
    r->cur_field = -1;
    r->num_ok = r->cend_ok = 0;
    r->section = section;
    r->offset = offset;
}
