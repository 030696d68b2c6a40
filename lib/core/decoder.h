/*
 * The decoder interface: what a format decoder gives the pipeline, and the
 * one table that maps a tread_format to its decoder. parser.c uses only the
 * table; the sniffer (sniff.c) is the one place that recognises formats.
 * doc/architecture.md describes the contract in full.
 */
#ifndef TREAD_CORE_DECODER_H
#define TREAD_CORE_DECODER_H

#include <tread.h>

struct tread_parser;

typedef struct tread_decoder_ops {
    tread_format format;
    /* A decoder for parser p (it reads p's options), or NULL when out of
     * memory. */
    void *(*create)(struct tread_parser *p);
    /* Consumes decompressed bytes: on TREAD_STATUS_OK all of them, on
     * TREAD_STATUS_PAUSED *consumed of them (the rest comes again on
     * resume, after a call with len 0 that lets the decoder finish the
     * record it stopped inside). */
    tread_status (*feed)(void *dec, const unsigned char *data, size_t len,
                         size_t *consumed);
    /* The end of input. Idempotent once it returned TREAD_STATUS_OK. */
    tread_status (*finish)(void *dec);
    void (*destroy)(void *dec);
    /* Format-specific counters for tread_get_format_counters; may be NULL. */
    size_t (*counters)(const void *dec, tread_counter *out, size_t max);
    /* 1: the decoder honours TREAD_OPT_RANGE_* (see tread__range_enter in
     * parser.h) and zeroes its counters when the range begins. */
    int ranges;
} tread_decoder_ops;

/* The decoder of format f, or NULL when tread has none (yet). */
const tread_decoder_ops *tread__decoder_for(tread_format f);

/* A lazy argument encoding: how tread_args_next reads it. init may be
 * NULL; next returns 1 with *out filled, or 0 at the end (setting
 * it->failed when the data was malformed); skip skips the rest of the
 * container whose *_BEGIN next just returned. */
typedef struct tread_args_codec {
    void (*init)(tread_args_iter *it, const tread_args *a);
    int (*next)(tread_args_iter *it, tread_arg *out);
    void (*skip)(tread_args_iter *it);
} tread_args_codec;

/* The codec of a lazy encoding, or NULL (TREAD_ARGS_TOKENS is core's). */
const tread_args_codec *tread__args_codec(tread_args_encoding e);

/* For a decoder's counters op: stores one counter if room is left.
 * Returns n + 1. */
static inline size_t tread__counter_put(tread_counter *out, size_t max, size_t n,
                                        const char *name, uint64_t value)
{
    if (n < max) {
        out[n].name = name;
        out[n].value = value;
    }
    return n + 1;
}

#endif
