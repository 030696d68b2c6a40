/*
 * The parser handle and the push pipeline:
 *   caller bytes -> decompress (sniffed) -> sniff format -> decoder
 * Decoders report events, warnings and errors through the tread__* calls
 * below, which keep the statistics and turn a callback's non-zero return
 * into a stop request honoured at the next event boundary.
 */
#ifndef TREAD_CORE_PARSER_H
#define TREAD_CORE_PARSER_H

#include <tread.h>
#include <tread/json.h>
#include "core/alloc.h"
#include "core/buf.h"
#include "core/decompress.h"
#include "core/decoder.h"
#include "core/worker.h"

enum { P_NEW = 0, P_RUNNING, P_PAUSED, P_FINISHED, P_ERROR };

struct tread_parser {
    tread_alloc alloc;
    tread_callbacks cb;
    void *user;

    /* options */
    int forced_format;
    int max_depth;
    size_t max_event_bytes;
    size_t max_string_bytes;
    int lenient;
    int decompress;
    int64_t max_warnings_reported;
    int zstd_window_log_max;
    int json_fast_path;
    int perfetto_fast_path;
    int decompress_thread;      /* -1 auto: with the default allocator */
    int inflate_engine;         /* TREAD_INFLATE_* (TREAD_OPT_INFLATE) */
    uint64_t max_decompressed_bytes;
    uint64_t max_interned_bytes;
    size_t max_line_bytes;
    size_t max_profile_nodes;
    uint64_t max_tracedat_meta_bytes;
    uint64_t range_begin, range_end; /* TREAD_OPT_RANGE_*: [0, UINT64_MAX)
                                        is no range */

    int state;
    int pause_in_finish;
    int stop_requested;
    uint32_t ftrace_texts;      /* ftrace decoders created (tread_ftrace_line.text) */
    tread_format top_format;    /* the input's format: stats.format is a
                                   sub-trace's while it is fed (sys_sub.c),
                                   tread_get_stats reports this one */

    /* compression stage */
    unsigned char head[4];
    size_t head_len;
    int compression_known;
    tread_decompressor dz;
    unsigned char *dz_out;      /* decompressed, not yet consumed */
    const unsigned char *dz_piece; /* what dz_out_pos/_len index: dz_out,
                                      or a piece of dzw's */
    size_t dz_out_pos, dz_out_len;
    /* the decompression thread (TREAD_OPT_DECOMPRESS_THREAD): it expands
     * a copy of each slice of input while the decoder reads what came out */
    tread_worker *dzw;
    int dzw_active;             /* a slice is with dzw */
    struct tread_dz_job {
        tread_decompressor *dz; /* &dz: dzw's while dzw_active */
        const unsigned char *in;
        size_t in_len;
        int trailing;           /* garbage after the last gzip member */
    } dzj;
    tread_buf dz_in;            /* the slice, dzw's copy */
    int dz_truncation_reported;
    int dz_trailing_pending;

    /* raw input left over by a pause */
    tread_buf pending_raw;
    size_t pending_raw_pos;

    /* format stage */
    tread_buf sniff;
    size_t sniff_pos;           /* held bytes already decoded */
    int format_known;
    /* A forced format (TREAD_OPT_FORMAT) is checked against the sniffer's
     * verdict on the same first bytes, whatever the chunking; the
     * TREAD_WARN_FORMAT_MISMATCH warning comes at the end of input, the
     * one place that is the same for every chunking. */
    tread_buf forced_check;     /* first bytes, while the sniffer is undecided */
    int forced_checking;
    tread_format forced_seen;   /* the verdict, once decided */
    int forced_reported;
    const tread_decoder_ops *dec_ops;
    void *dec;
    uint64_t dec_offset;        /* decompressed bytes handed to the decoder */

    /* errors */
    tread_error err;
    uint64_t err_offset;
    char err_msg[256];

    tread_stats stats;

    /* a byte range: before range_begin the callbacks are parked in
     * range_cb and none are made; range_done once past range_end */
    int in_prefix;
    int range_done;
    tread_callbacks range_cb;

    /* tread_parse_fd / tread_parse_path */
    int src_fd;
    int64_t src_start;          /* the fd's offset where the input began,
                                   -1 when it cannot seek (a trace.dat
                                   decoder reads such a file itself) */
    int src_owned;
    int src_eof;
    unsigned char *read_buf;    /* reads on the caller's thread */
    int read_thread;            /* TREAD_OPT_READ_THREAD */
    tread_worker *raw;          /* else the read-ahead thread */
    struct tread_read_job {     /* its job: touched by it alone while it runs */
        int fd;
        int err;                /* errno of a failed read */
    } raj;
};

/* Whether the parser may use a helper thread (TREAD_OPT_DECOMPRESS_THREAD:
 * 1, or -1 with the default allocator). */
int tread__may_use_thread(const tread_parser *p);

/* Byte ranges (TREAD_OPT_RANGE_*): a decoder that supports them
 * (tread_decoder_ops.ranges) calls tread__range_enter at the first record
 * that begins at or after range_begin (callbacks back, stats from zero),
 * and tread__range_stop at the first that begins at or after range_end;
 * the parser then ignores the rest of the input. */
void tread__range_enter(tread_parser *p);
void tread__range_stop(tread_parser *p);

/* Delivers an event (fills in format). */
void tread__emit(tread_parser *p, tread_event *ev);
/* tread__emit inline, for decoders' per-event loops: the same, and
 * returns 1 when this callback asked to stop (stop_requested is then set). */
static inline int tread__emit_inline(tread_parser *p, tread_event *ev)
{
    ev->format = p->stats.format;
    p->stats.events++;
    if ((unsigned)ev->kind < TREAD_EVENT_KIND_COUNT_)
        p->stats.events_by_kind[ev->kind]++;
    if (p->cb.event && p->cb.event(p->user, ev)) {
        p->stop_requested = 1;
        return 1;
    }
    return 0;
}
/* Delivers a JSON raw record to the json_raw hook. */
void tread__emit_json_raw(tread_parser *p, const tread_json_raw *raw);
/* Delivers a Perfetto packet / FXT record to its raw hook (counts it in
 * stats.records), and a blob piece to the blob callback. */
void tread__emit_perfetto_packet(tread_parser *p, const tread_perfetto_packet *pkt);
static inline void tread__emit_fxt_record(tread_parser *p, const tread_fxt_record *rec)
{
    p->stats.records++;
    if (p->cb.fxt_record && p->cb.fxt_record(p->user, rec))
        p->stop_requested = 1;
}
void tread__emit_blob(tread_parser *p, const tread_blob *b);
/* Counts a warning and reports it (printf-style message). */
void tread__warn(tread_parser *p, tread_warning_kind kind, uint64_t offset,
                 const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Records an error; returns TREAD_STATUS_ERROR. */
tread_status tread__fail(tread_parser *p, tread_error err, uint64_t offset,
                         const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* tread_parse_fd's read loop; tread_resume goes back into it. */
tread_status tread__read_fd_loop(tread_parser *p);

/* Ends the read-ahead thread and closes an fd the parser opened. */
void tread__close_source(tread_parser *p);

#endif
