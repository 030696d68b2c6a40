/*
 * Shared driver for the libFuzzer harnesses.
 *
 * Each input is parsed twice with the same options: a reference run (the
 * input in one piece, or in fixed pieces, no pauses) and a stressed run
 * (chunk sizes from 1 byte up, a callback asking to stop every N-th call,
 * tread_resume until done). Both runs touch every byte tread hands out,
 * walk every args stream and check the promises of tread.h; then the two
 * runs must have delivered the same callbacks with the same contents
 * (DESIGN.md: the same events whatever the chunking, and resuming works).
 *
 * Every choice comes from a hash of the whole input, so the full input
 * reaches the parser and a crashing input replays the same way; with
 * TREAD_FUZZ_VERBOSE=1 in the environment each run is traced to stderr
 * (feeds, callbacks, statuses).
 */
#ifndef TREAD_FUZZ_HARNESS_H
#define TREAD_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include <tread.h>

/* libFuzzer's entry point, defined by each harness. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_rng {
    uint64_t state;
} fuzz_rng;

/* Seeds the generator with a hash of the input. */
void fuzz_rng_init(fuzz_rng *r, const uint8_t *data, size_t size);
uint64_t fuzz_rng_next(fuzz_rng *r);
/* A number in [0, n) (n > 0). */
uint64_t fuzz_rng_below(fuzz_rng *r, uint64_t n);

/* How one run feeds its input. */
typedef struct fuzz_plan {
    int stressed;             /* 0: reference run; 1: chunked and paused */
    size_t max_chunk;         /* largest piece passed to one tread_feed */
    uint64_t decoded_budget;  /* stop feeding past this many decoded bytes
                                 (0: no limit); bounds decompression bombs */
    tread_format format;      /* the forced format, or UNKNOWN */
    uint64_t digest_seed;     /* the digest starts from it: a byte range's
                                 run goes on from the one before */
} fuzz_plan;

#define FUZZ_MAX_COUNTERS 160

/* What one run delivered. */
typedef struct fuzz_outcome {
    uint64_t digest;          /* hash of every callback and its contents */
    uint64_t events, warnings, records;
    tread_status status;      /* of the last call */
    tread_error error;
    uint64_t error_offset;
    char error_message[256];
    int stopped;              /* fed only part of the input (budget) */
    tread_stats stats;        /* tread_get_stats at the end of the run */
    size_t ncounters;         /* tread_get_format_counters at the end: how
                                 many in all, the first FUZZ_MAX_COUNTERS
                                 copied */
    struct fuzz_counter {
        char name[64];
        uint64_t value;
    } counters[FUZZ_MAX_COUNTERS];
    int inflate_damage;       /* a cut or damaged deflate stream was
                                 warned about (Perfetto compressed packets,
                                 a cut gzip stream) */
} fuzz_outcome;

/* Parses data with p (configured, callbacks not set) following the plan. */
void fuzz_run(tread_parser *p, const fuzz_plan *plan, const uint8_t *data,
              size_t size, fuzz_outcome *out);

/* Fails unless the two runs delivered the same thing. */
void fuzz_compare(const fuzz_outcome *reference, const fuzz_outcome *stressed);

/* Fails unless the two runs, fed the same input with the same options
 * (chunking and pausing aside) and both ending without an error, end with
 * the same statistics (tread_get_stats, fast_records aside: how many
 * records a fast path takes depends on where the feeds cut) and the same
 * format counters (tread_get_format_counters: names, order, values). */
void fuzz_compare_counts(const fuzz_outcome *reference, const fuzz_outcome *stressed);

/* Fails unless the two runs' errors have the same offset and message
 * (for runs fed the same way: where an error is found may depend on the
 * chunking). */
void fuzz_compare_errors(const fuzz_outcome *reference, const fuzz_outcome *run);

/* Fails unless runs with the inflate engines zlib and isa-l
 * (TREAD_OPT_INFLATE), fed the same way, agree: the same callbacks and
 * contents; where a deflate stream is cut or damaged, the same verdict
 * (isa-l may find damage a few bytes later and leave the symbol before a
 * cut undecoded: tread(3)). */
void fuzz_compare_engines(const fuzz_outcome *zlib, const fuzz_outcome *isal);

/* An option set on both runs of fuzz_forced_pair. */
typedef struct fuzz_option {
    tread_option opt;
    int64_t value;
} fuzz_option;

/* Parses data twice with fmt forced, decompression off and the n options
 * set: a reference run and a stressed one (chunked, paused), which must
 * deliver the same callbacks, errors and counts (fuzz_compare,
 * fuzz_compare_errors, fuzz_compare_counts). The text harnesses' whole
 * check. */
void fuzz_forced_pair(tread_format fmt, const fuzz_option *opts, size_t n, const uint8_t *data,
                      size_t size);

/* 1 when this build of tread has isa-l (TREAD_OPT_INFLATE 1). */
int fuzz_have_isal(void);

/* Reports a broken invariant and aborts (libFuzzer records the input). */
_Noreturn void fuzz_fail(const char *what);

#endif
