/*
 * The FXT decoder: framing (fxt_decoder.c, with the fast readers of plain
 * event and string records inline from fxt_fast.h), records to events
 * (fxt_records.c, fxt_events.c, with the callbacks in fxt_emit.c), large
 * records streamed (fxt_large.c), per-provider tables (fxt_tables.c), lazy
 * arguments (fxt_args.c), ticks (fxt_time.c).
 *
 * Records are read straight from the caller's bytes when a whole record is
 * there; one that straddles two feeds is gathered in rbuf (at most 32 KiB).
 * A large record (type 15) keeps only its header part in rbuf and passes
 * its payload on in pieces as it arrives.
 *
 * Pausing inside a record: every callback a record makes (raw hook,
 * warnings, events, blob pieces) is a numbered step. When an event or
 * piece callback asks to stop, the record is kept in rbuf with the number
 * of steps taken; on resume it is read again and the steps already taken
 * are skipped (reading a record is deterministic and its effects on the
 * tables idempotent, so the rest comes out exactly as it would have).
 */
#ifndef TREAD_FXT_DECODER_H
#define TREAD_FXT_DECODER_H

#include <tread/fxt.h>
#include "core/parser.h"
#include "fxt/fxt_args.h"
#include "fxt/fxt_tables.h"

/* Largest blob piece handed to the blob callback. Pieces of a payload are
 * cut at multiples of this from its start, whatever the input chunking. */
#define FXT_PIECE_BYTES 4096u

/* What reading a record returns. */
enum { FXT_OK = 0, FXT_PAUSE = 1, FXT_FAIL = -1, FXT_SLOW = 2 };

enum {
    FXT_LARGE_NONE = 0,
    FXT_LARGE_HEADER,   /* gathering the header part in rbuf */
    FXT_LARGE_EMIT,     /* header part read: its callbacks are being made */
    FXT_LARGE_PAYLOAD,  /* passing the payload on */
    FXT_LARGE_SKIP      /* discarding the rest of the record */
};

typedef struct fxt_large {
    int phase;
    int verdict;            /* fxt_large_parse's result for the header */
    uint64_t total;         /* the record's bytes */
    uint64_t done;          /* of which consumed */
    size_t need;            /* HEADER: bytes rbuf must hold to parse on */
    size_t header_len;
    uint64_t payload_len, payload_done;
    unsigned char *piece;   /* FXT_PIECE_BYTES: a piece split across feeds */
    size_t piece_len;
    tread_blob blob;
    int truncated_piece_sent;
    char why[96];           /* why the header part is malformed */
} fxt_large;

typedef struct fxt_counters {
    uint64_t by_type[16];       /* records read, by type (their sum: all) */
    uint64_t provider_sections;
    uint64_t string_misses, thread_misses;
    uint64_t index0_ignored;
    uint64_t ts_overflows;
    uint64_t blob_bytes;
    uint64_t blobs;
} fxt_counters;

typedef struct fxt_decoder {
    tread_parser *p;
    fxt_tables tables;
    fxt_provider *cur;          /* provider of the records being read */
    uint64_t offset;            /* input bytes consumed */

    /* A record gathered across feeds, or a whole record paused inside, or
     * a large record's header part. */
    tread_buf rbuf;
    size_t need;                /* bytes the gathered record needs; 0: none */
    uint64_t rec_offset;
    int paused_in_record;       /* rbuf holds a record to read again */

    /* the callbacks of the current record */
    unsigned step, resume_step;
    int raw_done;

    fxt_large large;

    /* what events of the current record point into */
    unsigned char *shadow;
    size_t shadow_cap;
    fxt_args_ctx actx;
    tread_fxt_record rec;
    tread_event *ev;            /* see fxt_event_init (fxt_emit.h); 64-byte
                                   aligned (tread_malloc_line), in ev_mem */
    void *ev_mem;
    unsigned ev_dirty;          /* FXT_EV_* groups of ev set since cleared */
    uint32_t ev_flags;          /* flags every event starts with (provider) */
    uint64_t flow_id;

    int finished;
    /* byte ranges (TREAD_OPT_RANGE_*): the next offset where the range
     * begins or ends (UINT64_MAX: none) */
    uint64_t range_mark;
    int nested;             /* a sub-trace of another decoder (a JSON
                               trace's systemTraceEvents): the byte range
                               is the container's, never this one's */
    fxt_counters c;
} fxt_decoder;

/* ---- records (fxt_records.c; callbacks in fxt_emit.h) ----------------- */

/* Reads one whole normal record. FXT_OK, FXT_PAUSE (an event or piece
 * callback asked to stop; d->step steps were taken) or FXT_FAIL. */
int fxt_record(fxt_decoder *d, const unsigned char *r, size_t len, uint64_t off);

/* ---- large records (fxt_large.c) -------------------------------------- */

/* A large record (header word h) starts at input offset off; its first
 * have bytes (0 or 8) are in rbuf already. */
void fxt_large_start(fxt_decoder *d, uint64_t h, uint64_t off, size_t have);
/* Consumes bytes of the large record in progress (*used of them). */
tread_status fxt_large_feed(fxt_decoder *d, const unsigned char *data, size_t len, size_t *used);
/* Makes the header part's callbacks (again, after a pause). */
tread_status fxt_large_emit(fxt_decoder *d);
/* The input ended inside the large record. */
tread_status fxt_large_truncated(fxt_decoder *d);

/* Grows the shadow buffer for a record of n bytes. 0 or -1. */
int fxt_shadow_reserve(fxt_decoder *d, size_t n);

#endif
