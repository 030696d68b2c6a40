/*
 * The structural scanner behind JSON byte ranges (TREAD_OPT_RANGE_BEGIN):
 * it walks the elements of an array of records (traceEvents[], samples[],
 * systemTraceEvents.events[]) tracking only strings (with escapes),
 * comments and nesting, without decoding a value, until an element begins
 * at or after the range's start (the range's footing) or the array ends.
 *
 * Blocks wholly before the range's start are skimmed for the nesting
 * depth alone (json_scan_blocks.h), the exact scan below taking over from
 * the last element's start where anything needs it.
 *
 * Inside an element it reads 64 bytes a step with SSE2 or AVX2 (x86_64):
 * quote, backslash and bracket masks (with AVX2 also 'P'/'C', so that
 * only strings that may be profile markers are looked at), escaped quotes
 * found from the runs of
 * backslashes, the bytes inside strings as a prefix XOR of the quotes, and
 * only the brackets outside strings visited one by one. Elsewhere (and on
 * every byte without SSE2) a byte-at-a-time state machine does the same.
 * doc/formats/json.md gives its cost against decoding.
 *
 * It also marks an element that may carry state a later record needs: a
 * V8 profile (a string "P", the phase of Profile and ProfileChunk, or
 * "CpuProfile", or a \u escape that could spell either): the decoder
 * reads those elements (muted) instead of skipping them.
 */
#ifndef TREAD_JSON_SCAN_H
#define TREAD_JSON_SCAN_H

#include <stddef.h>
#include <stdint.h>

enum {
    JS_MORE = 0,   /* all bytes scanned */
    JS_START,      /* an element begins at the returned index, at or after
                      begin (not consumed) */
    JS_CLOSE,      /* ']' or '}' between elements at the returned index
                      (not consumed): the array ends (or the input is bad) */
    JS_MARKED      /* a marked element ended just before the returned index */
};

enum { JS_GAP = 0, JS_CONTAINER, JS_STRING, JS_SCALAR }; /* json_scan.elem */

typedef struct json_scan {
    unsigned char *stack;   /* 'm' / 'a' per container open in the element */
    size_t stack_max;       /* deeper ones are counted, not kept */
    uint64_t nest;          /* containers open in the element */
    int elem;               /* JS_GAP between elements, else the element's kind */
    int in_str, esc;        /* inside a string; after its backslash */
    int comment;            /* 0, 1 after '/', 2 line comment, 3 block, 4 block after '*' */
    int marked;             /* the element holds a profile marker */
    int had_value;          /* an element began in the array */
    int had_before;         /* had_value before the current element */
    uint64_t elem_start;    /* offset of the current element's first byte */
    uint64_t str_start;     /* offset of the current string's opening quote */
    uint64_t skim_after;    /* no skim before this offset (json_scan_blocks.h) */
    int portable;           /* 1: byte at a time only (tests) */
    int avx2;               /* the blocks with AVX2 and PCLMUL */
} json_scan;

/* Starts scanning between two elements of an array (had_value: one came
 * before). stack has room for stack_max types. */
void json_scan_start(json_scan *s, unsigned char *stack, size_t stack_max, int had_value);

/* Scans data[*i..n), data[0] being at input offset off, until an event;
 * *i is then where it happened. */
int json_scan_run(json_scan *s, const unsigned char *data, size_t n, size_t *i, uint64_t off,
                  uint64_t begin);

#endif
