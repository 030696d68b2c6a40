/*
 * convert_sink: where `tread convert` and `tread split` send events. It
 * writes Chrome JSON or Perfetto protobuf through convert_json /
 * convert_perfetto into one output file, or, for split, into numbered
 * pieces of at most max_bytes each that stand alone (doc/convert.md).
 */
#ifndef TREAD_TOOLS_CONVERT_SINK_H
#define TREAD_TOOLS_CONVERT_SINK_H

#include <stdint.h>
#include <stdio.h>

#include <tread.h>

#include "convert_json.h"
#include "convert_perfetto.h"
#include "out_buf.h"

typedef enum convert_to {
    CONVERT_TO_NONE = 0,
    CONVERT_TO_JSON,
    CONVERT_TO_PERFETTO
} convert_to;

/* JSON metadata records (process and thread names, sort indexes) kept to
 * start every split piece with; beyond this, later ones are not repeated
 * (a warning says so). */
#define CONVERT_MAX_REPEATED_METADATA (16u << 20)

typedef struct convert_sink {
    convert_to to;
    uint64_t max_bytes;        /* split: piece size; 0 = one output */
    const char *path;          /* convert: the output ("-" stdout) */
    const char *prefix;        /* split: PREFIX-NNNNN.json / .pftrace */

    FILE *fp;
    out_buf *ob;               /* to fp */
    uint64_t piece_bytes;      /* written to the current piece */
    uint64_t piece_records;
    unsigned piece_no;         /* pieces opened */
    char piece_path[4096];

    convert_json cj;
    convert_perfetto cp;

    /* split to JSON: each record is staged in memory to know its size */
    FILE *mem;
    char *mem_data;
    size_t mem_size;
    out_buf *stage;
    unsigned char *meta;       /* repeated metadata records */
    size_t meta_len, meta_cap;
    int meta_full;

    uint64_t records;          /* records written */
    uint64_t skipped;          /* events with no record in the output */
    int failed;
    char error[512];
} convert_sink;

/* 0, or -1 with sink->error set. */
int convert_sink_open(convert_sink *s, convert_to to, const char *path,
                      const char *prefix, uint64_t max_bytes,
                      uint64_t max_interned);

/* 0, or -1 (failed: stop the parse). */
int convert_sink_event(convert_sink *s, const tread_event *ev);

/* Ends the output (footer, flush, close). 0 or -1. */
int convert_sink_close(convert_sink *s);

void convert_sink_free(convert_sink *s);

#endif
