/*
 * convert_json: tread events as Chrome JSON trace records (object form),
 * for `tread convert --to json` and `tread split`. See doc/convert.md for
 * what each kind becomes and what cannot be carried.
 */
#ifndef TREAD_TOOLS_CONVERT_JSON_H
#define TREAD_TOOLS_CONVERT_JSON_H

#include <tread.h>

#include "ndjson_writer.h"
#include "out_buf.h"

typedef struct convert_json {
    ndjson_writer args;   /* writes args objects; its out is set per call */
} convert_json;

void convert_json_init(convert_json *w);
void convert_json_free(convert_json *w);

/* What an event becomes. */
typedef enum cvj_class {
    CVJ_SKIP = 0,   /* nothing: JSON has no record for it (doc/convert.md) */
    CVJ_EVENT,      /* one record */
    CVJ_METADATA    /* one record that names or orders a process or thread:
                       repeated at the start of every `tread split` piece */
} cvj_class;

cvj_class convert_json_classify(const tread_event *ev);

/* Writes the record of an event that is not CVJ_SKIP (no separator).
 * Returns 0, or -1 when out of memory (the record is still valid JSON). */
int convert_json_event(convert_json *w, out_buf *o, const tread_event *ev);

/* The text before the first record and after the last one. */
#define CONVERT_JSON_HEADER "{\"traceEvents\":[\n"
#define CONVERT_JSON_SEPARATOR ",\n"
#define CONVERT_JSON_FOOTER "\n]}\n"

/* The Chrome phase letter that reads back as the event's kind (its own
 * when it does, else the kind's); 'i' for kinds with none (context
 * switches, wakeups, logs); 0 when there is no record for it. */
char convert_phase_of(const tread_event *ev);

/* ns as JSON microseconds, exactly: integer part and three decimals. */
void convert_json_write_us(out_buf *o, int64_t ns);

#endif
