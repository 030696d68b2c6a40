/*
 * The reflective walk: any message's bytes read against the schema's
 * protoc-c descriptors (proto/), with the zero-copy wire reader
 * (pf_wire.h). protobuf-c's unpack is never used: nothing is allocated and
 * strings point into the bytes. doc/formats/perfetto.md, "The schema and
 * the reflective walk".
 *
 * The descriptors' field tables are what protobuf-c's own unpack uses, so
 * the wire rules below are protobuf's: a field whose wire type its type
 * cannot have is unknown; a repeated scalar accepts a packed run and
 * single values alike; varints are truncated to 32 bits for 32-bit types.
 */
#include <string.h>

#include "perfetto/pf_walk.h"
#include "perfetto/pf_walk_schema.h"

/* ------------------------------------------------------------------------ */
/* The schema index                                                         */

const tread_perfetto_msgtype *tread_perfetto_msgtype_find(const char *full_name)
{
    if (!full_name)
        return NULL;
    size_t lo = 0, hi = pf_schema_index_len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(full_name, pf_schema_index[mid].name);
        if (c == 0)
            return (const tread_perfetto_msgtype *)(const void *)pf_schema_index[mid].desc;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

static const ProtobufCMessageDescriptor *desc_of(const tread_perfetto_msgtype *t)
{
    return (const ProtobufCMessageDescriptor *)(const void *)t;
}

static const tread_perfetto_msgtype *type_of(const ProtobufCMessageDescriptor *d)
{
    return (const tread_perfetto_msgtype *)(const void *)d;
}

const char *tread_perfetto_msgtype_name(const tread_perfetto_msgtype *t)
{
    return t ? desc_of(t)->name : NULL;
}

const char *tread_perfetto_type_name(tread_perfetto_type t)
{
    static const char *const names[] = {
        "unknown", "int32", "sint32", "sfixed32", "int64", "sint64", "sfixed64",
        "uint32", "fixed32", "uint64", "fixed64", "float", "double", "bool",
        "enum", "string", "bytes", "message"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "unknown";
}

/* ------------------------------------------------------------------------ */
/* Reading a field against its descriptor                                   */

int pf_walk_elem_wire(ProtobufCType t)
{
    switch (t) {
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
        return PF_WIRE_FIXED32;
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return PF_WIRE_FIXED64;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
        return PF_WIRE_LEN;
    default:
        return PF_WIRE_VARINT;
    }
}

int pf_walk_classify(const ProtobufCMessageDescriptor *md, const pf_field *f,
                     const ProtobufCFieldDescriptor **fdp)
{
    const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(md, f->num);
    *fdp = NULL;
    if (!fd)
        return PF_WALK_UNKNOWN;
    int want = pf_walk_elem_wire(fd->type);
    if (f->wire == want) {
        *fdp = fd;
        return fd->type == PROTOBUF_C_TYPE_MESSAGE ? PF_WALK_MESSAGE : PF_WALK_VALUE;
    }
    if (f->wire == PF_WIRE_LEN && fd->label == PROTOBUF_C_LABEL_REPEATED && want != PF_WIRE_LEN) {
        *fdp = fd;
        return PF_WALK_PACKED;
    }
    return PF_WALK_UNKNOWN;
}

int pf_walk_message_field(const tread_perfetto_msgtype *t, uint32_t num, const char **name,
                          const tread_perfetto_msgtype **type)
{
    pf_field f;
    memset(&f, 0, sizeof f);
    f.num = num;
    f.wire = PF_WIRE_LEN;
    const ProtobufCFieldDescriptor *fd;
    if (!t || pf_walk_classify(desc_of(t), &f, &fd) != PF_WALK_MESSAGE)
        return 0;
    *name = fd->name;
    *type = type_of(fd->descriptor);
    return 1;
}

int pf_walk_packed_next(ProtobufCType t, const unsigned char **pp,
                        const unsigned char *end, uint64_t *raw)
{
    switch (pf_walk_elem_wire(t)) {
    case PF_WIRE_FIXED32:
        if (end - *pp < 4)
            return PF_BAD;
        *raw = pf_le32(*pp);
        *pp += 4;
        return PF_OK;
    case PF_WIRE_FIXED64:
        if (end - *pp < 8)
            return PF_BAD;
        *raw = pf_le64(*pp);
        *pp += 8;
        return PF_OK;
    default:
        return pf_varint(pp, end, raw);
    }
}

void pf_walk_value(const ProtobufCFieldDescriptor *fd, uint64_t raw,
                   const unsigned char *data, size_t len, tread_perfetto_field *out)
{
    out->type = (tread_perfetto_type)(fd->type + 1);
    out->enum_name = NULL;
    out->data = NULL;
    out->len = 0;
    out->v.u = 0;
    switch (fd->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SFIXED32:
        out->v.i = (int32_t)(uint32_t)raw;
        break;
    case PROTOBUF_C_TYPE_SINT32: {
        uint32_t u = (uint32_t)raw;
        out->v.i = (int32_t)((u >> 1) ^ (0u - (u & 1)));
        break;
    }
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SFIXED64:
        out->v.i = (int64_t)raw;
        break;
    case PROTOBUF_C_TYPE_SINT64:
        out->v.i = pf_zigzag(raw);
        break;
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
        out->v.u = (uint32_t)raw;
        break;
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
        out->v.u = raw;
        break;
    case PROTOBUF_C_TYPE_FLOAT:
        out->v.d = pf_float((uint32_t)raw);
        break;
    case PROTOBUF_C_TYPE_DOUBLE:
        out->v.d = pf_double(raw);
        break;
    case PROTOBUF_C_TYPE_BOOL:
        out->v.b = raw != 0;
        break;
    case PROTOBUF_C_TYPE_ENUM: {
        out->v.i = (int32_t)(uint32_t)raw;
        const ProtobufCEnumValue *ev =
            protobuf_c_enum_descriptor_get_value(fd->descriptor, (int)out->v.i);
        out->enum_name = ev ? ev->name : NULL;
        break;
    }
    default: /* string, bytes, message */
        out->data = data;
        out->len = len;
        break;
    }
}

/* ------------------------------------------------------------------------ */
/* The push walk                                                            */

typedef struct walk {
    const unsigned char *base;
    int max_depth;
    tread_perfetto_walk_cb cb;
    void *user;
    tread_perfetto_walk_result *res;
} walk;

static int fail(walk *w, tread_perfetto_walk_error e, const unsigned char *at, const char *msg)
{
    if (w->res) {
        w->res->error = e;
        w->res->offset = (uint64_t)(at - w->base);
        w->res->message = msg;
    }
    return -(int)e;
}

static int walk_message(walk *w, const ProtobufCMessageDescriptor *md,
                        const unsigned char *p, size_t len, int depth)
{
    pf_reader r;
    pf_field f;
    int rc;
    pf_reader_init(&r, p, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        const ProtobufCFieldDescriptor *fd;
        tread_perfetto_field o;
        int how = pf_walk_classify(md, &f, &fd);
        o.name = fd ? fd->name : NULL;
        o.number = f.num;
        o.wire_type = f.wire;
        o.depth = depth;
        o.repeated = fd && fd->label == PROTOBUF_C_LABEL_REPEATED;
        o.packed = 0;
        o.msgtype = NULL;
        o.offset = (uint64_t)(f.start - w->base);
        switch (how) {
        case PF_WALK_UNKNOWN:
            o.step = TREAD_PF_UNKNOWN;
            o.type = TREAD_PF_TYPE_UNKNOWN;
            o.v.u = f.v;
            o.enum_name = NULL;
            o.data = f.data; /* LEN payload, a group's contents */
            o.len = f.len;
            if ((rc = w->cb(w->user, &o)) != 0)
                return rc;
            break;
        case PF_WALK_VALUE:
            o.step = TREAD_PF_FIELD;
            pf_walk_value(fd, f.v, f.data, f.len, &o);
            if ((rc = w->cb(w->user, &o)) != 0)
                return rc;
            break;
        case PF_WALK_PACKED: {
            const unsigned char *q = f.data, *end = f.data + f.len;
            o.step = TREAD_PF_FIELD;
            o.packed = 1;
            while (q < end) {
                uint64_t raw;
                o.offset = (uint64_t)(q - w->base);
                if (pf_walk_packed_next(fd->type, &q, end, &raw) != PF_OK)
                    return fail(w, TREAD_PF_WALK_MALFORMED, q, "packed repeated field cut short");
                pf_walk_value(fd, raw, NULL, 0, &o);
                if ((rc = w->cb(w->user, &o)) != 0)
                    return rc;
            }
            break;
        }
        default: { /* PF_WALK_MESSAGE */
            const ProtobufCMessageDescriptor *sub = fd->descriptor;
            if (depth + 1 > w->max_depth)
                return fail(w, TREAD_PF_WALK_TOO_DEEP, f.start, "messages nested deeper than max_depth");
            o.step = TREAD_PF_MESSAGE_BEGIN;
            o.type = TREAD_PF_TYPE_MESSAGE;
            o.v.u = 0;
            o.enum_name = NULL;
            o.data = f.data;
            o.len = f.len;
            o.msgtype = type_of(sub);
            rc = w->cb(w->user, &o);
            if (rc == TREAD_PF_WALK_SKIP)
                break;
            if (rc != 0)
                return rc;
            if ((rc = walk_message(w, sub, f.data, f.len, depth + 1)) != 0)
                return rc;
            o.step = TREAD_PF_MESSAGE_END;
            if ((rc = w->cb(w->user, &o)) != 0)
                return rc;
            break;
        }
        }
    }
    if (rc == PF_BAD)
        return fail(w, TREAD_PF_WALK_MALFORMED, r.p,
                    "malformed field (bad tag or wire type, or cut short)");
    return 0;
}

int tread_perfetto_walk(const tread_perfetto_msgtype *t, const void *data, size_t len,
                        int max_depth, tread_perfetto_walk_cb cb, void *user,
                        tread_perfetto_walk_result *res)
{
    walk w = {(const unsigned char *)data, max_depth ? max_depth : TREAD_PF_WALK_DEFAULT_MAX_DEPTH,
              cb, user, res};
    if (res) {
        res->error = TREAD_PF_WALK_OK;
        res->offset = 0;
        res->message = NULL;
    }
    if (!t || !cb || (!data && len) || max_depth < 0 || max_depth > TREAD_PF_WALK_MAX_DEPTH_LIMIT)
        return fail(&w, TREAD_PF_WALK_MISUSE, w.base, "no type or callback, or max_depth out of range");
    if (!data)
        return 0; /* an empty message (and no pointer arithmetic on NULL) */
    return walk_message(&w, desc_of(t), w.base, len, 0);
}

int tread_perfetto_walk_packet(const tread_perfetto_packet *pk, int max_depth,
                               tread_perfetto_walk_cb cb, void *user,
                               tread_perfetto_walk_result *res)
{
    /* a binary search of ~11 compares: cheaper than any cache would be
     * worth, and no global mutable state */
    const tread_perfetto_msgtype *packet_type =
        tread_perfetto_msgtype_find("perfetto.protos.TracePacket");
    return tread_perfetto_walk(packet_type, pk ? pk->data : NULL, pk ? pk->len : 0,
                               max_depth, cb, user, res);
}

tread_args tread_perfetto_args(const tread_perfetto_msgtype *t, const void *data, size_t len)
{
    tread_args a;
    a.data = (const unsigned char *)data;
    a.len = data ? len : 0;
    a.encoding = TREAD_ARGS_PROTO;
    a.ctx = t;
    return a;
}
