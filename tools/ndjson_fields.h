/*
 * ndjson_fields: `tread cat --fields LIST`: each event as one JSON object
 * holding only the listed keys, in the order listed, null when the event
 * has no such field. The keys mean what they mean in the full line
 * (doc/cli-ndjson.md).
 */
#ifndef TREAD_TOOLS_NDJSON_FIELDS_H
#define TREAD_TOOLS_NDJSON_FIELDS_H

#include <tread.h>

#include "ndjson_writer.h"

#define NDJSON_MAX_FIELDS 32

typedef struct ndjson_fields {
    int n;
    unsigned char which[NDJSON_MAX_FIELDS];
} ndjson_fields;

/* Parses "name,ts_ns,args". 0, or -1 with *bad pointing at the first
 * unknown name (its length in *bad_len). */
int ndjson_fields_parse(ndjson_fields *f, const char *list, const char **bad,
                        size_t *bad_len);

/* The names accepted, comma-separated, for messages and help. */
const char *ndjson_fields_names(void);

/* Writes one line. 0, or -1 when out of memory (as ndjson_write_event). */
int ndjson_write_fields(ndjson_writer *w, const ndjson_fields *f, const tread_event *ev);

#endif
