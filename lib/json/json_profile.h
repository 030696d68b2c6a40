/*
 * V8 CPU profiles: the Profile / ProfileChunk (ph P) and CpuProfile events
 * of Chrome traces and the standalone .cpuprofile file
 * (TREAD_FORMAT_CPUPROFILE), expanded as trace_processor does into one
 * STACK_FRAME event per profile node (the first time it is seen) and one
 * SAMPLE event per sample, with its absolute time (startTime plus the
 * deltas so far, per profile across chunks) and its leaf node as its
 * stack frame.
 *
 * Memory: per profile its running time, per node whether it was seen and
 * its parent (a children list names the parent before the child comes),
 * in one open-addressing table bounded by TREAD_OPT_MAX_PROFILE_NODES
 * entries; past it, a counted TREAD_WARN_LIMIT (doc/formats/json.md 8).
 */
#ifndef TREAD_JSON_PROFILE_H
#define TREAD_JSON_PROFILE_H

#include <stdint.h>
#include <tread.h>
#include "core/alloc.h"
#include "core/buf.h"

struct json_decoder;
struct tread_parser;

/* One table slot: a profile or a node. 32 bytes. */
typedef struct jp_entry {
    uint64_t a, b;    /* profile: pid, id key; node: profile number, node id */
    int64_t v;        /* profile: running time (ns); node: parent node id */
    uint32_t x;       /* profile: its number (1, 2, ...) */
    uint8_t type;     /* JP_FREE, JP_PROFILE, JP_NODE */
    uint8_t flags;    /* JP_F_* */
    uint8_t kind;     /* profile: how its id was written (JP_ID_*) */
    uint8_t pad;
} jp_entry;

/* Where a stopped record's expansion goes on (offsets in rec.tok). */
typedef struct jp_cursor {
    int stage;            /* 0 the record's own event, 1 nodes, 2 samples, 3 done */
    uint32_t prof;        /* the profile's number; 0: none (not held) */
    uint64_t pa, pb;      /* its key in the table */
    size_t nodes;         /* next element of nodes[] (0: none left) */
    size_t s, t, l, c;    /* next element of samples, timeDeltas, lines,
                             columns (0: absent or done) */
    int has_ts;           /* the profile has a start time */
    int warned_full;      /* TREAD_WARN_LIMIT given for this record */
    int warned_unknown;   /* a sample of an undefined node, said once */
} jp_cursor;

typedef struct json_profiles {
    const tread_alloc *alloc;
    jp_entry *slots;
    size_t cap;           /* power of two, or 0 */
    size_t used;
    size_t max;           /* TREAD_OPT_MAX_PROFILE_NODES */
    uint32_t nprof;       /* profiles made so far */
    uint64_t cpu_seq;     /* CpuProfile events so far */
    jp_cursor cur;
    tread_buf fid;        /* a frame id being formatted */
    int fid_cached;       /* fid holds the prefix of fid_prefix bytes and */
    int64_t fid_node;     /* fid_node's id, NUL-ended, up to fid_end: */
    size_t fid_prefix, fid_end; /* consecutive samples of one node reuse it */
    int seen_cached;      /* node seen_node of profile seen_prof was found */
    int64_t seen_node;    /* defined (JP_F_SEEN, which is never cleared) */
    uint64_t seen_prof;
    tread_buf parent;     /* its parent's */
    size_t prefix_len;    /* "<pid>:<id>:" at the start of both */
    tread_buf sargs;      /* a sample's args (line, column) */
    struct tread_event sev; /* the sample being delivered (sample_template) */
    int file_sev;         /* sev is a .cpuprofile's */

    /* a .cpuprofile's samples[] and timeDeltas[], paired as they stream:
     * the values of whichever array is ahead wait here, 4 bytes each
     * while every one fits in 32 bits (pend_w 4: node ids, deltas under
     * 2.1 s; INT32_MIN stands for a sample without a node), else 8 */
    unsigned char *pend;
    size_t pend_head, pend_len, pend_cap, pend_w;
    uint64_t n_samples, n_deltas;
    jp_entry file;        /* the file's profile: its running time */
    int warned_late_start;
    int warned_unknown;
    /* a Profile's startTime (ns) to the trace's time: 0, or -1 when it
     * cannot be (the profile then has no start); NULL: as written */
    int (*map_start)(void *ctx, int64_t ns, int64_t *out);
    void *map_ctx;
} json_profiles;

void json_profiles_init(json_profiles *t, struct tread_parser *p);
void json_profiles_free(json_profiles *t);

/* Values of enum tread_json_section / record kinds the expansion knows. */
enum { JP_REC_PROFILE = 1, JP_REC_CHUNK, JP_REC_CPUPROFILE };

/* Which profile record the captured trace event is (its name and phase),
 * or 0. */
int json_profile_kind(const unsigned char *name, size_t name_len, int phase,
                      const struct json_decoder *d);

/* What an expansion reads and where it reports: the parser, the profile
 * table, and the record's members as args tokens with 1 + the offset of
 * its args dict (0: none). The JSON decoder's is its record; the Perfetto
 * decoder's, a legacy TrackEvent's "data" annotation (pf_v8.c). */
typedef struct jp_host {
    struct tread_parser *p;
    json_profiles *t;
    const tread_buf *tok;
    size_t args1;
} jp_host;

/* A trace event record of kind JP_REC_* (tmpl: its event as mapped so
 * far): its profile's events. resume: go on where a stop left it.
 * Returns 1 when a callback asked to stop before the last event. */
int json_profile_expand(const jp_host *h, struct tread_event *tmpl, int kind, int resume);
/* The same for the JSON decoder's record (which it resumes at emit_next). */
int json_profile_emit(struct json_decoder *d, struct tread_event *tmpl, int kind, int resume);
/* The JSON decoder's host: its parser, table and record. */
jp_host json_profile_host(struct json_decoder *d);

/* .cpuprofile: one element of nodes[] (the record captured): its stack
 * frame, the first time. */
int json_profile_file_node(struct json_decoder *d, struct tread_event *tmpl);
/* .cpuprofile: a startTime member (microseconds, as text). */
void json_profile_file_start(struct json_decoder *d, const char *s, size_t n, unsigned type,
                             uint64_t off);
/* .cpuprofile: one element of samples[] (which 0) or timeDeltas[] (1),
 * as its token; off is its input offset. Returns 1 when a callback asked
 * to stop, 0 otherwise (-1: an error is recorded). */
int json_profile_file_value(struct json_decoder *d, int which, unsigned type,
                            const char *s, size_t n, uint64_t off);
/* The same for a value already read as a number: the node id (which 0)
 * or the delta in nanoseconds (1); INT64_MIN for a sample that has none,
 * after its warning. */
int json_profile_file_num(struct json_decoder *d, int which, int64_t v, uint64_t off);
/* .cpuprofile: the document ended; samples without deltas are said. */
void json_profile_file_end(struct json_decoder *d, uint64_t off);

#endif
