/* split_ftrace: see split_ftrace.h and doc/convert.md. */
#include "split_ftrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of a piece's start shown to the sniff check (the library's
 * sniffer decides on at most 4 KiB). */
#define SNIFF_BYTES 4096u
/* What a later line could add to flip the sniff: a ctrace marker (the
 * one rule of the sniffer that later bytes in its window can turn from
 * ftrace to another format, doc/formats/systrace.md), placed at the
 * earliest place it could be. A start that reads as ftrace with it reads
 * so with whatever follows. */
static const char PROBE[] = "TRACE:\nx^";
#define PROBE_LEN (sizeof PROBE - 1)
/* A cpus=N line longer than this is not repeated (counted). */
#define MAX_CPUS_LINE 256u

struct split_ftrace {
    split_pieces *sp;
    uint32_t text;            /* the text being split (0: none yet) */
    int open;                 /* a piece of it is open */
    uint64_t body;            /* lines in that piece after its header */
    int oversize;             /* that piece was counted as oversize */

    /* the text's header: its header lines before its first other line */
    int pre_done;
    unsigned char *pre;
    size_t pre_len, pre_cap;
    long cpus_at;             /* where the cpus=N line goes in it, -1 none */
    char cpus[MAX_CPUS_LINE + 1]; /* the cpus=N line in force, with '\n' */
    size_t cpus_len;
    int hdr_sniffs;           /* the header alone reads as ftrace, whatever
                                 follows: -1 unknown */

    unsigned char *scratch;   /* the header, or the sniff check's bytes */
    size_t scratch_cap;

    uint64_t too_long, header_dropped, tracer_lines;
    int failed;
    char error[4200];
};

static int fail_pieces(split_ftrace *s)
{
    if (!s->failed)
        snprintf(s->error, sizeof s->error, "%s", split_pieces_error(s->sp));
    s->failed = 1;
    return -1;
}

static int oom(split_ftrace *s)
{
    if (!s->failed)
        snprintf(s->error, sizeof s->error, "out of memory");
    s->failed = 1;
    return -1;
}

static int reserve(unsigned char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    unsigned char *b = realloc(*buf, c);
    if (!b)
        return -1;
    *buf = b;
    *cap = c;
    return 0;
}

split_ftrace *split_ftrace_new(split_pieces *sp)
{
    split_ftrace *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->sp = sp;
    s->cpus_at = -1;
    s->hdr_sniffs = -1;
    return s;
}

/* The header in s->scratch; its length, or -1 (out of memory). */
static long build_header(split_ftrace *s)
{
    size_t n = s->pre_len + s->cpus_len;
    if (reserve(&s->scratch, &s->scratch_cap, n + SNIFF_BYTES + 2 + PROBE_LEN) != 0)
        return -1;
    size_t at = s->cpus_at >= 0 ? (size_t)s->cpus_at : s->pre_len;
    if (at)
        memcpy(s->scratch, s->pre, at);
    if (s->cpus_len)
        memcpy(s->scratch + at, s->cpus, s->cpus_len);
    if (s->pre_len > at)
        memcpy(s->scratch + at + s->cpus_len, s->pre + at, s->pre_len - at);
    return (long)n;
}

/* Does tread take a file starting with these n bytes for ftrace text,
 * whatever follows them? (p has room for PROBE after them.) */
static int sniffs_ftrace(unsigned char *p, size_t n)
{
    tread_parser *tp = tread_parser_create(NULL);
    if (!tp)
        return 0;
    memcpy(p + n, PROBE, PROBE_LEN);
    tread_feed(tp, p, n + PROBE_LEN);
    tread_finish(tp);
    tread_stats st;
    tread_get_stats(tp, &st);
    tread_parser_free(tp);
    return st.format == TREAD_FORMAT_FTRACE;
}

/* Starts a piece with the header (and, when the header and the first
 * line l do not make the piece read as ftrace whatever lines follow them,
 * SPLIT_FTRACE_TRACER_LINE, which does: the sniffer decides on a leading
 * "# tracer" first). */
static int begin_piece(split_ftrace *s, const tread_ftrace_line *l)
{
    if (split_pieces_begin(s->sp) != 0)
        return fail_pieces(s);
    s->open = 1;
    s->body = 0;
    s->oversize = 0;
    long hn = build_header(s);
    if (hn < 0)
        return oom(s);
    size_t h = (size_t)hn;
    if (s->hdr_sniffs < 0)
        s->hdr_sniffs = h && sniffs_ftrace(s->scratch, h);
    if (!s->hdr_sniffs) {
        size_t k = l->len < SNIFF_BYTES ? l->len : SNIFF_BYTES;
        memcpy(s->scratch + h, l->data, k);
        s->scratch[h + k] = '\n';
        if (!sniffs_ftrace(s->scratch, h + k + 1)) {
            static const char tl[] = SPLIT_FTRACE_TRACER_LINE;
            if (split_pieces_write(s->sp, tl, sizeof tl - 1) != 0)
                return fail_pieces(s);
            s->tracer_lines++;
        }
    }
    if (h && split_pieces_write(s->sp, s->scratch, h) != 0)
        return fail_pieces(s);
    return 0;
}

static int end_piece(split_ftrace *s)
{
    if (!s->open)
        return 0;
    s->open = 0;
    return split_pieces_end(s->sp) == 0 ? 0 : fail_pieces(s);
}

/* A header line before the text's first other line: kept to repeat. */
static int keep_header_line(split_ftrace *s, const tread_ftrace_line *l)
{
    size_t cap = SPLIT_FTRACE_MAX_HEADER_BYTES;
    if (split_pieces_max(s->sp) / 2 < cap)
        cap = (size_t)(split_pieces_max(s->sp) / 2);
    if (!l->newline) /* the text's last line: no piece follows */
        return 0;
    if (l->kind == TREAD_FTRACE_LINE_CPUS) {
        if (s->cpus_at < 0)
            s->cpus_at = (long)s->pre_len;
        return 0; /* the line itself: see split_ftrace_line */
    }
    size_t b = 0;
    while (b < l->len && (l->data[b] == ' ' || l->data[b] == '\t' || l->data[b] == '\r'))
        b++;
    if (b == l->len) /* a blank line says nothing (and one first would
                        hide the header from the sniffer) */
        return 0;
    if (s->pre_len + s->cpus_len + l->len + 1 > cap) {
        s->header_dropped++;
        return 0;
    }
    if (reserve(&s->pre, &s->pre_cap, s->pre_len + l->len + 1) != 0)
        return oom(s);
    memcpy(s->pre + s->pre_len, l->data, l->len);
    s->pre[s->pre_len + l->len] = '\n';
    s->pre_len += l->len + 1;
    s->hdr_sniffs = -1;
    return 0;
}

int split_ftrace_line(split_ftrace *s, const tread_ftrace_line *l)
{
    if (s->failed)
        return -1;
    if (l->text != s->text) { /* another text: its own pieces and header */
        if (end_piece(s) != 0)
            return -1;
        s->text = l->text;
        s->pre_done = 0;
        s->pre_len = 0;
        s->cpus_at = -1;
        s->cpus_len = 0;
        s->hdr_sniffs = -1;
    }
    if (l->kind == TREAD_FTRACE_LINE_TOO_LONG) {
        s->too_long++; /* the decoder does not hold it: counted */
        s->pre_done = 1;
        return 0;
    }
    size_t need = l->len + (l->newline ? 1 : 0);
    if (s->open && s->body &&
        split_pieces_size(s->sp) + need > split_pieces_max(s->sp) &&
        end_piece(s) != 0)
        return -1;
    if (!s->open && begin_piece(s, l) != 0)
        return -1;
    if (split_pieces_write(s->sp, l->data, l->len) != 0 ||
        (l->newline && split_pieces_write(s->sp, "\n", 1) != 0))
        return fail_pieces(s);
    s->body++;
    if (!s->oversize && split_pieces_size(s->sp) > split_pieces_max(s->sp)) {
        s->oversize = 1; /* one line (with the header) larger on its own */
        split_pieces_oversize(s->sp);
    }
    /* what the pieces after this line start with */
    int header = l->kind == TREAD_FTRACE_LINE_HEADER ||
                 l->kind == TREAD_FTRACE_LINE_CPUS ||
                 l->kind == TREAD_FTRACE_LINE_CPU_EMPTY;
    if (!header)
        s->pre_done = 1;
    else if (!s->pre_done && keep_header_line(s, l) != 0)
        return -1;
    if (l->kind == TREAD_FTRACE_LINE_CPUS && l->newline) {
        /* the cpu count in force: repeated where the header had it (or
         * after it) */
        if (l->len + 1 <= MAX_CPUS_LINE) {
            memcpy(s->cpus, l->data, l->len);
            s->cpus[l->len] = '\n';
            s->cpus_len = l->len + 1;
        } else {
            s->header_dropped++;
        }
        s->hdr_sniffs = -1;
    }
    return 0;
}

int split_ftrace_finish(split_ftrace *s)
{
    if (s->failed)
        return -1;
    return end_piece(s);
}

const char *split_ftrace_error(const split_ftrace *s) { return s->error; }
uint64_t split_ftrace_too_long(const split_ftrace *s) { return s->too_long; }
uint64_t split_ftrace_header_dropped(const split_ftrace *s) { return s->header_dropped; }
uint64_t split_ftrace_tracer_lines(const split_ftrace *s) { return s->tracer_lines; }

void split_ftrace_free(split_ftrace *s)
{
    if (!s)
        return;
    free(s->pre);
    free(s->scratch);
    free(s);
}
