/*
 * Perfetto callstacks (pf_profile.h): PerfSample (66),
 * StreamingProfilePacket (54) and StackSample (135) into SAMPLE events, a
 * TrackEvent's callstack into its sf, and the callstacks (interned or
 * inline) into STACK_FRAME definitions (field numbers from
 * perfetto_fields.tsv; doc/formats/perfetto.md, "CPU samples").
 *
 * A callstack (InternedData.callstacks) lists frame iids, bottom (root)
 * frame first; a frame (frames) names its function (function_names), its
 * mapping (mappings: build_ids, path components in mapping_paths), its
 * rel_pc and source (source_paths, line). Each frame of a callstack is a
 * callsite: its id is a hash of the frame's resolved content chained with
 * its parent's id, so equal callsites get equal ids whatever their iids,
 * sequence or clear generation, and a callsite is defined (one STACK_FRAME
 * event) the first time the parser meets it: the hashes met are kept, up
 * to max_profile_nodes. Per sequence, a callstack iid remembers its leaf's
 * hash, so that a callstack sampled again costs one lookup.
 *
 * The events' strings (ids, joined mapping paths, frame args) are written
 * into a buffer that lives until the packet's events are delivered; as it
 * may move while they are built, they are kept as offsets (fixups) and
 * turned into pointers once the packet's events are all queued.
 */
#include "perfetto/pf_profile.h"
#include "perfetto/pf_queue.h"
#include "core/args.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* InternedData fields */
enum {
    IN_FUNCTION_NAMES = 5,
    IN_FRAMES = 6,
    IN_CALLSTACKS = 7,
    IN_BUILD_IDS = 16,
    IN_MAPPING_PATHS = 17,
    IN_SOURCE_PATHS = 18,
    IN_MAPPINGS = 19,
    IN_SS_TASK_CONTEXTS = 48,
    IN_SS_EXECUTION_CONTEXTS = 49,
    IN_SS_COUNTER_DESCRIPTORS = 50
};

/* StackSample and StackSampleDefaults fields */
enum {
    SS_TASK = 1, SS_TASK_IID = 2, SS_EXEC = 3, SS_EXEC_IID = 4, SS_PRIMARY = 9,
    SS_PRIMARY_IID = 10, SS_FOLLOWERS = 12, SS_FOLLOWER_IIDS = 13,
    SSD_SOURCE = 1, SSD_PRIMARY = 2, SSD_FOLLOWERS = 3
};

/* Pseudo-namespace of the sequence's store: a callstack iid's leaf hash
 * (ival), checked against the callstack's message (msg) and the
 * sequence's redefinition count (str_len). */
#define PF_NS_CALLSTACK_LEAF 0xfffffffeu

#define ID_LEN 19 /* "pf:" + 16 hex digits */

enum { FIX_ID, FIX_PARENT, FIX_CAT, FIX_SF, FIX_ARGS };

typedef struct pf_fix {
    size_t qi;                 /* queue index */
    int what;
    size_t off, len;
} pf_fix;

typedef struct pf_prof {
    uint64_t *seen;            /* callsite hashes defined (0: empty) */
    size_t seen_size, seen_used;
    tread_buf scratch;         /* this packet's strings and frame args */
    tread_buf path;            /* a mapping's path being joined */
    pf_fix *fix;
    size_t nfix, fix_cap;
    uint64_t ids[PF_PROF_MAX_DEPTH];
    struct {
        const unsigned char *p;
        size_t n;
    } inl[PF_PROF_MAX_DEPTH];  /* an inline callstack's frames (a ring) */
    uint64_t serial;           /* the packet the scratch and fixes are of */
    char te_sf[ID_LEN + 1];    /* the packet's TrackEvent's sf */
    int types_found;
    const tread_perfetto_msgtype *t_perf, *t_stack;
    int warned_limit;          /* this packet */
    size_t packet_frames;      /* callsites this packet defined */
    uint64_t n_perf, n_perf_skipped, n_perf_records_lost, n_perf_producer;
    uint64_t n_streaming, n_frames, n_not_kept, n_truncated, n_bad;
    uint64_t n_te_callstacks, n_stack, n_stack_resolved;
} pf_prof;

/* ---- state -------------------------------------------------------------- */

static pf_prof *prof_get(pf_decoder *d, uint64_t off)
{
    if (d->prof)
        return d->prof;
    pf_prof *y = tread_malloc(&d->p->alloc, sizeof *y);
    if (!y) {
        tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
        return NULL;
    }
    memset(y, 0, sizeof *y);
    tread_buf_init(&y->scratch, &d->p->alloc, (size_t)-1);
    tread_buf_init(&y->path, &d->p->alloc, (size_t)-1);
    d->prof = y;
    return y;
}

/* The profile state for the packet being read: its strings and fixups
 * start empty with each packet (the queue is empty when a packet is read,
 * so no event points at the last packet's) and are kept across its fields
 * (a TrackEvent's callstack and a sample may share one packet) until
 * pf_profile_packet_done points the events at them. */
static pf_prof *prof_packet(pf_decoder *d, uint64_t off)
{
    pf_prof *y = prof_get(d, off);
    if (!y)
        return NULL;
    uint64_t serial = d->n_packets + d->n_packets_inner;
    if (y->serial != serial) {
        y->serial = serial;
        y->scratch.len = 0;
        y->nfix = 0;
        y->warned_limit = 0;
        y->packet_frames = 0;
    }
    return y;
}

void pf_profile_free(pf_decoder *d)
{
    pf_prof *y = d->prof;
    if (!y)
        return;
    const tread_alloc *a = &d->p->alloc;
    tread_free(a, y->seen);
    tread_free(a, y->fix);
    tread_buf_free(&y->scratch);
    tread_buf_free(&y->path);
    tread_free(a, y);
    d->prof = NULL;
}

static int nomem(pf_decoder *d, uint64_t off)
{
    tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
    return -1;
}

static void bad(pf_decoder *d, pf_prof *y, uint64_t off, const char *what)
{
    y->n_bad++;
    tread__warn(d->p, TREAD_WARN_BAD_RECORD, off, "%s does not decode: skipped", what);
}

static void miss(pf_decoder *d, uint64_t off, const char *what, uint64_t iid)
{
    d->n_interning_misses++;
    tread__warn(d->p, TREAD_WARN_UNRESOLVED_REF, off, "%s iid %" PRIu64 " was never interned",
                what, iid);
}

/* ---- hashes ------------------------------------------------------------- */

static uint64_t fmix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static uint64_t h_u64(uint64_t h, uint64_t v)
{
    return fmix(h ^ fmix(v + 0x9e3779b97f4a7c15ULL));
}

/* 8 bytes a step (a byte at a time was 16% of the instructions of a
 * trace whose 2,000 callstacks were each met once per 20 samples) */
static uint64_t h_str(uint64_t h, uint64_t tag, const char *s, size_t n)
{
    uint64_t f = h_u64(h_u64(h, tag), n);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        f = (f ^ w) * 0x9e3779b97f4a7c15ULL;
        f ^= f >> 29;
    }
    uint64_t t = 0;
    for (size_t k = 0; i + k < n; k++)
        t |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
    return h_u64(f, t);
}

/* 1: h is new and now remembered; 0: met before; 2: new, not remembered
 * (the table is full); 3: new, not remembered (may_add 0); -1 after
 * tread__fail. */
static int seen_add(pf_decoder *d, pf_prof *y, uint64_t h, int may_add, uint64_t off)
{
    if (!h)
        h = 1;
    if (y->seen_size) {
        size_t j = fmix(h) & (y->seen_size - 1);
        while (y->seen[j]) {
            if (y->seen[j] == h)
                return 0;
            j = (j + 1) & (y->seen_size - 1);
        }
    }
    if (!may_add)
        return 3;
    if (y->seen_used >= d->p->max_profile_nodes)
        return 2;
    if ((y->seen_used + 1) * 2 > y->seen_size) {
        size_t n = y->seen_size ? y->seen_size * 2 : 1024;
        uint64_t *t = tread_malloc(&d->p->alloc, n * sizeof *t);
        if (!t)
            return nomem(d, off);
        memset(t, 0, n * sizeof *t);
        for (size_t i = 0; i < y->seen_size; i++) {
            if (!y->seen[i])
                continue;
            size_t j = fmix(y->seen[i]) & (n - 1);
            while (t[j])
                j = (j + 1) & (n - 1);
            t[j] = y->seen[i];
        }
        tread_free(&d->p->alloc, y->seen);
        y->seen = t;
        y->seen_size = n;
    }
    size_t j = fmix(h) & (y->seen_size - 1);
    while (y->seen[j])
        j = (j + 1) & (y->seen_size - 1);
    y->seen[j] = h;
    y->seen_used++;
    return 1;
}

/* ---- strings of the packet's events ----------------------------------- */

static int add_fix(pf_decoder *d, pf_prof *y, size_t qi, int what, size_t off, size_t len,
                   uint64_t foff)
{
    if (y->nfix == y->fix_cap) {
        size_t n = y->fix_cap ? y->fix_cap * 2 : 64;
        pf_fix *f = tread_realloc(&d->p->alloc, y->fix, n * sizeof *f);
        if (!f)
            return nomem(d, foff);
        y->fix = f;
        y->fix_cap = n;
    }
    pf_fix *f = &y->fix[y->nfix++];
    f->qi = qi;
    f->what = what;
    f->off = off;
    f->len = len;
    return 0;
}

/* "pf:<16 hex>" and its NUL at o (ID_LEN + 1 bytes). (a byte's two
 * digits a step, from a table: once per sample) */
static void fmt_id(char *o, uint64_t h)
{
    static const char pairs[] =
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
        "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
        "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
        "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
        "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
        "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
        "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
        "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
    memcpy(o, "pf:", 3);
    for (int i = 0; i < 8; i++)
        memcpy(o + 3 + 2 * i, pairs + 2 * ((h >> (56 - 8 * i)) & 0xff), 2);
    o[ID_LEN] = 0;
}

/* Appends h's id (fmt_id) to the scratch; its offset in *at. */
static int put_id(pf_decoder *d, pf_prof *y, uint64_t h, size_t *at, uint64_t off)
{
    if (y->scratch.cap - y->scratch.len < ID_LEN + 1 &&
        tread_buf_reserve(&y->scratch, ID_LEN + 1))
        return nomem(d, off);
    fmt_id((char *)y->scratch.data + y->scratch.len, h);
    *at = y->scratch.len;
    y->scratch.len += ID_LEN + 1;
    return 0;
}

static int put_bytes(pf_decoder *d, pf_prof *y, const void *s, size_t n, size_t *at,
                     uint64_t off)
{
    if (tread_buf_reserve(&y->scratch, n + 1))
        return nomem(d, off);
    *at = y->scratch.len;
    if (n)
        memcpy(y->scratch.data + y->scratch.len, s, n);
    y->scratch.data[y->scratch.len + n] = 0;
    y->scratch.len += n + 1;
    return 0;
}

/* Points the queued events at their strings, now that the scratch no
 * longer moves. */
static void apply_fixes(pf_decoder *d, pf_prof *y)
{
    for (size_t i = 0; i < y->nfix; i++) {
        const pf_fix *f = &y->fix[i];
        tread_event *ev = &d->q[f->qi].ev;
        const char *s = (const char *)y->scratch.data + f->off;
        tread_str t = {s, f->len};
        switch (f->what) {
        case FIX_ID: ev->id = t; break;
        case FIX_PARENT: ev->parent = t; break;
        case FIX_CAT: ev->cat = t; break;
        case FIX_SF: ev->sf = t; break;
        default:
            ev->args.data = (const unsigned char *)s;
            ev->args.len = f->len;
            break;
        }
    }
    y->nfix = 0;
}

/* ---- frames ------------------------------------------------------------- */

typedef struct frame_info {
    tread_str fn, build, src;
    size_t path_len;           /* the joined path, in y->path */
    uint64_t rel_pc;
    uint64_t line;
    int has_fn, has_build, has_src, has_path, has_pc, has_line;
    int fn_in_packet;          /* fn is the packet's bytes (an inline frame) */
    int unresolved;            /* an iid named nothing */
    int unknown;               /* the frame iid itself named nothing */
    uint64_t iid;
} frame_info;

/* The interned string of field table, iid: 1, or 0 (missed: warned). */
static int interned_str(pf_decoder *d, pf_seq *s, uint32_t table, uint64_t iid, tread_str *out,
                        uint64_t off, const char *what)
{
    const pf_entry *e = pf_seq_find(s, table, iid);
    if (e && pf_interned_str(e, out))
        return 1;
    miss(d, off, what, iid);
    return 0;
}

/* Appends one component to the mapping path being joined: "/" + it, as
 * trace_processor names a mapping (a leading "//" becomes "/"). */
static int path_add(pf_decoder *d, pf_prof *y, const tread_str *c, uint64_t off)
{
    if (tread_buf_append(&y->path, "/", 1) || tread_buf_append(&y->path, c->ptr, c->len))
        return nomem(d, off);
    return 0;
}

static int read_mapping(pf_decoder *d, pf_prof *y, pf_seq *s, uint64_t iid, frame_info *fi,
                        uint64_t off)
{
    const pf_entry *e = pf_seq_find(s, IN_MAPPINGS, iid);
    if (!e || !e->msg) {
        miss(d, off, "mapping", iid);
        fi->unresolved = 1;
        return 0;
    }
    y->path.len = 0;
    pf_reader r;
    pf_field f;
    int rc, paths = 0;
    pf_reader_init(&r, e->msg, e->len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.num == 2 && f.wire == PF_WIRE_VARINT) {
            fi->has_build = interned_str(d, s, IN_BUILD_IDS, f.v, &fi->build, off, "build id");
            fi->unresolved |= !fi->has_build;
        } else if (f.num == 7 && (f.wire == PF_WIRE_VARINT || f.wire == PF_WIRE_LEN)) {
            pf_reader pr = {NULL, NULL};
            uint64_t v = f.v;
            int more = 1, prc = PF_OK;
            if (f.wire == PF_WIRE_LEN) {
                pf_reader_init(&pr, f.data, f.len);
                more = (prc = pf_packed_varint(&pr, &v)) == PF_OK;
            }
            while (more) {
                tread_str c;
                paths = 1;
                if (interned_str(d, s, IN_MAPPING_PATHS, v, &c, off, "mapping path")) {
                    if (path_add(d, y, &c, off))
                        return -1;
                } else {
                    fi->unresolved = 1;
                }
                more = f.wire == PF_WIRE_LEN && (prc = pf_packed_varint(&pr, &v)) == PF_OK;
            }
            if (prc == PF_BAD) {
                bad(d, y, off, "mapping path_string_ids");
                break;
            }
        }
    }
    if (rc == PF_BAD)
        bad(d, y, off, "mapping");
    if (paths) {
        fi->has_path = 1;
        if (y->path.len >= 2 && y->path.data[0] == '/' && y->path.data[1] == '/') {
            memmove(y->path.data, y->path.data + 1, y->path.len - 1);
            y->path.len--;
        }
        fi->path_len = y->path.len;
    }
    return 0;
}

/* The content of interned frame iid into fi (the mapping path into
 * y->path). 0, or -1 after tread__fail. */
static int read_frame(pf_decoder *d, pf_prof *y, pf_seq *s, uint64_t iid, frame_info *fi,
                      uint64_t off)
{
    memset(fi, 0, sizeof *fi);
    fi->iid = iid;
    y->path.len = 0;
    const pf_entry *e = pf_seq_find(s, IN_FRAMES, iid);
    if (!e || !e->msg) {
        miss(d, off, "frame", iid);
        fi->unknown = fi->unresolved = 1;
        return 0;
    }
    pf_reader r;
    pf_field f;
    int rc;
    uint64_t fn = 0, map = 0, srcp = 0;
    int has_fn = 0, has_map = 0, has_srcp = 0;
    pf_reader_init(&r, e->msg, e->len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.wire != PF_WIRE_VARINT)
            continue;
        switch (f.num) {
        case 2: has_fn = 1, fn = f.v; break;
        case 3: has_map = 1, map = f.v; break;
        case 4: fi->has_pc = 1, fi->rel_pc = f.v; break;
        case 5: has_srcp = 1, srcp = f.v; break;
        case 6: fi->has_line = 1, fi->line = (uint32_t)f.v; break;
        }
    }
    if (rc == PF_BAD)
        bad(d, y, off, "frame");
    if (has_fn) {
        fi->has_fn = interned_str(d, s, IN_FUNCTION_NAMES, fn, &fi->fn, off, "function name");
        fi->unresolved |= !fi->has_fn;
    }
    if (has_srcp) {
        fi->has_src = interned_str(d, s, IN_SOURCE_PATHS, srcp, &fi->src, off, "source path");
        fi->unresolved |= !fi->has_src;
    }
    if (has_map && read_mapping(d, y, s, map, fi, off))
        return -1;
    return 0;
}

/* An inline frame (InlineCallstack.Frame: function_name, source_file,
 * line_number) into fi; what decodes before an error is kept (warned), as
 * read_frame keeps an interned one's. */
static void read_inline_frame(pf_decoder *d, pf_prof *y, const unsigned char *m, size_t len,
                              frame_info *fi, uint64_t off)
{
    memset(fi, 0, sizeof *fi);
    y->path.len = 0;
    pf_reader r;
    pf_field f;
    int rc;
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.num == 1 && f.wire == PF_WIRE_LEN) {
            fi->has_fn = fi->fn_in_packet = 1;
            fi->fn.ptr = (const char *)f.data;
            fi->fn.len = f.len;
        } else if (f.num == 2 && f.wire == PF_WIRE_LEN) {
            fi->has_src = 1;
            fi->src.ptr = (const char *)f.data;
            fi->src.len = f.len;
        } else if (f.num == 3 && f.wire == PF_WIRE_VARINT) {
            fi->has_line = 1;
            fi->line = (uint32_t)f.v;
        }
    }
    if (rc == PF_BAD)
        bad(d, y, off, "inline callstack frame");
}

/* A callsite's id: the frame's content chained to its parent's. */
static uint64_t node_hash(uint64_t parent, const frame_info *fi, const pf_prof *y)
{
    uint64_t h = h_u64(parent, 0x70662d6672616d65ULL);
    if (fi->unknown)
        return h_u64(h_u64(h, 1), fi->iid); /* unknown frames stay apart */
    if (fi->has_fn)
        h = h_str(h, 2, fi->fn.ptr, fi->fn.len);
    if (fi->has_path)
        h = h_str(h, 3, (const char *)y->path.data, fi->path_len);
    if (fi->has_build)
        h = h_str(h, 4, fi->build.ptr, fi->build.len);
    if (fi->has_pc)
        h = h_u64(h_u64(h, 5), fi->rel_pc);
    if (fi->has_src)
        h = h_str(h, 6, fi->src.ptr, fi->src.len);
    if (fi->has_line)
        h = h_u64(h_u64(h, 7), fi->line);
    return h;
}

/* The frame's args as tokens into the scratch: rel_pc, build_id (hex),
 * source_file, line_number, those it has. */
static int put_frame_args(pf_decoder *d, pf_prof *y, const frame_info *fi, size_t *at,
                          size_t *len, uint64_t off)
{
    static const char hex[] = "0123456789abcdef";
    tread_buf *b = &y->scratch;
    size_t start = b->len;
    if (fi->has_pc && (args_put_str(b, TOK_KEY, "rel_pc", 6) ||
                       args_put_u64(b, fi->rel_pc > (uint64_t)INT64_MAX ? TOK_UINT : TOK_INT,
                                    fi->rel_pc)))
        return nomem(d, off);
    if (fi->has_build) {
        size_t hn = 2 * fi->build.len;
        if (hn > UINT32_MAX || args_put_str(b, TOK_KEY, "build_id", 8) ||
            tread_buf_reserve(b, hn + 6))
            return nomem(d, off);
        unsigned char *o = b->data + b->len;
        uint32_t n32 = (uint32_t)hn;
        o[0] = TOK_STR;
        memcpy(o + 1, &n32, 4);
        for (size_t i = 0; i < fi->build.len; i++) {
            unsigned char c = (unsigned char)fi->build.ptr[i];
            o[5 + 2 * i] = (unsigned char)hex[c >> 4];
            o[5 + 2 * i + 1] = (unsigned char)hex[c & 15];
        }
        o[5 + hn] = 0;
        b->len += hn + 6;
    }
    if (fi->has_src && (args_put_str(b, TOK_KEY, "source_file", 11) ||
                        args_put_str(b, TOK_STR, fi->src.ptr, fi->src.len)))
        return nomem(d, off);
    if (fi->has_line && (args_put_str(b, TOK_KEY, "line_number", 11) ||
                         args_put_u64(b, TOK_INT, fi->line)))
        return nomem(d, off);
    *at = start;
    *len = b->len - start;
    return 0;
}

/* One STACK_FRAME definition: callsite h under parent (has_parent). */
static int define_frame(pf_decoder *d, pf_prof *y, const pf_base *base, const frame_info *fi,
                        uint64_t h, int has_parent, uint64_t parent)
{
    uint64_t off = base->offset;
    pf_qitem *q = pf_queue_event(d, base);
    if (!q)
        return -1;
    size_t qi = (size_t)(q - d->q), at, len;
    tread_event *ev = &q->ev;
    ev->kind = TREAD_EVENT_STACK_FRAME;
    /* a definition, not an occurrence: no time, sequence or thread, so
     * that it reads the same wherever the callsite is first met */
    ev->flags = fi->unresolved ? TREAD_NAME_UNRESOLVED : 0;
    ev->ts = ev->raw_ts = 0;
    ev->clock_id = 0;
    ev->seq_id = 0;
    if (fi->has_fn) {
        ev->name = fi->fn;
        if (!fi->fn_in_packet)
            q->nul |= PF_NUL_NAME; /* NUL-terminated in the interning arena */
    }
    y->n_frames++;
    if (put_id(d, y, h, &at, off) || add_fix(d, y, qi, FIX_ID, at, ID_LEN, off))
        return -1;
    if (has_parent &&
        (put_id(d, y, parent, &at, off) || add_fix(d, y, qi, FIX_PARENT, at, ID_LEN, off)))
        return -1;
    if (fi->has_path) {
        if (put_bytes(d, y, y->path.data, fi->path_len, &at, off) ||
            add_fix(d, y, qi, FIX_CAT, at, fi->path_len, off))
            return -1;
        q->nul |= PF_NUL_CAT;
    }
    if (put_frame_args(d, y, fi, &at, &len, off))
        return -1;
    if (len && add_fix(d, y, qi, FIX_ARGS, at, len, off))
        return -1;
    ev->args.encoding = TREAD_ARGS_TOKENS;
    return 0;
}

/* Chains n frames, root first (the ring's (first + i)-th: interned frame
 * iids in y->ids, or inline frames in y->inl), defining the callsites not
 * met before: the leaf's hash in *leaf; *all_kept 0 when a callsite was
 * not remembered or an iid named nothing. 0, or -1 after tread__fail. */
static int chain_frames(pf_decoder *d, pf_prof *y, pf_seq *s, const pf_base *base, size_t n,
                        size_t first, int is_inline, uint64_t *leaf, int *all_kept)
{
    uint64_t off = base->offset;
    uint64_t h = 0, parent = 0;
    *all_kept = 1;
    for (size_t i = 0; i < n; i++) {
        frame_info fi;
        size_t k = (first + i) % PF_PROF_MAX_DEPTH;
        if (is_inline)
            read_inline_frame(d, y, y->inl[k].p, y->inl[k].n, &fi, off);
        else if (read_frame(d, y, s, y->ids[k], &fi, off))
            return -1;
        h = node_hash(parent, &fi, y);
        /* an iid that named nothing may be interned later (not a
         * redefinition): its callstack is not cached */
        if (fi.unresolved)
            *all_kept = 0;
        /* a packet's new callsites are its events too: bounded, so that a
         * packet cannot queue more than PF_PROF_MAX_PACKET_FRAMES of them */
        int sr = seen_add(d, y, h, y->packet_frames < PF_PROF_MAX_PACKET_FRAMES, off);
        if (sr < 0)
            return -1;
        if (sr >= 2) {
            /* not remembered, so not defined (defining it at every use
             * would let one sample queue 1024 events past the limit): the
             * sample names a frame no event defines */
            *all_kept = 0;
            y->n_not_kept++;
            if (!y->warned_limit) {
                y->warned_limit = 1;
                if (sr == 2)
                    tread__warn(d->p, TREAD_WARN_LIMIT, off,
                                "more than %zu stack frames (TREAD_OPT_MAX_PROFILE_NODES): "
                                "frames past it are not defined",
                                d->p->max_profile_nodes);
                else
                    tread__warn(d->p, TREAD_WARN_LIMIT, off,
                                "more than %d new stack frames in one packet "
                                "(PF_PROF_MAX_PACKET_FRAMES): the rest are defined where next met",
                                PF_PROF_MAX_PACKET_FRAMES);
            }
        } else if (sr == 1) {
            y->packet_frames++;
            if (define_frame(d, y, base, &fi, h, i > 0, parent))
                return -1;
        }
        parent = h;
    }
    *leaf = h;
    return 0;
}

/* A callstack deeper than PF_PROF_MAX_DEPTH keeps its leaf-most frames:
 * the ring's start and length, warned. */
static size_t ring_cut(pf_decoder *d, pf_prof *y, size_t n, size_t total, const char *what,
                       uint64_t iid, size_t *first, uint64_t off)
{
    *first = 0;
    if (total <= PF_PROF_MAX_DEPTH)
        return n;
    y->n_truncated++;
    if (what)
        tread__warn(d->p, TREAD_WARN_LIMIT, off, "%s has %zu frames: its %d leaf-most are read",
                    what, total, PF_PROF_MAX_DEPTH);
    else
        tread__warn(d->p, TREAD_WARN_LIMIT, off,
                    "callstack %" PRIu64 " has %zu frames: its %d leaf-most are read", iid, total,
                    PF_PROF_MAX_DEPTH);
    *first = n % PF_PROF_MAX_DEPTH; /* the ring's oldest */
    return PF_PROF_MAX_DEPTH;
}

/* The leaf callsite of interned callstack iid, defining the callsites not
 * met before: 1 with *leaf set, 0 when it has no frames or is unknown
 * (warned), -1 after tread__fail. */
static int callstack_leaf(pf_decoder *d, pf_prof *y, pf_seq *s, uint64_t iid,
                          const pf_base *base, uint64_t *leaf)
{
    uint64_t off = base->offset;
    const pf_entry *e = pf_seq_find(s, IN_CALLSTACKS, iid);
    if (!e || !e->msg) {
        miss(d, off, "callstack", iid);
        return 0;
    }
    const unsigned char *cs = e->msg;
    size_t cs_len = e->len;
    const pf_entry *c = pf_seq_find(s, PF_NS_CALLSTACK_LEAF, iid);
    if (c && c->msg == cs && c->str_len == s->redefined) {
        *leaf = (uint64_t)c->ival;
        return 1;
    }

    /* the frame iids, the leaf-most PF_PROF_MAX_DEPTH */
    size_t n = 0, total = 0;
    pf_reader r;
    pf_field f;
    int rc;
    pf_reader_init(&r, cs, cs_len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.num != 2)
            continue;
        if (f.wire == PF_WIRE_VARINT) {
            y->ids[n++ % PF_PROF_MAX_DEPTH] = f.v;
            total++;
        } else if (f.wire == PF_WIRE_LEN) {
            pf_reader pr;
            uint64_t v;
            int prc;
            pf_reader_init(&pr, f.data, f.len);
            while ((prc = pf_packed_varint(&pr, &v)) == PF_OK) {
                y->ids[n++ % PF_PROF_MAX_DEPTH] = v;
                total++;
            }
            if (prc == PF_BAD) {
                rc = PF_BAD;
                break;
            }
        }
    }
    if (rc == PF_BAD) {
        bad(d, y, off, "callstack");
        return 0;
    }
    if (!total)
        return 0;
    size_t first;
    n = ring_cut(d, y, n, total, NULL, iid, &first, off);
    uint64_t h;
    int all_kept;
    if (chain_frames(d, y, s, base, n, first, 0, &h, &all_kept))
        return -1;
    if (all_kept) {
        pf_entry *ce = pf_seq_pseudo_slot(d, s, PF_NS_CALLSTACK_LEAF, iid, off);
        if (!ce)
            return -1;
        ce->msg = cs;
        ce->str_len = s->redefined;
        ce->ival = (int64_t)h;
    }
    *leaf = h;
    return 1;
}

/* The leaf callsite of an InlineCallstack (frames, field 1, root first),
 * defining the callsites not met before: 1 with *leaf set, 0 when it has
 * no frames or does not decode (warned), -1 after tread__fail. */
static int inline_leaf(pf_decoder *d, pf_prof *y, pf_seq *s, const unsigned char *m, size_t len,
                       const pf_base *base, uint64_t *leaf)
{
    uint64_t off = base->offset;
    size_t n = 0, total = 0;
    pf_reader r;
    pf_field f;
    int rc;
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.num != 1 || f.wire != PF_WIRE_LEN)
            continue;
        y->inl[n % PF_PROF_MAX_DEPTH].p = f.data;
        y->inl[n % PF_PROF_MAX_DEPTH].n = f.len;
        n++;
        total++;
    }
    if (rc == PF_BAD) {
        bad(d, y, off, "inline callstack");
        return 0;
    }
    if (!total)
        return 0;
    size_t first;
    n = ring_cut(d, y, n, total, "an inline callstack", 0, &first, off);
    int all_kept;
    return chain_frames(d, y, s, base, n, first, 1, leaf, &all_kept) ? -1 : 1;
}

/* What a sample message says of its thread, cpu and value. */
typedef struct sample_ids {
    int has_pid, has_tid, has_cpu, has_value;
    int64_t pid, tid, cpu;
    uint64_t value;
} sample_ids;

/* Sets them on ev (a pid alone is the tid too). */
static void sample_fields(tread_event *ev, const sample_ids *x)
{
    if (x->has_pid) {
        ev->flags |= TREAD_HAS_PID;
        ev->pid = ev->tid = x->pid;
    }
    if (x->has_tid) {
        ev->flags |= TREAD_HAS_TID;
        ev->tid = x->tid;
    }
    if (x->has_cpu) {
        ev->flags |= TREAD_HAS_CPU;
        ev->cpu = x->cpu;
    }
    if (x->has_value) {
        ev->flags |= TREAD_HAS_VALUE | TREAD_VALUE_IS_INT;
        ev->value_int = (int64_t)x->value;
        ev->value = (double)x->value;
    }
}

/* A queued SAMPLE event naming callstack iid (has_cs) as its sf, or the
 * inline callstack inl (has_cs 2). */
static pf_qitem *sample_event_of(pf_decoder *d, pf_prof *y, pf_seq *s, const pf_base *base,
                                 int has_cs, uint64_t cs, const unsigned char *inl,
                                 size_t inl_len)
{
    uint64_t leaf = 0;
    int lr = has_cs == 2 ? inline_leaf(d, y, s, inl, inl_len, base, &leaf)
             : has_cs    ? callstack_leaf(d, y, s, cs, base, &leaf)
                         : 0;
    if (lr < 0)
        return NULL;
    pf_qitem *q = pf_queue_event(d, base);
    if (!q)
        return NULL;
    q->ev.kind = TREAD_EVENT_SAMPLE;
    q->ev.phase = 'P';
    size_t at;
    if (lr && (put_id(d, y, leaf, &at, base->offset) ||
               add_fix(d, y, (size_t)(q - d->q), FIX_SF, at, ID_LEN, base->offset)))
        return NULL;
    return q;
}

static pf_qitem *sample_event(pf_decoder *d, pf_prof *y, pf_seq *s, const pf_base *base,
                              int has_cs, uint64_t cs)
{
    return sample_event_of(d, y, s, base, has_cs, cs, NULL, 0);
}

static void find_types(pf_prof *y)
{
    if (!y->types_found) {
        y->types_found = 1;
        y->t_perf = tread_perfetto_msgtype_find("perfetto.protos.PerfSample");
        y->t_stack = tread_perfetto_msgtype_find("perfetto.protos.StackSample");
    }
}

/* ---- PerfSample ----------------------------------------------------------- */

static int perf_sample(pf_decoder *d, pf_prof *y, pf_seq *s, const unsigned char *m, size_t len,
                       const pf_base *base)
{
    uint64_t off = base->offset;
    pf_reader r;
    pf_field f;
    int rc;
    uint64_t cpu = 0, pid = 0, tid = 0, cs = 0, count = 0, lost = 0;
    int has_cpu = 0, has_pid = 0, has_tid = 0, has_cs = 0, has_count = 0, has_lost = 0;
    int skipped = 0, producer = 0;
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.num == 19) {
            producer = 1;
            continue;
        }
        if (f.wire != PF_WIRE_VARINT)
            continue;
        switch (f.num) {
        case 1: has_cpu = 1, cpu = (uint32_t)f.v; break;
        case 2: has_pid = 1, pid = (uint32_t)f.v; break;
        case 3: has_tid = 1, tid = (uint32_t)f.v; break;
        case 4: has_cs = 1, cs = f.v; break;
        case 6: has_count = 1, count = f.v; break;
        case 17: has_lost = 1, lost = f.v; break;
        case 18: skipped = 1; break;
        }
    }
    if (rc == PF_BAD) {
        bad(d, y, off, "perf_sample");
        return 0;
    }
    /* the two messages that are not samples (profile_packet.proto; as
     * trace_processor's ProfileModule reads them) */
    if (has_lost && lost > 0) {
        y->n_perf_records_lost += lost;
        tread__warn(d->p, TREAD_WARN_DATA_LOSS, off,
                    "perf_sample: the kernel lost %" PRIu64 " records of cpu %" PRIu64, lost, cpu);
        return 0;
    }
    if (producer) {
        y->n_perf_producer++;
        return 0;
    }
    /* a sample whose stack the profiler skipped still holds its counts */
    if (skipped)
        y->n_perf_skipped++;
    pf_qitem *q = sample_event(d, y, s, base, has_cs, cs);
    if (!q)
        return -1;
    y->n_perf++;
    tread_event *ev = &q->ev;
    const sample_ids x = {has_pid, has_tid, has_cpu, has_count,
                          (int64_t)pid, (int64_t)tid, (int64_t)cpu, count};
    sample_fields(ev, &x);
    find_types(y);
    if (y->t_perf)
        ev->args = tread_perfetto_args(y->t_perf, m, len);
    return 0;
}

/* ---- StackSample ---------------------------------------------------------- */

/* A context of a StackSample: inline (the message m) or interned (iid in
 * InternedData field table): the message, or NULL (an iid never
 * interned: warned). */
static const unsigned char *sample_context(pf_decoder *d, pf_seq *s, int interned, uint64_t iid,
                                           uint32_t table, const unsigned char *m, size_t *len,
                                           uint64_t off, const char *what)
{
    if (!interned)
        return m;
    const pf_entry *e = pf_seq_find(s, table, iid);
    if (!e || !e->msg) {
        miss(d, off, what, iid);
        return NULL;
    }
    *len = e->len;
    return e->msg;
}

/* ---- a StackSample's args, its references resolved ---------------------- */

static void put_varint(unsigned char **o, uint64_t v)
{
    while (v >= 0x80) {
        *(*o)++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *(*o)++ = (unsigned char)v;
}

/* Appends field num (LEN) holding n bytes at p to b (reserved by the
 * caller: n + 20). */
static void put_len_field(tread_buf *b, uint32_t num, const unsigned char *p, size_t n)
{
    unsigned char *o = b->data + b->len;
    put_varint(&o, ((uint64_t)num << 3) | PF_WIRE_LEN);
    put_varint(&o, n);
    if (n)
        memcpy(o, p, n);
    b->len = (size_t)(o - b->data) + n;
}

/* What resolving a StackSample's references needs. */
typedef struct ss_resolve {
    const unsigned char *task, *exec; /* the interned contexts (NULL: not
                                         interned, or missed) */
    size_t task_len, exec_len;
    int has_primary, has_followers;   /* the sample names its own */
    int has_primary_iid, has_follower_iids;
    uint64_t primary_iid;             /* (the last) */
} ss_resolve;

/* Reserves n more bytes of the scratch: 0, or -1 (out of memory). */
static int scratch_room(pf_decoder *d, pf_prof *y, size_t n, uint64_t off)
{
    return tread_buf_reserve(&y->scratch, n) ? nomem(d, off) : 0;
}

/* A counter descriptor iid as a follower_descriptors entry: the
 * descriptor, or an empty one for an iid never interned (so that
 * follower_descriptors[i] stays follower_weights[i]'s). */
static int put_follower(pf_decoder *d, pf_prof *y, pf_seq *s, uint64_t iid, uint64_t off)
{
    const pf_entry *e = pf_seq_find(s, IN_SS_COUNTER_DESCRIPTORS, iid);
    size_t n = e && e->msg ? e->len : 0;
    if (scratch_room(d, y, n + 20, off))
        return -1;
    put_len_field(&y->scratch, SS_FOLLOWERS, n ? e->msg : NULL, n);
    return 0;
}

/* The sample's bytes, then each interned reference it holds resolved (a
 * task or execution context, a counter descriptor) as the field its
 * oneof has for the message inline, and the sequence's
 * stack_sample_defaults' descriptors where the sample has none: what the
 * sample means, readable in its args in the schema's own shape (a oneof's
 * last field wins, and the iid stays readable too). Appending costs one
 * copy, no second reading of the fields. Into the packet's scratch: 1
 * (at, *n), 0 nothing to resolve (or over max_event_bytes: warned), -1
 * out of memory. */
static int resolve_sample(pf_decoder *d, pf_prof *y, pf_seq *s, const unsigned char *m,
                          size_t len, const ss_resolve *rs, size_t *at, size_t *n, uint64_t off)
{
    const unsigned char *def = s ? s->ss_defaults : NULL;
    size_t def_len = s ? s->ss_defaults_len : 0;
    int use_def = def && (!rs->has_primary || !rs->has_followers);
    if (!rs->task && !rs->exec && !rs->has_primary_iid && !rs->has_follower_iids && !use_def)
        return 0;
    size_t start = y->scratch.len, max = d->p->max_event_bytes;
    if (scratch_room(d, y, len + rs->task_len + rs->exec_len + 40, off))
        return -1;
    tread_buf *b = &y->scratch;
    memcpy(b->data + b->len, m, len);
    b->len += len;
    if (rs->task)
        put_len_field(b, SS_TASK, rs->task, rs->task_len);
    if (rs->exec)
        put_len_field(b, SS_EXEC, rs->exec, rs->exec_len);
    const pf_entry *e;
    if (rs->has_primary_iid && (e = pf_seq_find(s, IN_SS_COUNTER_DESCRIPTORS, rs->primary_iid)) &&
        e->msg) {
        if (scratch_room(d, y, e->len + 20, off))
            return -1;
        put_len_field(b, SS_PRIMARY, e->msg, e->len);
    }
    pf_reader r;
    pf_field f;
    pf_reader_init(&r, m, len);
    while (rs->has_follower_iids && b->len - start <= max && pf_next(&r, &f) == PF_OK) {
        if (f.num != SS_FOLLOWER_IIDS)
            continue;
        if (f.wire == PF_WIRE_VARINT) {
            if (put_follower(d, y, s, f.v, off))
                return -1;
            continue;
        }
        if (f.wire != PF_WIRE_LEN)
            continue;
        const unsigned char *p = f.data, *pe = f.data + f.len;
        uint64_t v;
        while (p < pe && b->len - start <= max && pf_varint(&p, pe, &v) == PF_OK)
            if (put_follower(d, y, s, v, off))
                return -1;
    }
    if (use_def) /* (def may be NULL: no arithmetic on it) */
        pf_reader_init(&r, def, def_len);
    while (use_def && b->len - start <= max && pf_next(&r, &f) == PF_OK) {
        if (f.wire != PF_WIRE_LEN || !((f.num == SSD_PRIMARY && !rs->has_primary) ||
                                        (f.num == SSD_FOLLOWERS && !rs->has_followers)))
            continue;
        if (scratch_room(d, y, f.len + 20, off))
            return -1;
        put_len_field(b, f.num == SSD_PRIMARY ? SS_PRIMARY : SS_FOLLOWERS, f.data, f.len);
    }
    if (b->len - start > max) {
        b->len = start;
        tread__warn(d->p, TREAD_WARN_LIMIT, off,
                    "stack sample: its descriptors resolved would be over %zu bytes "
                    "(max_event_bytes): its args keep its own bytes", max);
        return 0;
    }
    *at = start;
    *n = b->len - start;
    return 1;
}

/* The sequence's stack_sample_defaults' source (what made the samples):
 * 1 with *src, else 0. */
static int defaults_source(const pf_seq *s, tread_str *src)
{
    if (!s || !s->ss_defaults)
        return 0;
    pf_reader r;
    pf_field f;
    int found = 0;
    pf_reader_init(&r, s->ss_defaults, s->ss_defaults_len);
    while (pf_next(&r, &f) == PF_OK)
        if (f.num == SSD_SOURCE && f.wire == PF_WIRE_LEN) {
            src->ptr = (const char *)f.data;
            src->len = f.len;
            found = 1;
        }
    return found;
}

/* StackSample (stack_sample.proto; as trace_processor's StackSampleModule
 * reads it): the thread from its task context (pid, tid), the cpu from
 * its execution context, the callstack inline or interned, the primary
 * weight as the value; everything else in the args. */
static int stack_sample(pf_decoder *d, pf_prof *y, pf_seq *s, const unsigned char *m, size_t len,
                        const pf_base *base)
{
    uint64_t off = base->offset;
    pf_reader r;
    pf_field f;
    int rc;
    const unsigned char *task = NULL, *exec = NULL, *inl = NULL;
    size_t task_len = 0, exec_len = 0, inl_len = 0;
    int task_iid = 0, exec_iid = 0, has_cs = 0, has_weight = 0;
    uint64_t task_v = 0, exec_v = 0, cs = 0, weight = 0;
    ss_resolve rs;
    memset(&rs, 0, sizeof rs);
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        /* (each oneof: the last of its fields wins) */
        switch (f.num) {
        case SS_PRIMARY:
            rs.has_primary = 1;
            break;
        case SS_PRIMARY_IID:
            rs.has_primary = 1;
            if (f.wire == PF_WIRE_VARINT)
                rs.has_primary_iid = 1, rs.primary_iid = f.v;
            break;
        case SS_FOLLOWERS:
            rs.has_followers = 1;
            break;
        case SS_FOLLOWER_IIDS:
            rs.has_followers = rs.has_follower_iids = 1;
            break;
        case 1:
            if (f.wire == PF_WIRE_LEN)
                task = f.data, task_len = f.len, task_iid = 0;
            break;
        case 2:
            if (f.wire == PF_WIRE_VARINT)
                task = NULL, task_iid = 1, task_v = f.v;
            break;
        case 3:
            if (f.wire == PF_WIRE_LEN)
                exec = f.data, exec_len = f.len, exec_iid = 0;
            break;
        case 4:
            if (f.wire == PF_WIRE_VARINT)
                exec = NULL, exec_iid = 1, exec_v = f.v;
            break;
        case 5:
            if (f.wire == PF_WIRE_LEN)
                has_cs = 2, inl = f.data, inl_len = f.len;
            break;
        case 6:
            if (f.wire == PF_WIRE_VARINT)
                has_cs = 1, cs = f.v;
            break;
        case 11:
            if (f.wire == PF_WIRE_VARINT)
                has_weight = 1, weight = f.v;
            break;
        }
    }
    if (rc == PF_BAD) {
        bad(d, y, off, "stack_sample");
        return 0;
    }
    /* the contexts, before the frames are queued (a miss warns once) */
    int64_t pid = 0, tid = 0, cpu = 0;
    int has_pid = 0, has_tid = 0, has_cpu = 0, unresolved = 0;
    if (task || task_iid) {
        size_t n = task_len;
        const unsigned char *t = sample_context(d, s, task_iid, task_v, IN_SS_TASK_CONTEXTS, task,
                                                &n, off, "stack sample task context");
        unresolved = !t;
        if (t && task_iid)
            rs.task = t, rs.task_len = n;
        if (t) {
            pf_reader_init(&r, t, n);
            while ((rc = pf_next(&r, &f)) == PF_OK) {
                if (f.wire != PF_WIRE_VARINT)
                    continue;
                if (f.num == 2)
                    has_pid = 1, pid = (int64_t)(uint32_t)f.v;
                else if (f.num == 3)
                    has_tid = 1, tid = (int64_t)(uint32_t)f.v;
            }
            if (rc == PF_BAD)
                bad(d, y, off, "stack sample task context");
        }
    }
    if (exec || exec_iid) {
        size_t n = exec_len;
        const unsigned char *x = sample_context(d, s, exec_iid, exec_v, IN_SS_EXECUTION_CONTEXTS,
                                                exec, &n, off, "stack sample execution context");
        if (x && exec_iid)
            rs.exec = x, rs.exec_len = n;
        if (x) {
            pf_reader_init(&r, x, n);
            while ((rc = pf_next(&r, &f)) == PF_OK)
                if (f.num == 2 && f.wire == PF_WIRE_VARINT)
                    has_cpu = 1, cpu = (int64_t)(uint32_t)f.v;
            if (rc == PF_BAD)
                bad(d, y, off, "stack sample execution context");
        }
    }
    pf_qitem *q = sample_event_of(d, y, s, base, has_cs, cs, inl, inl_len);
    if (!q)
        return -1;
    y->n_stack++;
    tread_event *ev = &q->ev;
    const sample_ids x = {has_pid, has_tid, has_cpu, has_weight, pid, tid, cpu, weight};
    sample_fields(ev, &x);
    if (unresolved)
        ev->flags |= TREAD_THREAD_UNRESOLVED;
    find_types(y);
    if (y->t_stack)
        ev->args = tread_perfetto_args(y->t_stack, m, len);
    size_t qi = (size_t)(q - d->q), at = 0, n = 0;
    int rr = y->t_stack ? resolve_sample(d, y, s, m, len, &rs, &at, &n, off) : 0;
    if (rr < 0 || (rr > 0 && add_fix(d, y, qi, FIX_ARGS, at, n, off)))
        return -1;
    y->n_stack_resolved += rr > 0;
    tread_str src;
    if (defaults_source(s, &src) &&
        (put_bytes(d, y, src.ptr, src.len, &at, off) || add_fix(d, y, qi, FIX_CAT, at, src.len, off)))
        return -1;
    return 0;
}

/* ---- StreamingProfilePacket ---------------------------------------------- */

/* The values of a repeated varint field, packed or not, one at a time. */
typedef struct rep_iter {
    pf_reader r;               /* over the message */
    pf_reader packed;          /* over a packed run */
    int in_packed;
    uint32_t num;
} rep_iter;

/* PF_OK with *v, PF_END, or PF_BAD. */
static int rep_next(rep_iter *it, uint64_t *v)
{
    for (;;) {
        if (it->in_packed) {
            int rc = pf_packed_varint(&it->packed, v);
            if (rc != PF_END)
                return rc;
            it->in_packed = 0;
        }
        pf_field f;
        int rc = pf_next(&it->r, &f);
        if (rc != PF_OK)
            return rc;
        if (f.num != it->num)
            continue;
        if (f.wire == PF_WIRE_VARINT) {
            *v = f.v;
            return PF_OK;
        }
        if (f.wire != PF_WIRE_LEN)
            return PF_BAD;
        pf_reader_init(&it->packed, f.data, f.len);
        it->in_packed = 1;
    }
}

static int streaming_profile(pf_decoder *d, pf_prof *y, pf_seq *s, const unsigned char *m,
                             size_t len, const pf_base *base)
{
    uint64_t off = base->offset;
    rep_iter ci, ti;
    memset(&ci, 0, sizeof ci);
    memset(&ti, 0, sizeof ti);
    pf_reader_init(&ci.r, m, len);
    pf_reader_init(&ti.r, m, len);
    ci.num = 1;
    ti.num = 2;
    int warned_thread = 0;
    /* every delta moves the sequence's running microseconds (its legacy
     * timestamps: ThreadDescriptor.reference_timestamp_us, TrackEvent
     * timestamp_delta_us), paired with a callstack or not, as
     * trace_processor reads them; a callstack without its delta ends the
     * samples */
    for (;;) {
        uint64_t cs = 0, delta;
        int crc = rep_next(&ci, &cs);
        int trc = rep_next(&ti, &delta);
        if (crc == PF_BAD || trc == PF_BAD) {
            bad(d, y, off, "streaming_profile_packet");
            break;
        }
        if (trc != PF_OK) {
            if (crc == PF_OK) {
                y->n_bad++;
                tread__warn(d->p, TREAD_WARN_BAD_FIELD, off,
                            "streaming_profile_packet has more callstacks than timestamps: "
                            "the rest are not read");
            }
            break;
        }
        s->ts_us = pf_wrap_add(s->ts_us, (int64_t)delta);
        if (crc != PF_OK)
            continue;
        pf_qitem *q = sample_event(d, y, s, base, 1, cs);
        if (!q)
            return -1;
        y->n_streaming++;
        tread_event *ev = &q->ev;
        ev->flags &= ~(uint32_t)(TREAD_HAS_TS | TREAD_HAS_RAW_TS);
        ev->raw_ts = 0;
        ev->clock_id = 0;
        if (pf_us_to_ns(s->ts_us, &ev->ts) == 0) {
            ev->flags |= TREAD_HAS_TS;
        } else {
            ev->ts = 0;
            tread__warn(d->p, TREAD_WARN_NUMBER_RANGE, off,
                        "streaming_profile_packet timestamp of %lld us is out of the int64 ns "
                        "range: ignored",
                        (long long)s->ts_us);
        }
        if (s->has_thread) {
            ev->flags |= TREAD_HAS_PID | TREAD_HAS_TID;
            ev->pid = s->pid;
            ev->tid = s->tid;
        } else {
            ev->flags |= TREAD_THREAD_UNRESOLVED;
            if (!warned_thread) {
                warned_thread = 1;
                tread__warn(d->p, TREAD_WARN_UNRESOLVED_REF, off,
                            "streaming_profile_packet on sequence %u, which no "
                            "thread_descriptor named: its samples have no thread",
                            (unsigned)s->id);
            }
        }
    }
    return 0;
}

/* ---- entry points --------------------------------------------------------- */

int pf_profile_packet(pf_decoder *d, pf_seq *s, uint32_t num, const unsigned char *m, size_t len,
                      const pf_base *base)
{
    pf_prof *y = prof_packet(d, base->offset);
    if (!y)
        return -1;
    switch (num) {
    case PF_PKT_PERF_SAMPLE: return perf_sample(d, y, s, m, len, base);
    case PF_PKT_STACK_SAMPLE: return stack_sample(d, y, s, m, len, base);
    default: return streaming_profile(d, y, s, m, len, base);
    }
}

int pf_profile_track_event(pf_decoder *d, pf_seq *s, int is_inline, const unsigned char *m,
                           size_t len, uint64_t iid, const pf_base *base, tread_str *sf)
{
    pf_prof *y = prof_packet(d, base->offset);
    if (!y)
        return -1;
    uint64_t leaf = 0;
    int lr = is_inline ? inline_leaf(d, y, s, m, len, base, &leaf)
                       : callstack_leaf(d, y, s, iid, base, &leaf);
    if (lr <= 0)
        return lr;
    y->n_te_callstacks++;
    /* apart from the scratch, so that the event and a TYPE_STATE copy of
     * it can point at it at once */
    fmt_id(y->te_sf, leaf);
    sf->ptr = y->te_sf;
    sf->len = ID_LEN;
    return 1;
}

void pf_profile_packet_done(pf_decoder *d)
{
    if (d->prof && d->prof->serial == d->n_packets + d->n_packets_inner)
        apply_fixes(d, d->prof);
}

size_t pf_profile_counters(const pf_decoder *d, tread_counter *out, size_t max, size_t n)
{
    static const pf_prof zero;
    const pf_prof *y = d->prof ? d->prof : &zero;
    n = tread__counter_put(out, max, n, "perf_samples", y->n_perf);
    n = tread__counter_put(out, max, n, "perf_samples_skipped", y->n_perf_skipped);
    n = tread__counter_put(out, max, n, "perf_kernel_records_lost", y->n_perf_records_lost);
    n = tread__counter_put(out, max, n, "perf_producer_events", y->n_perf_producer);
    n = tread__counter_put(out, max, n, "streaming_profile_samples", y->n_streaming);
    n = tread__counter_put(out, max, n, "stack_samples", y->n_stack);
    n = tread__counter_put(out, max, n, "stack_samples_resolved", y->n_stack_resolved);
    n = tread__counter_put(out, max, n, "track_event_callstacks", y->n_te_callstacks);
    n = tread__counter_put(out, max, n, "stack_frames_defined", y->n_frames);
    n = tread__counter_put(out, max, n, "stack_frames_not_kept", y->n_not_kept);
    n = tread__counter_put(out, max, n, "callstacks_truncated", y->n_truncated);
    n = tread__counter_put(out, max, n, "profile_fields_not_decoded", y->n_bad);
    return n;
}
