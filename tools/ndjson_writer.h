/*
 * ndjson_writer: one tread_event as one line of JSON, with the key order
 * and null/omission rules documented in doc/cli-ndjson.md.
 */
#ifndef TREAD_TOOLS_NDJSON_WRITER_H
#define TREAD_TOOLS_NDJSON_WRITER_H

#include <tread.h>

#include "out_buf.h"

typedef struct ndjson_writer {
    out_buf *out;
    /* Open containers while walking args: 1 = object, 0 = array. Grown on
     * demand (bounded by the parser's depth limit), never per event. */
    unsigned char *open;
    size_t open_cap;
    int nomem;
} ndjson_writer;

void ndjson_writer_init(ndjson_writer *w, out_buf *out);
void ndjson_writer_free(ndjson_writer *w);

/* Returns 0, or -1 when out of memory (the line is still complete JSON,
 * with the deepest args cut short). */
int ndjson_write_event(ndjson_writer *w, const tread_event *ev);

/* Writes a tread_args sequence as a JSON object (as_object) or array. */
void ndjson_write_args(ndjson_writer *w, const tread_args *a, int as_object);

#endif
