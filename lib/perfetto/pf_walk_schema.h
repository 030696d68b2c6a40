/*
 * The schema's message index: every protoc-c message descriptor of proto/
 * by full name, sorted (proto/pf_schema_index.c, written by
 * proto/gen_protos.py --index). lib/perfetto/pf_walk.c looks names up in it.
 */
#ifndef TREAD_PERFETTO_PF_WALK_SCHEMA_H
#define TREAD_PERFETTO_PF_WALK_SCHEMA_H

#include <stddef.h>
#include <protobuf-c/protobuf-c.h>

typedef struct pf_schema_entry {
    const char *name;                        /* "perfetto.protos.TracePacket" */
    const ProtobufCMessageDescriptor *desc;
} pf_schema_entry;

extern const pf_schema_entry pf_schema_index[];
extern const size_t pf_schema_index_len;

#endif
