/*
 * FXT arguments ("Arguments" and "Argument types" in the format document)
 * and the lazy codec behind TREAD_ARGS_FXT.
 *
 * An event's tread_args points at the record's argument words; nothing is
 * decoded when the event is emitted beyond a walk over the argument
 * headers that checks their sizes (a malformed argument makes the whole
 * record a counted warning, as the format asks). tread_args_next decodes
 * one argument per call, resolving indexed names and values through the
 * provider's string table.
 *
 * Some records carry typed fields that tread_event has no member for (the
 * outgoing and incoming threads of a context switch, a log message): the
 * record reader notes them in the context (synth_kind and its values),
 * and the codec makes them into "synthetic" arguments, yielded before the
 * record's own arguments, only when an iterator starts: building them for
 * every record cost a context switch ~190 instructions, most callers never
 * read them.
 *
 * Strings handed out must end in NUL. A stream in the record is followed
 * by its zero padding, so most inline strings are used in place; one whose
 * length is a multiple of 8 (or whose padding is not zero) is copied into
 * the shadow buffer: a string at record offset o goes to shadow offset
 * o + o/8, so every string of the record has its own room and a copy made
 * twice lands in the same place (iterators may run side by side).
 */
#ifndef TREAD_FXT_ARGS_H
#define TREAD_FXT_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <tread.h>
#include "core/decoder.h"
#include "fxt/fxt_tables.h"

#define FXT_MAX_SYNTH 12 /* a context switch: two dicts of six */

/* Shadow bytes needed for a record of n bytes. */
static inline size_t fxt_shadow_size(size_t n) { return n + n / 8 + 16; }

/* One thread of a context switch, as the "out" or "in" dict. */
typedef struct fxt_synth_thread {
    uint64_t pid, tid;
    int64_t state, prio;         /* -1: left out */
    unsigned char have;          /* the thread resolved (pid, tid present) */
    unsigned char have_pid;      /* the record names its process */
} fxt_synth_thread;

enum {
    FXT_SYNTH_NONE = 0,
    FXT_SYNTH_SWITCH,            /* out, in: {pid, tid, state, prio} dicts */
    FXT_SYNTH_MESSAGE            /* a log record's "message" string */
};

typedef struct fxt_args_ctx {
    const fxt_provider *pv;      /* string table of the record's provider */
    const unsigned char *rec;    /* the record's first byte */
    const unsigned char *rec_end;
    unsigned char *shadow;       /* fxt_shadow_size(rec_end - rec) bytes */
    /* the record's synthetic fields, as noted (reset for every record) */
    unsigned synth_kind;         /* FXT_SYNTH_* */
    fxt_synth_thread sw[2];      /* SWITCH: out, in */
    tread_str message;           /* MESSAGE */
    /* ... and as made by the first iterator of the record */
    unsigned nsynth;
    tread_arg synth[FXT_MAX_SYNTH];
} fxt_args_ctx;

/* One argument, located (nothing decoded). */
typedef struct fxt_arg_raw {
    uint64_t header;
    unsigned type;
    unsigned name_ref;
    const unsigned char *name;   /* inline name bytes (name_ref inline) */
    const unsigned char *value;  /* first byte after the name stream */
    const unsigned char *end;    /* first byte after the argument */
    int known;                   /* a type tread decodes (else skipped) */
} fxt_arg_raw;

enum {
    FXT_ARG_OK = 0,
    FXT_ARG_SIZE_ZERO = -1,      /* size field 0 */
    FXT_ARG_OVERRUNS = -2,       /* larger than what is left of the record */
    FXT_ARG_BAD_LAYOUT = -3      /* name or value beyond the argument's size */
};

/* Locates the argument at p (end: end of the record). */
int fxt_arg_locate(const unsigned char *p, const unsigned char *end, fxt_arg_raw *a);

/* What a walk over a record's arguments found. */
typedef struct fxt_args_check {
    const unsigned char *end;    /* after the last argument */
    int error;                   /* FXT_ARG_* of the first bad argument */
    unsigned bad_index;          /* which argument (0-based) */
    int past_end;                /* the count asks for more than the record holds */
    unsigned missing;            /* indexed names/values not in the table */
    unsigned missing_refs[32];   /* their indices (15 arguments, 2 refs each) */
} fxt_args_check;

/* Walks n arguments from p. Returns 0, or -1 when they do not fit (see
 * chk->error / past_end). */
int fxt_args_walk_full(const fxt_provider *pv, const unsigned char *p, const unsigned char *end,
                       unsigned n, fxt_args_check *chk);

/* A tight loop for the common case: n arguments from p, each of a known
 * fixed layout that fits, every index in the table. Returns 0 with *out
 * after the last one, or -1 for anything else (fxt_args_walk_full says
 * what). */
static inline int fxt_args_walk_fast(const fxt_provider *pv, const unsigned char *p,
                                     const unsigned char *end, unsigned n,
                                     const unsigned char **out)
{
    for (unsigned i = 0; i < n; i++) {
        if (end - p < 8)
            return -1;
        uint64_t h;
        memcpy(&h, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        h = __builtin_bswap64(h);
#endif
        size_t bytes = (size_t)((h >> 4) & 0xfff) * 8;
        unsigned type = (unsigned)(h & 15), nref = (unsigned)(h >> 16) & 0xffff;
        size_t need = 8;
        if (nref & 0x8000u)
            need += ((nref & 0x7fffu) + 7) & ~(size_t)7;
        else if (nref && (nref >= pv->string_slots || pv->strings[nref].len == FXT_STRING_UNSET))
            return -1;
        /* null, int32, uint32, bool: the header only; int64, uint64,
         * double, pointer, koid: a value word; string: its stream; other
         * types (blob, unknown): the full walk */
        if ((0x0207u >> type) & 1) {
        } else if ((0x01b8u >> type) & 1) {
            need += 8;
        } else if (type == 6) {
            unsigned vref = (unsigned)(h >> 32) & 0xffff;
            if (vref & 0x8000u)
                need += ((vref & 0x7fffu) + 7) & ~(size_t)7;
            else if (vref && (vref >= pv->string_slots ||
                              pv->strings[vref].len == FXT_STRING_UNSET))
                return -1;
        } else {
            return -1;
        }
        if (bytes == 0 || bytes > (size_t)(end - p) || need > bytes)
            return -1;
        p += bytes;
    }
    *out = p;
    return 0;
}

/* fxt_args_walk_full, through the tight loop when it can. */
static inline int fxt_args_walk(const fxt_provider *pv, const unsigned char *p,
                                const unsigned char *end, unsigned n, fxt_args_check *chk)
{
    const unsigned char *q;
    if (fxt_args_walk_fast(pv, p, end, n, &q))
        return fxt_args_walk_full(pv, p, end, n, chk);
    chk->end = q;
    chk->missing = 0;
    return 0;
}

/* A NUL-terminated view of n inline bytes at s inside the record. */
const char *fxt_inline_str(fxt_args_ctx *c, const unsigned char *s, size_t n);

/* Resolves a string ref: inline bytes at *inline_at (advanced past the
 * stream), or the table. Returns 0, or -1 when the index is not in the
 * table (*out is then "" with length 0). */
static inline int fxt_resolve_str(fxt_args_ctx *c, unsigned ref,
                                  const unsigned char **inline_at, tread_str *out)
{
    if (ref & 0x8000u) {
        size_t n = ref & 0x7fffu;
        out->ptr = fxt_inline_str(c, *inline_at, n);
        out->len = n;
        *inline_at += (n + 7) & ~(size_t)7;
        return 0;
    }
    if (ref == 0) {
        out->ptr = "";
        out->len = 0;
        return 0;
    }
    const fxt_string *s = fxt_string_get(c->pv, ref);
    if (!s) {
        out->ptr = "";
        out->len = 0;
        return -1;
    }
    out->ptr = s->ptr;
    out->len = s->len;
    return 0;
}

/* Decodes the argument into *out (depth 0). Returns 0 for an argument of a
 * known type, 1 for one that is skipped. */
int fxt_arg_decode(fxt_args_ctx *c, const fxt_arg_raw *a, tread_arg *out);

extern const tread_args_codec tread__fxt_args_codec;

#endif
