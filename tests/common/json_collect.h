/* Collecting what a JSON parse delivers, for the JSON unit tests: every
 * event, warning and raw record copied into C (strings live only until a
 * callback returns), PARSE/PARSE_OPTS to parse a test input, and the
 * "all chunkings agree" check every input goes through. */
#ifndef TREAD_JSON_COLLECT_H
#define TREAD_JSON_COLLECT_H

#include <stdint.h>
#include <string.h>
#include <tread.h>
#include <tread/json.h>
#include "event_dump.h"
#include "testlib.h"

#define MAX_ITEMS 64
#define STR_CAP 256
#define ARGS_CAP 8192

typedef struct cstr {
    int present;
    size_t len;
    char s[STR_CAP];
} cstr;

typedef struct cargs {
    int present;
    size_t len;
    unsigned char data[ARGS_CAP];
} cargs;

typedef struct cevent {
    size_t seq;
    tread_event_kind kind;
    tread_format format;
    uint32_t flags;
    int phase;
    int64_t ts, dur, tts, tdur, pid, tid, cpu, tidelta, ticount, meta_num;
    uint64_t id_num, offset;
    tread_scope scope;
    tread_meta meta;
    double value;
    cstr pid_str, tid_str, name, cat, id, id_scope, bind_id, cname, sf, esf, parent;
    cstr series, value_text, meta_str;
    cargs args, stack, estack;
    int has_raw;
    tread_json_section raw_section;
    uint64_t raw_offset, raw_length;
} cevent;

typedef struct cwarn {
    size_t seq;
    tread_warning_kind kind;
    uint64_t offset;
    char msg[256];
} cwarn;

typedef struct craw {
    size_t seq;
    tread_json_section section;
    uint64_t offset, length;
    cstr key;
    cargs fields;
} craw;

typedef struct coll {
    cevent ev[MAX_ITEMS];
    size_t nev;
    cwarn warn[MAX_ITEMS];
    size_t nwarn;
    craw raw[MAX_ITEMS];
    size_t nraw;
    size_t seq;
    int overflow;      /* something did not fit: the test is wrong */
    int bad_nul;       /* a delivered string lacked its NUL terminator */
    int want_nul;      /* the event being copied promises NULs (JSON) */
    tread_status status;
    tread_error error;
    uint64_t error_offset;
    tread_stats stats;
    /* tread_get_format_counters after the parse (names copied) */
    struct {
        char name[64];
        uint64_t value;
    } counters[160];
    size_t ncounters;
} coll;

extern coll C;
extern const tread_callbacks collect_callbacks;

void copy_str(cstr *d, tread_str s);
void copy_args(cargs *d, tread_args a);
tread_args args_of(const cargs *a);
int on_event_collect(void *user, const tread_event *ev);
int on_warning_collect(void *user, const tread_warning *w);
int on_raw_collect(void *user, const tread_json_raw *raw);
void all_chunkings_agree(const void *buf, size_t len, const int64_t *opts, int line);
void every_chunk_size_agrees(const void *buf, size_t len, const int64_t *opts, int line);
void parse_at(const void *buf, size_t len, const int64_t *opts, int line);
size_t count_warnings(tread_warning_kind k);
const cwarn *find_warning(tread_warning_kind k);
int has_warning_at(tread_warning_kind k, uint64_t off);
uint64_t offset_of(const char *s, const char *needle, int nth);
int str_is(const cstr *s, const char *want);
/* The format counter of that name after the last PARSE; UINT64_MAX when
 * there is none. */
uint64_t counter_of(const char *name);

#define PARSE(s) parse_at((s), strlen(s), NULL, __LINE__)
#define PARSE_OPTS(s, opts) parse_at((s), strlen(s), (opts), __LINE__)

#define CHECK_STR(cs, want)                                                    \
    do {                                                                       \
        test_checks++;                                                         \
        if (!str_is(&(cs), (want))) {                                          \
            test_failures++;                                                   \
            fprintf(stderr, "%s:%d: %s == %s\"%.*s\", expected \"%s\"\n",      \
                    __FILE__, __LINE__, #cs, (cs).present ? "" : "(absent) ",  \
                    (int)(cs).len, (cs).s, (want));                            \
        }                                                                      \
    } while (0)
#define CHECK_ABSENT(cs) CHECK(!(cs).present)

#endif
