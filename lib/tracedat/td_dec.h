/* The trace.dat decoder's state, shared by td_src.c, td_header.c,
 * td_merge.c, td_map.c and td_decoder.c. */
#ifndef TREAD_TRACEDAT_DEC_H
#define TREAD_TRACEDAT_DEC_H

#include "tracedat/td_internal.h"

enum { TD_NEED = 0, TD_DONE = 1, TD_ERROR = -1, TD_PAUSED = 2 };
enum { TD_COMP_NONE = 0, TD_COMP_ZLIB, TD_COMP_ZSTD };

/* Where a kallsyms or printk text lies, to load it when an event first
 * needs it (a file), or loaded as its item is read (a stream). */
typedef struct td_text_loc {
    uint64_t off, size;         /* v6: the text; v7: the section's body */
    int v7, compressed;         /* v7: a section (size word inside), compressed */
    int state;                  /* 0 absent, 1 located, 2 loaded, 3 failed */
} td_text_loc;

/* One CPU's data. */
typedef struct td_cpu {
    uint32_t cpu;
    uint32_t buffer;            /* index of its buffer (instance) */
    uint64_t off, size;         /* its bytes in the file */
    uint64_t next;              /* file offset of the next page (or chunk) */
    uint32_t chunks_left;       /* compressed: chunks not yet read */
    int counted;                /* compressed: the chunk count was read */
    unsigned char *page;        /* file mode: the page (or chunk) held */
    size_t page_len;            /* bytes in page */
    size_t page_pos;            /* compressed: the next page in the chunk */
    uint64_t page_file_off;     /* where the held page (chunk) lies */
    td_page pg;
    td_record rec;              /* the record waiting to be merged */
    int has_rec;
    int done;
    uint64_t lost_events;       /* counted from the pages' lost flags */
    uint64_t lost_pages;
} td_cpu;

typedef struct td_counts {
    uint64_t formats, formats_skipped, systems, options, sections,
        sections_compressed, pages, records, events_generic, events_mapped,
        padding, bad_records, lost_pages, lost_events, unknown_ids, buffers,
        chunks, cmdlines_bytes, kallsyms_bytes, printk_bytes, atrace_malformed,
        marker_text, kallsyms_symbols, kallsyms_bad_lines, printk_formats,
        printk_bad_lines, syms_resolved, syms_unresolved, bprint_formatted,
        bprint_bad, function_events, graph_events;
} td_counts;

typedef struct td_dec {
    tread_parser *p;
    int file;                   /* reading the file itself (pread) */
    int fd;
    int64_t base;               /* file offset of input offset 0 */
    uint64_t file_size;
    uint64_t limit;             /* TREAD_OPT_MAX_TRACEDAT_META_BYTES */

    /* the byte window: input bytes [win_off, win_off + win.len) */
    tread_buf win;
    uint64_t win_off;
    uint64_t stream_at;         /* stream: offset of the next byte fed */
    uint64_t want_off, want_end;/* stream: what the state machine waits for */

    /* the header */
    int st;                     /* header state (td_header.c) */
    uint64_t pos;               /* parse position */
    int version;                /* 6 or 7 */
    int be;                     /* big-endian file */
    unsigned long_size, page_size;
    int comp;                   /* TD_COMP_* (v7) */
    uint32_t items_left, systems_left;
    char sysname[257];
    size_t sysname_len;
    uint32_t ncpus;             /* v6 header */
    uint64_t v6_buf_off[TD_MAX_BUFFERS]; /* v6 instances: their CPU tables */
    char v6_buf_name[TD_MAX_BUFFERS][128];
    uint32_t v6_bufs, v6_buf_next;
    td_page_layout layout;
    int have_layout;
    td_formats formats;
    int64_t ts_offset;          /* OFFSET option */
    uint32_t tsc_mult, tsc_shift;
    uint64_t tsc_offset;
    int tsc2nsec;
    tread_buf sec;              /* a v7 section expanded */
    int fly_seen;               /* v7: a flyrecord section was passed */
    int options_done;           /* v7: an options section ended the chain */

    /* the data */
    td_cpu *cpus;
    uint32_t ncpu_data, cpus_cap;
    uint32_t nbuffers;
    uint32_t stream_cpu;        /* stream: the CPU being read */
    int data_started, started;
    int pending_advance;        /* file: the merged CPU to advance (+1) */
    int finished, done;
    uint64_t last_ts;
    tread_buf chunk_in;         /* a compressed chunk read from the file */
    struct ZSTD_DCtx_s *zctx;   /* td_expand's contexts, on the parser's allocator */
    struct z_stream_s *zs;

    /* symbols and trace_printk formats (td_ksyms.c) */
    td_text_loc ks_loc, pk_loc;
    td_syms ksyms, printk;
    tread_buf targs;            /* an event's args built eagerly (tokens) */
    char namebuf[512];          /* a function event's name when not a symbol */
    char buf_name[TD_MAX_BUFFERS][128]; /* the buffers' (instances') names */

    td_counts c;
    char lost_names[64][28];
} td_dec;

/* td_src.c: the bytes [off, off + n) of the input, or NULL: in a stream,
 * not fed yet (want_* say what is awaited); in a file, past its end, or
 * n past the limit (*why). */
const unsigned char *td_need(td_dec *d, uint64_t off, size_t n);
/* The NUL-terminated string at off (up to max bytes): its length in *len,
 * or NULL as td_need. *bad set when max bytes hold no NUL. */
const unsigned char *td_need_str(td_dec *d, uint64_t off, size_t max, size_t *len, int *bad);
/* pread n bytes at off into out: 0, or -1 (short read or error). */
int td_pread(td_dec *d, uint64_t off, void *out, size_t n);
/* Expands a compressed block into out (exactly usize bytes). 0 or -1. */
int td_expand(td_dec *d, const unsigned char *in, size_t len, unsigned char *out, size_t usize);
void td_expand_free(td_dec *d);

/* td_header.c: runs the header's states: TD_DONE when the data begins. */
int td_header_run(td_dec *d);
/* Adds a CPU's data range (v6 flyrecord, v7 BUFFER option). */
int td_add_cpu(td_dec *d, uint32_t buffer, uint32_t cpu, uint64_t off, uint64_t size);

/* td_merge.c: the data phase. */
int td_data_stream(td_dec *d);
int td_data_file(td_dec *d);

/* td_map.c: maps and emits one record; returns 1 when a callback asked to
 * stop. */
int td_emit_record(td_dec *d, const td_cpu *c, const td_record *r, uint64_t off);
/* td_header.c: loads kallsyms (ks) or the printk formats (!ks) where they
 * were located; a failure is a warning (addresses stay numbers). */
void td_syms_load(td_dec *d, int ks);
/* The page's lost-events flag, as a counted warning. */
void td_page_lost(td_dec *d, td_cpu *c, uint64_t off);

#endif
