/*
 * split_pieces: numbered output pieces under the split contract
 * (doc/convert.md): PREFIX-NNNNN.SUFFIX, each at most max_bytes unless it
 * holds a single event larger on its own, all together at most
 * max_total_bytes; a piece is listed on standard output when complete; on
 * any error the partial piece is removed and the error names the path and
 * says which pieces are complete.
 *
 * The writers above it (convert_sink.c for the converting split,
 * split_fxt.c, split_perfetto.c) decide where pieces start and end; this
 * file owns the files: creating, writing (buffered, straight to the file
 * descriptor), the total guard, removal of a partial piece, the listing.
 */
#ifndef TREAD_TOOLS_SPLIT_PIECES_H
#define TREAD_TOOLS_SPLIT_PIECES_H

#include <stddef.h>
#include <stdint.h>

typedef struct split_pieces split_pieces;

typedef struct split_pieces_config {
    const char *prefix;          /* OUTPREFIX */
    const char *suffix;          /* "json", "pftrace", "fxt", "txt", ... */
    uint64_t max_bytes;          /* --max-bytes */
    uint64_t max_total_bytes;    /* --max-total-bytes, resolved by the caller */
} split_pieces_config;

/* The smallest --max-bytes accepted: room for any piece's header and one
 * small record in every format (doc/convert.md). */
#define SPLIT_MIN_MAX_BYTES 256u

/* The default --max-total-bytes (doc/convert.md): FACTOR times the input's
 * decoded size read so far (Perfetto compressed packets counted expanded),
 * plus SLACK, plus ALLOWANCE per piece (what a piece restates: Perfetto's
 * trace-level packets alone may take 16 KiB). SAME:
 * pieces in the input's own format family; CONVERT: --to another one
 * (binary FXT or Perfetto records grow several times as JSON). */
#define SPLIT_TOTAL_FACTOR_SAME 4u
#define SPLIT_TOTAL_FACTOR_CONVERT 16u
#define SPLIT_TOTAL_SLACK (1u << 20)
#define SPLIT_PIECE_ALLOWANCE (64u << 10)

/* 0, or -1 with the message in err (errlen bytes). */
int split_pieces_new(split_pieces **out, const split_pieces_config *cfg,
                     char *err, size_t errlen);
int split_pieces_begin(split_pieces *sp);             /* creates the next piece; 0 / -1 */
int split_pieces_write(split_pieces *sp, const void *p, size_t n); /* 0 / -1 (write error,
                                                         disk full, past max_total_bytes) */
uint64_t split_pieces_size(const split_pieces *sp);   /* bytes in the current piece */
uint64_t split_pieces_max(const split_pieces *sp);    /* max_bytes */
int split_pieces_is_open(const split_pieces *sp);
void split_pieces_oversize(split_pieces *sp);         /* the current piece holds one event
                                                         larger than max_bytes on its own:
                                                         counted, reported as a warning */
/* What the current piece holds so far restates what earlier pieces hold
 * (a header): said for checkers, which otherwise cannot tell a restated
 * packet from an input packet with the same bytes. Files keep no record. */
void split_pieces_header_end(split_pieces *sp);
int split_pieces_end(split_pieces *sp);               /* flush, close, list its path; 0 / -1 */
const char *split_pieces_error(const split_pieces *sp);   /* after a -1 */
uint64_t split_pieces_count(const split_pieces *sp);  /* pieces completed */
uint64_t split_pieces_total(const split_pieces *sp);  /* bytes in all pieces */
void split_pieces_free(split_pieces *sp);             /* removes a partial (unended) piece */

/* Additions beyond the shared interface. */

/* Pieces that hold one event larger than max_bytes (split_pieces_oversize). */
uint64_t split_pieces_oversized(const split_pieces *sp);
/* Moves the total guard (the default guard follows the input's decoded
 * size as it is read: the caller raises it). */
void split_pieces_set_max_total(split_pieces *sp, uint64_t max_total_bytes);
uint64_t split_pieces_max_total(const split_pieces *sp);
/* A guard that moves with the input: called when a write would pass the
 * current max_total_bytes, it returns the limit in force now (the default
 * --max-total-bytes is a multiple of the input decoded so far). */
typedef uint64_t (*split_pieces_guard_fn)(void *user, const split_pieces *sp);
void split_pieces_set_guard(split_pieces *sp, split_pieces_guard_fn fn, void *user);
/* 1 once a write, create or list has failed (every later call fails). */
int split_pieces_failed(const split_pieces *sp);
/* Pieces numbered from a counter shared with other instances (one split
 * writing pieces of two formats, numbered in input order): a new piece
 * takes *next and increments it. */
void split_pieces_share_numbers(split_pieces *sp, uint64_t *next);
/* The path of piece i (0-based) in buf. */
void split_pieces_path(const split_pieces *sp, uint64_t i, char *buf, size_t len);

#endif
