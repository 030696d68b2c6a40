/*
 * TREAD_ARGS_PROTO: a message's bytes as lazily decoded tread_args, read
 * through the schema exactly as the walk reads them (pf_walk.h). ctx is
 * the message's descriptor (a tread_perfetto_msgtype).
 *
 * Fields come out in wire order, keyed by name: a nested message is a
 * DICT (BEGIN ... END), a packed repeated field an ARRAY of its elements,
 * and so is each run of consecutive elements of an unpacked repeated
 * field (what every encoder writes: all of a field's elements together),
 * so that no key repeats in a JSON object made of them; elements that
 * other fields separate (legal, never written) make a second ARRAY under
 * the same key, as a non-repeated field written twice is two args: the
 * iterator reads forward only. Enums are STRINGs holding the value's name (INT when the
 * number is not one of the enum's); unsigned values above INT64_MAX are
 * UINT; unknown fields are keyed by their number in decimal, with the raw
 * value (INT/UINT, BYTES for length-delimited ones and groups).
 *
 * Iterator state: it->p/it->end bound the current level; state[0] is the
 * current level's descriptor (a message descriptor, or for an array the
 * field's descriptor, its low bit set when the array is a run of tagged
 * elements rather than a packed payload); each open level keeps its parent's end
 * and descriptor in two stack slots, so PF_ARGS_MAX_LEVELS levels fit and
 * a message nested deeper comes out as BYTES. state[1..3] hold an unknown
 * field's key text until the next call.
 */
#include <stdio.h>
#include <string.h>

#include "core/decoder.h"
#include "perfetto/pf_walk.h"

#define PF_ARGS_MAX_LEVELS (TREAD_ARGS_ITER_MAX_NEST / 2)

/* The low bit of an array level's descriptor word: a run of tagged
 * elements (descriptors are pointer-aligned, so the bit is free). */
#define TAGGED_RUN ((uint64_t)1)

static const void *cur_desc(const tread_args_iter *it)
{
    return (const void *)(uintptr_t)(it->state[0] & ~TAGGED_RUN);
}

static void push(tread_args_iter *it, const void *desc, const unsigned char *data, size_t len,
                 int array)
{
    int d = it->depth;
    it->stack[2 * d] = it->end;
    it->stack[2 * d + 1] = (const unsigned char *)(uintptr_t)it->state[0];
    it->state[0] = (uint64_t)(uintptr_t)desc | (array == 2 ? TAGGED_RUN : 0);
    if (array)
        it->array_bits |= (uint64_t)1 << d;
    else
        it->array_bits &= ~((uint64_t)1 << d);
    it->depth = d + 1;
    it->p = data;
    it->end = data + len;
}

static void pop(tread_args_iter *it)
{
    int d = --it->depth;
    it->p = it->end; /* a level's data ends where its parent goes on */
    it->end = it->stack[2 * d];
    it->state[0] = (uint64_t)(uintptr_t)it->stack[2 * d + 1];
}

static void put_int(tread_arg *out, int64_t i)
{
    out->type = TREAD_ARG_INT;
    out->v.i = i;
}

static void put_uint(tread_arg *out, uint64_t u)
{
    if (u > (uint64_t)INT64_MAX) {
        out->type = TREAD_ARG_UINT;
        out->v.u = u;
    } else {
        put_int(out, (int64_t)u);
    }
}

/* A walk value as a tread_arg value. */
static void put_value(const tread_perfetto_field *f, tread_arg *out);

void pf_walk_arg_value(const ProtobufCFieldDescriptor *fd, uint64_t raw,
                       const unsigned char *data, size_t len, tread_arg *out)
{
    tread_perfetto_field v;
    pf_walk_value(fd, raw, data, len, &v);
    put_value(&v, out);
}

static void put_value(const tread_perfetto_field *f, tread_arg *out)
{
    switch (f->type) {
    case TREAD_PF_TYPE_UINT32:
    case TREAD_PF_TYPE_FIXED32:
    case TREAD_PF_TYPE_UINT64:
    case TREAD_PF_TYPE_FIXED64:
        put_uint(out, f->v.u);
        break;
    case TREAD_PF_TYPE_FLOAT:
    case TREAD_PF_TYPE_DOUBLE:
        out->type = TREAD_ARG_DOUBLE;
        out->v.d = f->v.d;
        break;
    case TREAD_PF_TYPE_BOOL:
        out->type = TREAD_ARG_BOOL;
        out->v.b = f->v.b;
        break;
    case TREAD_PF_TYPE_ENUM:
        if (f->enum_name) {
            out->type = TREAD_ARG_STRING;
            out->v.s.ptr = f->enum_name;
            out->v.s.len = strlen(f->enum_name);
        } else {
            put_int(out, f->v.i);
        }
        break;
    case TREAD_PF_TYPE_STRING:
    case TREAD_PF_TYPE_BYTES:
        out->type = f->type == TREAD_PF_TYPE_STRING ? TREAD_ARG_STRING : TREAD_ARG_BYTES;
        out->v.s.ptr = (const char *)f->data;
        out->v.s.len = f->len;
        break;
    default: /* signed integers */
        put_int(out, f->v.i);
        break;
    }
}

/* After malformed data, the containers still open are closed one *_END a
 * call (as the other lazy codecs do), so a caller's BEGIN/END stay
 * balanced; tread_args_iter_failed tells it that the data was cut. */
static int close_one(tread_args_iter *it, tread_arg *out)
{
    if (it->depth <= 0)
        return 0;
    int d = --it->depth;
    out->type = (it->array_bits >> d) & 1 ? TREAD_ARG_ARRAY_END : TREAD_ARG_DICT_END;
    out->depth = d;
    return 1;
}

static int bad(tread_args_iter *it, tread_arg *out)
{
    it->failed = 1;
    /* not NULL: tread_args_next ends an iterator whose p is NULL, and the
     * containers still open have their *_END to give (fuzz_perfetto: a
     * StackSample's inline frame that does not decode, two levels in) */
    if (it->p)
        it->p = it->end;
    if (!out)
        return 0;
    memset(out, 0, sizeof *out);
    return close_one(it, out);
}

static void pf_proto_init(tread_args_iter *it, const tread_args *a)
{
    if (!a->ctx) {
        bad(it, NULL);
        return;
    }
    it->state[0] = (uint64_t)(uintptr_t)a->ctx;
}

const unsigned char *pf_walk_run_end(const ProtobufCMessageDescriptor *md, const pf_field *f,
                                     int how, const unsigned char *p, const unsigned char *end)
{
    while (p < end) {
        pf_reader r = {p, end};
        pf_field g;
        const ProtobufCFieldDescriptor *gd;
        if (pf_next(&r, &g) != PF_OK || g.num != f->num || pf_walk_classify(md, &g, &gd) != how)
            break;
        p = r.p;
    }
    return p;
}

/* The next element of a run (pf_walk_run_end framed all of them): a value, or a
 * message as a DICT (BYTES one level too deep). */
static int tagged_element(tread_args_iter *it, tread_arg *out)
{
    const ProtobufCFieldDescriptor *fd = cur_desc(it);
    pf_reader r = {it->p, it->end};
    pf_field f;
    if (pf_next(&r, &f) != PF_OK)
        return bad(it, out);
    it->p = r.p;
    out->depth = it->depth;
    if (fd->type != PROTOBUF_C_TYPE_MESSAGE) {
        tread_perfetto_field v;
        pf_walk_value(fd, f.v, f.data, f.len, &v);
        put_value(&v, out);
    } else if (it->depth >= PF_ARGS_MAX_LEVELS) {
        out->type = TREAD_ARG_BYTES;
        out->v.s.ptr = (const char *)f.data;
        out->v.s.len = f.len;
    } else {
        out->type = TREAD_ARG_DICT_BEGIN;
        push(it, fd->descriptor, f.data, f.len, 0);
    }
    return 1;
}

static int pf_proto_next(tread_args_iter *it, tread_arg *out)
{
    memset(out, 0, sizeof *out);
    if (it->failed)
        return close_one(it, out);
    if (it->p >= it->end) {
        if (it->depth == 0)
            return 0;
        int d = it->depth - 1;
        out->type = (it->array_bits >> d) & 1 ? TREAD_ARG_ARRAY_END : TREAD_ARG_DICT_END;
        pop(it);
        out->depth = it->depth;
        return 1;
    }
    out->depth = it->depth;
    tread_perfetto_field v;
    if (it->depth > 0 && (it->array_bits >> (it->depth - 1)) & 1 && (it->state[0] & TAGGED_RUN))
        return tagged_element(it, out);
    if (it->depth > 0 && (it->array_bits >> (it->depth - 1)) & 1) {
        /* an element of a packed run */
        const ProtobufCFieldDescriptor *fd = cur_desc(it);
        uint64_t raw;
        if (pf_walk_packed_next(fd->type, &it->p, it->end, &raw) != PF_OK)
            return bad(it, out);
        pf_walk_value(fd, raw, NULL, 0, &v);
        put_value(&v, out);
        return 1;
    }
    const unsigned char *start = it->p;
    pf_reader r = {it->p, it->end};
    pf_field f;
    int rc = pf_next(&r, &f);
    if (rc != PF_OK)
        return bad(it, out);
    it->p = r.p;
    const ProtobufCFieldDescriptor *fd;
    int how = pf_walk_classify(cur_desc(it), &f, &fd);
    if ((how == PF_WALK_VALUE || how == PF_WALK_MESSAGE) &&
        fd->label == PROTOBUF_C_LABEL_REPEATED && it->depth < PF_ARGS_MAX_LEVELS) {
        /* an unpacked repeated field: its run of elements is an ARRAY,
         * read again element by element (tagged_element) */
        const unsigned char *q = pf_walk_run_end(cur_desc(it), &f, how, r.p, it->end);
        out->key.ptr = fd->name;
        out->key.len = strlen(fd->name);
        out->type = TREAD_ARG_ARRAY_BEGIN;
        push(it, fd, start, (size_t)(q - start), 2);
        return 1;
    }
    if (how == PF_WALK_UNKNOWN) {
        char *key = (char *)&it->state[1];
        int n = snprintf(key, 3 * sizeof(uint64_t), "%u", (unsigned)f.num);
        out->key.ptr = key;
        out->key.len = (size_t)n;
        if (f.wire == PF_WIRE_LEN || f.wire == PF_WIRE_GROUP_START) {
            out->type = TREAD_ARG_BYTES;
            out->v.s.ptr = (const char *)f.data;
            out->v.s.len = f.len;
        } else {
            put_uint(out, f.v);
        }
        return 1;
    }
    out->key.ptr = fd->name;
    out->key.len = strlen(fd->name);
    if (how == PF_WALK_VALUE) {
        pf_walk_value(fd, f.v, f.data, f.len, &v);
        put_value(&v, out);
    } else if (it->depth >= PF_ARGS_MAX_LEVELS) {
        out->type = TREAD_ARG_BYTES; /* too deep: the raw encoding */
        out->v.s.ptr = (const char *)f.data;
        out->v.s.len = f.len;
    } else if (how == PF_WALK_MESSAGE) {
        out->type = TREAD_ARG_DICT_BEGIN;
        push(it, fd->descriptor, f.data, f.len, 0);
    } else {
        out->type = TREAD_ARG_ARRAY_BEGIN;
        push(it, fd, f.data, f.len, 1);
    }
    return 1;
}

static void pf_proto_skip(tread_args_iter *it)
{
    if (it->depth <= 0)
        return;
    if (it->failed) {
        it->depth--; /* closing: one *_END less to give */
        return;
    }
    pop(it);
}

const tread_args_codec tread__proto_args_codec = {
    .init = pf_proto_init,
    .next = pf_proto_next,
    .skip = pf_proto_skip,
};
