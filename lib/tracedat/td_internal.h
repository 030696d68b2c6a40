/*
 * trace-cmd's trace.dat decoder (TREAD_FORMAT_TRACEDAT): shared state.
 *
 *   td_src.c      the byte window: fed bytes (a stream) or pread (a file)
 *   td_header.c   the initial header, v6's sequence of items, v7's
 *                 sections and options, compressed sections
 *   td_format.c   event format files -> field layouts, the id table
 *   td_ring.c     ring-buffer pages: page header, event headers
 *   td_map.c      one record -> one tread_event (lib/ftrace/ftrace_map)
 *   td_merge.c    the CPUs' data: one after another (a stream), merged
 *                 by timestamp holding one page per CPU (a file)
 *   td_args.c     the lazy args codec (TREAD_ARGS_TRACEDAT)
 *   td_decoder.c  the decoder ops
 * doc/formats/tracedat.md describes the format and what is read.
 */
#ifndef TREAD_TRACEDAT_INTERNAL_H
#define TREAD_TRACEDAT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "core/parser.h"

#define TD_MAX_CPUS 4096       /* CPUs of one buffer: more is an error */
#define TD_MAX_BUFFERS 64      /* instances (BUFFER options) */
#define TD_MAX_FIELDS 256      /* fields of one event format */
#define TD_MAX_STR 4096        /* a NUL-terminated header string */

/* Fixed-width reads in the file's byte order. */
static inline uint16_t td_u16(int be, const unsigned char *p)
{
    return be ? (uint16_t)((p[0] << 8) | p[1]) : (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t td_u32(int be, const unsigned char *p)
{
    return be ? ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]
              : ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | p[0];
}
static inline uint64_t td_u64(int be, const unsigned char *p)
{
    uint64_t a = td_u32(be, p), b = td_u32(be, p + 4);
    return be ? (a << 32) | b : (b << 32) | a;
}
/* An unsigned integer of 1, 2, 4 or 8 bytes (0 for other sizes). */
static inline uint64_t td_uint(int be, const unsigned char *p, unsigned size)
{
    switch (size) {
    case 1: return p[0];
    case 2: return td_u16(be, p);
    case 4: return td_u32(be, p);
    case 8: return td_u64(be, p);
    default: return 0;
    }
}

/* One field of an event format. */
enum { TD_F_INT = 0, TD_F_STRING, TD_F_DYN_STRING, TD_F_BYTES, TD_F_DYN_BYTES };
typedef struct td_field {
    const char *name;       /* in the format's text (NUL-terminated copy) */
    uint16_t name_len;
    uint8_t kind;           /* TD_F_* */
    uint8_t is_signed;
    uint8_t common;         /* common_* */
    uint8_t rel;            /* __rel_loc: offset from the field's end */
    uint8_t sym;            /* TD_SYM_*: print fmt shows it as %ps / %pS */
    uint32_t offset, size;
} td_field;
enum { TD_SYM_NONE = 0, TD_SYM_NAME, TD_SYM_OFF };

/* What an event maps onto (lib/ftrace/ftrace_map.h). */
enum {
    TD_MAP_GENERIC = 0, TD_MAP_SWITCH, TD_MAP_WAKEUP, TD_MAP_CPU_FREQ,
    TD_MAP_CPU_IDLE, TD_MAP_NEWTASK, TD_MAP_RENAME, TD_MAP_PRINT,
    TD_MAP_FUNCTION, TD_MAP_GRAPH_ENTRY, TD_MAP_GRAPH_EXIT, TD_MAP_BPRINT
};

typedef struct td_format {
    uint32_t id;
    int be;                 /* the file's byte order: the args codec reads it */
    uint8_t map;            /* TD_MAP_* */
    const char *system, *name; /* NUL-terminated */
    size_t system_len, name_len;
    const char *full;       /* "system:name" */
    size_t full_len;
    td_field *fields;
    uint32_t nfields;
    int f_pid, f_a, f_b, f_c; /* field indices the mapping reads, -1 absent */
    int f_cpid;             /* common_pid */
    uint32_t nsym;          /* fields with sym set */
    struct td_format *next; /* hash chain */
    struct td_format *all;  /* every format, for freeing */
} td_format;

typedef struct td_formats {
    tread_alloc *alloc;
    td_format **slots;      /* by id, chained */
    size_t nslots, count;
    uint64_t bytes, limit;  /* what the tables hold, TREAD_OPT_MAX_TRACEDAT_META_BYTES */
    td_format *all;
    uint32_t need_syms;     /* formats that show addresses as symbols */
    uint32_t need_printk;   /* bprint formats */
} td_formats;

void td_formats_init(td_formats *t, tread_alloc *a, uint64_t limit);
void td_formats_free(td_formats *t);
/* Parses one format file of system sys. 0; -1 a syntax error (*why);
 * -2 past the limit; -3 out of memory. A format without an ID or with a
 * repeated one is skipped (returns 1, *why). */
int td_formats_add(td_formats *t, int be, const char *sys, size_t sys_len,
                   const char *text, size_t len, const char **why);
const td_format *td_formats_get(const td_formats *t, uint32_t id);
/* The field named name, or -1. */
int td_format_field(const td_format *f, const char *name);
/* A field's value as an integer (sign-extended when signed): 0, or -1
 * when it is not an integer or lies outside the record. */
int td_field_int(const td_format *f, int i, const unsigned char *rec, size_t len, int64_t *out);
/* A string field (char array, __data_loc/__rel_loc char[]): its bytes
 * without the trailing NULs. 0, or -1 outside the record. */
int td_field_str(const td_format *f, int i, const unsigned char *rec, size_t len, tread_str *out);
/* A dynamic or array field's bytes. 0, or -1 outside the record. */
int td_field_bytes(const td_format *f, int i, const unsigned char *rec, size_t len,
                   const unsigned char **p, size_t *n);

/* kallsyms or printk formats (td_ksyms.c): entries sorted by address,
 * names (symbols, or formats unescaped) in one blob. */
typedef struct td_sym {
    uint64_t addr;
    uint32_t name;          /* offset in names */
    uint32_t seq;           /* line order: of equal addresses the first wins */
} td_sym;
typedef struct td_syms {
    td_sym *ent;
    char *names;
    size_t n, names_len;
    uint64_t bad, skipped;  /* lines not understood; A/a/$ symbols left out */
    int unsorted;
} td_syms;
/* 0; -2 past limit bytes; -3 out of memory. */
int td_kallsyms_parse(td_syms *s, tread_alloc *a, const char *text, size_t len, uint64_t limit);
int td_printk_parse(td_syms *s, tread_alloc *a, const char *text, size_t len, uint64_t limit);
void td_syms_free(td_syms *s, tread_alloc *a);
/* The symbol holding addr (its address in *base), or NULL. */
const char *td_syms_find(const td_syms *s, uint64_t addr, uint64_t *base);
/* The entry at exactly addr, or NULL. */
const char *td_syms_exact(const td_syms *s, uint64_t addr);
/* addr as report prints %pS (with_off) or %ps: sym+0xoff, sym, or 0x%llx
 * when not found. snprintf's result. */
int td_sym_text(const td_syms *ks, uint64_t addr, int with_off, char *out, size_t cap);
/* td_printf.c: a bprint event's text into out (appended). 0, or -1 with
 * *why (a conversion the kernel does not have, arguments past the
 * buffer, a text past 64 KiB). */
int td_bprint_format(const char *fmt, size_t flen, const unsigned char *buf, size_t n, int be,
                     unsigned long_size, const td_syms *ks, tread_buf *out, const char **why);

/* header_page: where a page's fields are. */
typedef struct td_page_layout {
    unsigned ts_off, ts_size;
    unsigned commit_off, commit_size;
    unsigned data_off;
} td_page_layout;
/* Reads header_page's text; keeps the defaults (for long_size) of what it
 * does not find. */
void td_page_layout_parse(td_page_layout *l, const char *text, size_t len, unsigned long_size);

/* One ring-buffer page being read. */
typedef struct td_page {
    const unsigned char *data;  /* the page */
    size_t size;                /* its bytes (page_size) */
    size_t pos, end;            /* next event header, end of committed data */
    uint64_t ts;                /* time of the last record read */
    int missed;                 /* the page header's lost-events flag */
    uint64_t lost;              /* the count stored after the data, or 0 */
} td_page;

/* A record: the event's bytes and time. */
typedef struct td_record {
    const unsigned char *data;
    size_t len;
    uint64_t ts;
    size_t at;                  /* its header's offset in the page */
} td_record;

/* Opens a page; -1 when its header is unusable (*why). */
int td_page_open(td_page *pg, const td_page_layout *l, int be, const unsigned char *data,
                 size_t size, const char **why);
/* The next data record: 1; 0 at the page's end; -1 malformed (*why). */
int td_page_next(td_page *pg, int be, td_record *r, const char **why);

#endif
