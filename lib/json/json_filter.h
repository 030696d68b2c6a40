/*
 * The byte filter in front of yajl.
 *
 * yajl is strict JSON; real traces are not always. The filter walks the
 * bytes once, tracking strings and comments, and hands yajl everything as
 * zero-copy slices of the input except where it must rewrite:
 *   - // and block comments are removed (always accepted);
 *   - lenient mode: a leading UTF-8 BOM is dropped, a comma before ] or }
 *     is dropped, and NaN/nan/Infinity/inf/-Infinity/-inf become "0"
 *     with the real value passed beside (on_special);
 *   - strings and numbers longer than the limit stop the parse, since yajl
 *     would otherwise buffer them whole.
 * It also owns the pause protocol: when the sink (yajl) stops after a
 * value, the filter reports how many input bytes it consumed, and resumes
 * from there in its value state.
 */
#ifndef TREAD_JSON_FILTER_H
#define TREAD_JSON_FILTER_H

#include <stddef.h>
#include <stdint.h>
#include "core/parser.h"

/* JSON's whitespace (RFC 8259). */
static inline int json_is_ws(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

enum { JSON_SPECIAL_NAN = 1, JSON_SPECIAL_POS_INF, JSON_SPECIAL_NEG_INF };

/* Passes a slice to yajl. in_off is the input offset of s[0] (for
 * synthetic text, of the token it stands for). Returns 0 when all was
 * taken, 1 when paused after *taken bytes, -1 on error (already recorded
 * in the parser). */
typedef int (*json_sink_fn)(void *ctx, const unsigned char *s, size_t n,
                            uint64_t in_off, int synthetic, size_t *taken);
/* Announces that the next number yajl reports is a special value. */
typedef void (*json_special_fn)(void *ctx, int kind, const char *text, size_t len,
                                uint64_t off);

/* systemTraceEvents streaming (json_sysstr.c): the filter asks the
 * decoder whether the string about to start is the top-level
 * systemTraceEvents (ASK: 1 = stream it into *f->sub), says when the
 * sub-trace paused (PAUSED), and when the string ended (END, or TRUNC at
 * the end of input: 0 done, 1 paused, -1 error). */
enum { JSON_STREAM_ASK = 0, JSON_STREAM_PAUSED, JSON_STREAM_END, JSON_STREAM_TRUNC };
typedef int (*json_stream_fn)(void *ctx, int op, uint64_t off);

struct sys_sub;

typedef struct json_filter {
    tread_parser *p;
    json_sink_fn sink;
    json_special_fn on_special;
    json_stream_fn stream;    /* NULL: strings are never streamed */
    void *ctx;
    int lenient;
    uint64_t max_token;

    int state;
    int in_number;
    int num_exp;              /* the number's last byte was e or E */
    int cut_token;            /* finish found a token cut short */
    uint64_t run;             /* length of the current string/number */
    uint64_t run_off;         /* where it started */
    int comma_held;
    uint64_t comma_off;
    unsigned char word[20];
    size_t word_len;
    uint64_t word_off;
    int bom_pos;              /* bytes of a BOM matched so far; -1 done */
    tread_buf held;           /* a string/number cut by a chunk boundary:
                                 yajl re-lexes a buffered partial token
                                 from its start on every call, so small
                                 chunks would make long tokens quadratic */
    uint64_t held_off;
    int rescan;               /* held bytes to scan again after a stop */
    unsigned char replay[24]; /* synthetic bytes yajl has not taken yet */
    size_t replay_len;
    uint64_t replay_off;

    /* a streamed systemTraceEvents string */
    int key_pending;          /* "systemTraceEvents" just ended: a key? */
    struct sys_sub *sub;      /* where its unescaped text goes */
    int esc;                  /* 0, 1 after '\', 2..5 in \uXXXX */
    unsigned esc_u;           /* the \u code unit read so far */
    unsigned hi_surrogate;    /* a high surrogate waiting for its pair */
    uint64_t esc_off;         /* where the escape being read started */

    /* the last held token given to yajl: its start, and the offset of the
     * slice that carried its rest (a top-level string's offset) */
    uint64_t held_tok_off;
    uint64_t held_rest_off;
} json_filter;

void json_filter_init(json_filter *f, tread_parser *p, json_sink_fn sink,
                      json_special_fn on_special, void *ctx);

/* Filters d[0..n) found at input offset off. Returns 0 (all consumed),
 * 1 (paused: *consumed bytes were used) or -1 (error). */
int json_filter_feed(json_filter *f, const unsigned char *d, size_t n,
                     uint64_t off, size_t *consumed);

void json_filter_free(json_filter *f);

/* Is the input, as far as it went, cut inside a token (string, number,
 * literal)? Valid after json_filter_finish. */
int json_filter_mid_token(const json_filter *f);

/* Is the filter between tokens with nothing held or pending, so that the
 * caller may read the next bytes itself? */
int json_filter_idle(const json_filter *f);

/* End of input: flushes held text. Returns like json_filter_feed. */
int json_filter_finish(json_filter *f, uint64_t off);

#endif
