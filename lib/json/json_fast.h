/*
 * The fast path for plain event records.
 *
 * yajl with callbacks costs about as much as json_verify before tread does
 * any work of its own, so records are read here instead wherever that is
 * safe: between two elements of traceEvents[], samples[] or
 * systemTraceEvents.events[], a record made only of strict JSON (no
 * escapes, comments, NaN, trailing commas; every token within the limits;
 * wholly inside the current chunk) is scanned directly into the record's
 * token stream, exactly as the yajl callbacks would have built it, and
 * emitted with json_emit. Anything else is left to the filter and yajl,
 * which start again from the last record boundary, so the fast path never
 * decides what a doubtful byte means. The numbers of a .cpuprofile's
 * samples[] and timeDeltas[] are read here too, each followed by plain
 * bytes up to the next number or the array's end (json_fast.c
 * fast_numbers).
 */
#ifndef TREAD_JSON_FAST_H
#define TREAD_JSON_FAST_H

#include "json/json_decoder.h"

enum {
    FAST_DONE = 0,  /* everything up to len was read */
    FAST_BAIL,      /* *pos is where the filter and yajl take over: a value
                       that is not a plain record */
    FAST_CUT,       /* the same, at the end of the bytes at hand or of the
                       array (no sign that the records are not plain) */
    FAST_PAUSED,    /* a callback asked to stop after the record before *pos */
    FAST_ERROR,     /* the error is recorded in the parser */
    FAST_RANGE_END  /* a record begins at or after TREAD_OPT_RANGE_END */
};

/* Reads records from data[*pos..len), data[0] being at input offset
 * d->p->dec_offset, while they are plain; *pos moves past each. */
int json_fast_run(json_decoder *d, const unsigned char *data, size_t len, size_t *pos);

/* The scanner alone: the record at s[0] == '{' within s[0..n), appended to
 * d->rec.tok (fields noted). Returns the length of its text, or 0 when the
 * record is not plain or not whole (*cut set: it may go on past s + n). */
size_t json_fast_record(json_decoder *d, const unsigned char *s, size_t n, int *cut);

#endif
