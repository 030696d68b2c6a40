/*
 * tread/fxt.h: the raw FXT record hook (tread_callbacks.fxt_record).
 *
 * Every record the decoder frames is handed to the hook before the events
 * made from it, with its words as they are in the input, the provider it
 * belongs to and its byte offset. Large records (type 15) are streamed:
 * the hook sees their header part (everything before the blob payload)
 * when it has arrived; the payload goes to the blob callback in pieces.
 *
 * Record layouts are those of the Fuchsia trace format document
 * (doc/formats/fxt.md in the tread sources maps them to events).
 *
 * Copyright (c) 2026 the tread authors. MIT licensed, see COPYING.
 */
#ifndef TREAD_FXT_H
#define TREAD_FXT_H

#include <tread.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Record types: bits 0..3 of the header word. */
enum {
    TREAD_FXT_METADATA = 0,
    TREAD_FXT_INITIALIZATION = 1,
    TREAD_FXT_STRING = 2,
    TREAD_FXT_THREAD = 3,
    TREAD_FXT_EVENT = 4,
    TREAD_FXT_BLOB = 5,
    TREAD_FXT_USERSPACE_OBJECT = 6,
    TREAD_FXT_KERNEL_OBJECT = 7,
    TREAD_FXT_SCHEDULING = 8,
    TREAD_FXT_LOG = 9,
    TREAD_FXT_LARGE = 15
};

struct tread_fxt_record {
    /* The record's bytes: little-endian 64-bit words, in input order, NOT
     * necessarily 8-byte aligned (read them with tread_fxt_word). Valid
     * until the callback returns. */
    const unsigned char *data;
    size_t len;              /* bytes at data: size_words * 8, except for a
                                large record: its header part */
    uint64_t size_words;     /* the record's size from its header, header
                                word included (bits 4..15; 4..35 for type 15) */
    uint64_t header;         /* the header word */
    unsigned type;           /* record type, TREAD_FXT_* (0..15) */
    uint64_t offset;         /* byte offset of the record in the
                                (decompressed) input */
    /* The provider the record belongs to (provider info / section
     * metadata). has_provider is 0 for records before any provider
     * metadata; a provider that was never announced has an empty name. */
    int has_provider;
    uint32_t provider_id;
    tread_str provider_name;
    /* Where the record's arguments start (byte offset in data) and how many
     * the header announces; args_offset is 0 when the record has none or
     * they could not be located (a malformed record). */
    size_t args_offset;
    unsigned nargs;
    /* 1 when the decoder skips the record: malformed or of a kind it does
     * not know (a TREAD_WARN_BAD_RECORD or TREAD_WARN_UNKNOWN_RECORD
     * warning at its offset follows), or an initialization record with 0
     * ticks per second. A skipped record changes nothing (no table entry,
     * provider switch or rate) and makes no event. */
    int skipped;
};

/* Word i of the record (0 is the header); 0 past the available bytes. */
static inline uint64_t tread_fxt_word(const tread_fxt_record *r, size_t i)
{
    uint64_t w = 0;
    if (i < r->len / 8) {
        const unsigned char *p = r->data + i * 8;
        for (int b = 7; b >= 0; b--)
            w = (w << 8) | p[b];
    }
    return w;
}

#ifdef __cplusplus
}
#endif
#endif /* TREAD_FXT_H */
