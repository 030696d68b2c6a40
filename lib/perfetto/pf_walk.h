/*
 * The reflective walk's shared pieces (lib/perfetto/pf_walk.c): how a wire
 * field is read against a protoc-c message descriptor. The push walk
 * (tread_perfetto_walk) and the lazy args codec (TREAD_ARGS_PROTO,
 * pf_walk_args.c) both use them, so both see a message the same way.
 */
#ifndef TREAD_PERFETTO_PF_WALK_H
#define TREAD_PERFETTO_PF_WALK_H

#include <protobuf-c/protobuf-c.h>
#include <tread/perfetto.h>
#include "perfetto/pf_wire.h"

/* How a wire field reads against its message's descriptor. */
enum {
    PF_WALK_UNKNOWN = 0, /* not declared, or a wire type the type cannot have */
    PF_WALK_VALUE,       /* one value of the declared type */
    PF_WALK_MESSAGE,     /* a nested message (f->data, f->len) */
    PF_WALK_PACKED       /* a packed run of a repeated scalar (f->data) */
};

/* A field's value (pf_walk_value) as a tread_arg: enums by name, unsigned
 * values above INT64_MAX as UINT, strings and bytes pointing at data. */
void pf_walk_arg_value(const ProtobufCFieldDescriptor *fd, uint64_t raw,
                       const unsigned char *data, size_t len, tread_arg *out);

/* Where the run of elements of an unpacked repeated field that begins
 * with f (classified how in md, already read, the next field at p) ends:
 * at the first field of another number, or classified otherwise, or that
 * does not frame. The args codecs give a run as one array. */
const unsigned char *pf_walk_run_end(const ProtobufCMessageDescriptor *md, const pf_field *f,
                                     int how, const unsigned char *p, const unsigned char *end);

/* Classifies f: *fd is its field descriptor (NULL when unknown). */
int pf_walk_classify(const ProtobufCMessageDescriptor *md, const pf_field *f,
                     const ProtobufCFieldDescriptor **fd);

/* Field num of message type t when it is a message field: its name and
 * type (what a walk of t reports as TREAD_PF_MESSAGE_BEGIN for it), else
 * 0. */
int pf_walk_message_field(const tread_perfetto_msgtype *t, uint32_t num, const char **name,
                          const tread_perfetto_msgtype **type);

/* The wire type one element of a scalar type has. */
int pf_walk_elem_wire(ProtobufCType t);

/* Reads the next element of a packed run at *pp (< end) of type t as a raw
 * wire value. PF_OK or PF_BAD. */
int pf_walk_packed_next(ProtobufCType t, const unsigned char **pp,
                        const unsigned char *end, uint64_t *raw);

/* Fills out->type, v, enum_name, data/len from a value of field fd: raw is
 * the varint/fixed value, (data, len) a string/bytes payload. */
void pf_walk_value(const ProtobufCFieldDescriptor *fd, uint64_t raw,
                   const unsigned char *data, size_t len,
                   tread_perfetto_field *out);

#endif
