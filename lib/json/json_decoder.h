/*
 * The Chrome JSON decoder: yajl drives a small state machine that knows
 * where in the trace file each value stands (traceEvents[], samples[],
 * stackFrames{}, systemTraceEvents, other top-level keys), captures one
 * record at a time and hands it to json_emit.
 *
 * Memory: the yajl handle, the container stack (bounded by
 * TREAD_OPT_MAX_DEPTH), the record being assembled (bounded by
 * TREAD_OPT_MAX_EVENT_BYTES) and the V8 profile table (bounded by
 * TREAD_OPT_MAX_PROFILE_NODES). Nothing else grows with the trace.
 *
 * The same decoder reads a .cpuprofile (TREAD_FORMAT_CPUPROFILE): its
 * nodes[] elements are records, its samples[] and timeDeltas[] values are
 * paired as they stream (json_profile.c), other keys are top-level
 * records.
 */
#ifndef TREAD_JSON_DECODER_H
#define TREAD_JSON_DECODER_H

/* Bytes after the last good token looked at for a syntax error. */
#define JSON_AFTER_GOOD_MAX 256

#include <yajl/yajl_parse.h>
#include "core/parser.h"
#include "json/json_filter.h"
#include "json/json_record.h"
#include "json/json_profile.h"
#include "json/json_scan.h"
#include "systrace/sys_sub.h"

/* What the values directly inside a container are. */
enum json_role {
    ROLE_NONE = 0,
    ROLE_TOP,           /* the top-level object: trace-level keys */
    ROLE_EVENTS,        /* traceEvents[] or the top-level array */
    ROLE_SAMPLES,       /* samples[] */
    ROLE_FRAMES,        /* stackFrames{} */
    ROLE_SYS_DICT,      /* systemTraceEvents{} (Fuchsia) */
    ROLE_SYS_EVENTS,    /* systemTraceEvents.events[] */
    ROLE_NODES,         /* .cpuprofile: nodes[] */
    ROLE_PSAMPLES,      /* .cpuprofile: samples[] */
    ROLE_PDELTAS        /* .cpuprofile: timeDeltas[] */
};

enum json_capture { CAP_NONE = 0, CAP_RECORD, CAP_TOP, CAP_SKIP };

/* The first window of bytes the filter and yajl get after the fast path
 * gave up: about a few records. */
#define JSON_SLOW_WINDOW 4096

/* A takeover by the fast path that reads fewer records than this before
 * handing back is a miss: yajl must be rebuilt after it, which costs about
 * as much as reading a few records. After two misses in a row, the fast
 * path waits 2, 4, ... up to JSON_FAST_MAX_SKIP record boundaries before
 * trying again, so a trace whose records are all escaped or commented
 * runs at yajl's speed. */
#define JSON_FAST_MIN_RECORDS 8
#define JSON_FAST_MAX_SKIP 1024

typedef struct json_decoder {
    tread_parser *p;
    yajl_handle yh;
    yajl_callbacks ycb;
    yajl_alloc_funcs yaf;
    json_filter filter;

    unsigned char *stack;   /* 'm' or 'a' per open container */
    unsigned char *role;    /* enum json_role per open container */
    int depth;
    int max_depth;
    int doc_started;
    int doc_done;
    int finished;           /* jd_finish completed */
    int trailing_reported;

    int cap;                /* enum json_capture */
    int cap_depth;          /* depth of the capture's root container */
    json_record rec;
    tread_buf top_key;      /* last key of the top-level object */
    tread_buf sub_key;      /* last key of stackFrames / systemTraceEvents */
    tread_buf series;       /* dotted counter series names */
    uint64_t key_end_off;   /* where the last top-level/sub key ended */

    /* where yajl is reading: input offset of the current slice */
    uint64_t slice_off;
    size_t slice_len;
    const unsigned char *slice_data; /* its bytes (a top-level string's start is
                                        found in them) */
    uint64_t str_start;       /* input offset of the top-level string being
                                 reported; 0 when unknown */
    uint64_t prev_slice_end;  /* input end of the slice before this one */
    uint64_t value_end;       /* end of the scalar being reported */
    uint64_t special_end;     /* end of the NaN/Infinity word */
    int slice_synthetic;
    uint64_t last_good_off; /* end of the last token yajl accepted */
    int last_good_kind;     /* what that token was (JSON_GOOD_*): says
                               whether a separator after it was accepted */
    /* The first bytes after last_good_off, kept across slices so that a
     * parse error names the offending token's first byte whatever the
     * chunking (report_yajl_error). */
    unsigned char after_good[JSON_AFTER_GOOD_MAX];
    size_t after_good_len;
    uint64_t after_good_off;  /* == last_good_off when after_good is valid */

    /* a lenient NaN/Infinity standing in as "0" */
    int special;
    char special_text[24];
    size_t special_len;

    /* pause/resume */
    int replaying;          /* feeding yajl a rebuilt prefix: no callbacks */
    int yajl_dead;          /* cancelled by a pause: rebuild before use */
    int pausing;
    size_t pause_taken;
    int emit_pending;       /* a record stopped between two of its events */
    size_t emit_next;
    int done_in_slice;      /* the document ended inside this slice */
    size_t done_taken;
    int pause_user;         /* the pause is the caller's (not fast_pending's) */

    /* the fast path (json_fast.h) */
    int fast;               /* reading records without yajl */
    int fast_pending;       /* yajl stopped so that the fast path takes over */
    int fast_had_value;     /* the array has a value before this point (a
                               rebuilt yajl handle starts after it) */
    size_t slow_window;     /* most bytes the filter gets at once */
    uint64_t fast_values;   /* profile numbers it read (fast_numbers) */
    uint64_t fast_entry_reads; /* stats.fast_records + fast_values when it
                                  took over */
    int finishing;          /* in jd_finish: yajl reads what is left */
    unsigned fast_misses;   /* takeovers in a row that read few records */
    uint64_t fast_skip;     /* record boundaries to let pass before the next */

    /* a systemTraceEvents string streamed into an ftrace sub-trace */
    json_profiles prof;     /* V8 CPU profiles (json_profile.h) */
    int cpuprofile;         /* TREAD_FORMAT_CPUPROFILE: a .cpuprofile file */

    sys_sub sub;
    sys_counts sub_counts;  /* its counters, once it is finished */
    int sub_on;             /* sub is initialised */
    int sys_streamed;       /* yajl's next value is the null standing for it */
    uint64_t sys_end;       /* the offset after the streamed string's closing quote */
    uint64_t sys_null_at;   /* 1 + the offset of the null's slice (the string's
                               quote): its bytes are no input to keep; 0: none */

    /* byte ranges (TREAD_OPT_RANGE_*, doc/formats/json.md): a value that
     * begins outside any record, a container that closes outside records
     * and the end of input are the boundaries; range_mark is the next
     * offset that matters (range_begin in the prefix, then range_end) */
    uint64_t range_mark;
    int nested;             /* a sub-trace's decoder: never marks a range */
    int skip;               /* in the prefix: the scanner walks an array */
    int rebuild_comma;      /* rebuild_yajl: a comma followed the last value */
    json_scan scan;
    unsigned char *scan_stack;
    tread_buf hold;         /* the skipped element, when it began in an
                               earlier chunk: read again if marked */
    int hold_over;          /* it grew past TREAD_OPT_MAX_EVENT_BYTES */
} json_decoder;

/* Offset in the input of what yajl has read so far. */
/* The last token yajl accepted: a value (a scalar, a closed container, a
 * record the fast path took), a key, an opening bracket, the comma before
 * a range's footing, or none yet. */
enum { JSON_GOOD_NONE = 0, JSON_GOOD_VALUE, JSON_GOOD_KEY, JSON_GOOD_OPEN, JSON_GOOD_COMMA };

static inline uint64_t json_cur_off(const json_decoder *d)
{
    /* Synthetic text stands byte for byte for what it replaces (a literal
     * split across chunks, a held comma), except "0" for NaN/Infinity. */
    return d->slice_off + yajl_get_bytes_consumed(d->yh);
}

/* Before the byte range's BEGIN, muted (never for a nested decoder). */
static inline int json_in_prefix(const json_decoder *d)
{
    return !d->nested && d->p->in_prefix;
}

/* A boundary at input offset off reached the range's mark: the range
 * begins there, or has ended (returns 1). */
int json_range_cross(json_decoder *d, uint64_t off);
static inline int json_range_mark(json_decoder *d, uint64_t off)
{
    return off >= d->range_mark && json_range_cross(d, off);
}

/* Maps the captured record to events and emits them, starting with the
 * event numbered first. Returns 0 when the record is done, 1 when a
 * callback asked to stop before its last event (resume with emit_next). */
int json_emit_record(json_decoder *d, size_t first);

#endif
