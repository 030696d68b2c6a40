/*
 * libFuzzer harness for `tread convert` and `tread split`: whatever the
 * decoders make of an input (format sniffed, every decoder reachable) goes
 * through the converters (tools/convert_sink.c, convert_json.c,
 * convert_perfetto.c) into files, once whole and once split into pieces;
 * FXT and Perfetto input is also split into its own format
 * (tools/split_fxt.c, tools/split_perfetto.c), and the ftrace text of
 * ftrace and systrace input into ftrace text pieces (tools/split_ftrace.c:
 * each must be read as ftrace text, sniffed). Nothing may crash, and the
 * outputs must keep the split contract (doc/convert.md):
 *
 * - every output (the whole one and each piece) reads back with tread,
 *   format forced, strict JSON, without an error or a warning (but the
 *   unknown-phase warning when the input had events of an unknown phase:
 *   the converters carry them over as they are) -- converting splits;
 *   native pieces read back without an error;
 * - the pieces hold the events of the whole: the digests of their events
 *   (every field but the record offset) are the same multiset, metadata
 *   and clock snapshots (facts a piece may restate) the same set, their
 *   time and sequence aside;
 * - converting splits: each event of a piece has, earlier in the piece,
 *   the process and thread names in force for its pid and (pid, tid)
 *   where it stood in the whole (the set above cannot see a piece that
 *   leaves out a name another piece has);
 * - every piece is at most the piece size unless its events (facts aside)
 *   come from one record; the total is within the default
 *   --max-total-bytes (4 x the input + 1 MiB + 4 KiB a piece).
 *
 * The first byte of the input chooses the output format and the piece
 * size (1 byte up: smaller than any event too); the rest is the trace.
 * Whole-file decompression is off (the pipeline harness fuzzes it) and
 * limits are small, so the parse stays bounded.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tread.h>

#include "convert_sink.h"
#include "harness.h"
#include "ndjson_writer.h"
#include "split_ftrace.h"
#include "split_fxt.h"
#include "split_perfetto.h"

static char dir[64]; /* this process's scratch directory */

int LLVMFuzzerInitialize(int *argc, char ***argv);

static void remove_dir(void)
{
    rmdir(dir); /* emptied after every input */
}

__attribute__((visibility("default")))
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* in memory where there is a tmpfs: the pieces' files on disk (ext4)
     * cost a sixth of the harness's time on its seeds */
    snprintf(dir, sizeof dir, "/dev/shm/tread-fuzz-convert-XXXXXX");
    if (!mkdtemp(dir)) {
        snprintf(dir, sizeof dir, "/tmp/tread-fuzz-convert-XXXXXX");
        if (!mkdtemp(dir))
            fuzz_fail("cannot make a scratch directory");
    }
    atexit(remove_dir);
    /* split names each piece on standard output */
    if (!freopen("/dev/null", "w", stdout))
        fuzz_fail("cannot silence standard output");
    return 0;
}

static void configure_input(tread_parser *p)
{
    if (tread_config(p, TREAD_OPT_DECOMPRESS, 0) != 0 ||
        tread_config(p, TREAD_OPT_MAX_EVENT_BYTES, 1 << 20) != 0 ||
        tread_config(p, TREAD_OPT_MAX_STRING_BYTES, 256 << 10) != 0 ||
        tread_config(p, TREAD_OPT_MAX_DEPTH, 64) != 0 ||
        tread_config(p, TREAD_OPT_MAX_INTERNED_BYTES, 16 << 20) != 0 ||
        tread_config(p, TREAD_OPT_MAX_DECOMPRESSED_BYTES, 16 << 20) != 0)
        fuzz_fail("tread_config rejects an option");
}

/* ------------------------------------------------------------------------ */
/* Event digests                                                            */

typedef struct digests {
    uint64_t *v;         /* events: (digest) */
    uint64_t *off;       /* their record offsets */
    unsigned *piece;     /* their piece */
    int *fact;           /* metadata or clock snapshot */
    int *state_end;      /* an unnamed slice_end: may be the implicit end of a
                            TYPE_STATE state a native Perfetto split counts
                            as lost (split_perfetto's state_ends_lost) */
    uint64_t *proc, *thread; /* an event's process and thread keys (0: none),
                            a name's key for a process or thread name fact */
    int *name_fact;      /* 1: a process name, 2: a thread name */
    size_t n, cap;
    unsigned cur_piece;
    int unknown_ok;      /* the unknown-phase warning is expected */
    int strict;          /* any warning fails */
    int only_ftrace;     /* digest only events of ftrace text */
    int v8_norm;         /* V8 profile samples without their time, frames
                            without their parent: what a native Perfetto
                            split counts in v8_records_split */
    int switch_norm;     /* a context switch without its previous thread:
                            a native Perfetto piece may lack it (counted,
                            and checked exactly by fuzz_split_perfetto) */
    tread_format want;   /* the format read_back must sniff (0: any) */
    ndjson_writer w;
    out_buf *ob;
    FILE *mem;
    char *mem_data;
    size_t mem_size;
} digests;

static uint64_t fnv(const void *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* A V8 profile's frame id, "<pid>:0x<id>:<node>" (lib/perfetto/pf_v8.c). */
static int v8_id(tread_str s)
{
    size_t i = 0;
    if (!s.ptr)
        return 0;
    if (i < s.len && s.ptr[i] == '-')
        i++;
    size_t d = i;
    while (i < s.len && s.ptr[i] >= '0' && s.ptr[i] <= '9')
        i++;
    return i > d && i + 3 <= s.len && memcmp(s.ptr + i, ":0x", 3) == 0;
}

static int digest_event(void *user, const tread_event *ev)
{
    digests *d = user;
    if (d->only_ftrace && ev->format != TREAD_FORMAT_FTRACE)
        return 0;
    int fact = ev->kind == TREAD_EVENT_METADATA || ev->kind == TREAD_EVENT_CLOCK_SYNC ||
               ev->kind == TREAD_EVENT_STACK_FRAME; /* (restated in each piece using it) */
    /* a fact is compared without its time and sequence, which a fact
     * restated at a piece's start does not keep (doc/convert.md; as
     * tests/split_check.py does): a track descriptor packet's timestamp
     * is not in the descriptor the next piece restates */
    tread_event fe;
    if (fact) {
        fe = *ev;
        fe.flags &= ~(uint32_t)(TREAD_HAS_TS | TREAD_HAS_RAW_TS | TREAD_HAS_SEQ);
        ev = &fe;
    }
    if (d->v8_norm && ev->phase == 'P' &&
        ((ev->kind == TREAD_EVENT_SAMPLE && v8_id(ev->sf)) ||
         (ev->kind == TREAD_EVENT_STACK_FRAME && v8_id(ev->id)))) {
        fe = *ev;
        fe.flags &= ~(uint32_t)TREAD_HAS_TS;
        fe.ts = 0;
        fe.parent = (tread_str){NULL, 0};
        ev = &fe;
    }
    int norm = d->switch_norm && ev->kind == TREAD_EVENT_CONTEXT_SWITCH;
    if (norm) {
        fe = *ev;
        fe.flags &= ~(uint32_t)(TREAD_HAS_PID | TREAD_HAS_TID);
        fe.pid = fe.tid = 0;
        ev = &fe;
    }
    if (fseeko(d->mem, 0, SEEK_SET) != 0)
        abort();
    out_buf_init(d->ob, d->mem);
    ndjson_write_event(&d->w, ev);
    out_buf_flush(d->ob);
    fflush(d->mem);
    off_t len = ftello(d->mem);
    if (norm && len > 0) { /* the prev_pid arg out of the line */
        static const char key[] = "\"prev_pid\":";
        char *t = d->mem_data, *k = NULL;
        for (char *c = t; !k && c + sizeof key - 1 <= t + len; c++)
            if (memcmp(c, key, sizeof key - 1) == 0)
                k = c;
        if (k) {
            char *e = k + sizeof key - 1;
            while (e < t + len && *e != ',' && *e != '}')
                e++;
            if (e < t + len && *e == ',')
                e++;
            else if (k > t && k[-1] == ',')
                k--;
            memmove(k, e, (size_t)(t + len - e));
            len -= e - k;
        }
    }
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 256;
        d->v = realloc(d->v, cap * sizeof *d->v);
        d->off = realloc(d->off, cap * sizeof *d->off);
        d->piece = realloc(d->piece, cap * sizeof *d->piece);
        d->fact = realloc(d->fact, cap * sizeof *d->fact);
        d->state_end = realloc(d->state_end, cap * sizeof *d->state_end);
        d->proc = realloc(d->proc, cap * sizeof *d->proc);
        d->thread = realloc(d->thread, cap * sizeof *d->thread);
        d->name_fact = realloc(d->name_fact, cap * sizeof *d->name_fact);
        if (!d->v || !d->off || !d->piece || !d->fact || !d->state_end || !d->proc ||
            !d->thread || !d->name_fact)
            abort();
        d->cap = cap;
    }
    d->v[d->n] = fnv(d->mem_data, (size_t)len);
    d->off[d->n] = ev->offset;
    d->piece[d->n] = d->cur_piece;
    d->fact[d->n] = fact;
    d->state_end[d->n] = ev->kind == TREAD_EVENT_SLICE_END && ev->name.len == 0;
    /* keys of the pid and (pid, tid), never 0 */
    int has_pid = (ev->flags & TREAD_HAS_PID) != 0;
    int has_tid = has_pid && (ev->flags & TREAD_HAS_TID);
    d->proc[d->n] = has_pid ? fnv(&ev->pid, sizeof ev->pid) | 1 : 0;
    d->thread[d->n] = 0;
    if (has_tid) {
        int64_t pt[2] = {ev->pid, ev->tid};
        d->thread[d->n] = fnv(pt, sizeof pt) | 1;
    }
    d->name_fact[d->n] = ev->kind != TREAD_EVENT_METADATA ? 0
                         : ev->meta == TREAD_META_PROCESS_NAME ? 1
                         : ev->meta == TREAD_META_THREAD_NAME ? 2
                                                              : 0;
    d->n++;
    return 0;
}

static void digests_init(digests *d)
{
    memset(d, 0, sizeof *d);
    d->ob = malloc(sizeof *d->ob);
    d->mem = open_memstream(&d->mem_data, &d->mem_size);
    if (!d->ob || !d->mem)
        abort();
    ndjson_writer_init(&d->w, d->ob);
}

static void digests_free(digests *d)
{
    ndjson_writer_free(&d->w);
    fclose(d->mem);
    free(d->mem_data);
    free(d->ob);
    free(d->v);
    free(d->off);
    free(d->piece);
    free(d->fact);
    free(d->state_end);
    free(d->proc);
    free(d->thread);
    free(d->name_fact);
}

static int any_warning(void *user, const tread_warning *w)
{
    digests *d = user;
    if (!d->strict || (w->kind == TREAD_WARN_UNKNOWN_PHASE && d->unknown_ok))
        return 0;
    fprintf(stderr, "fuzz_convert: warning %s at byte %llu: %s\n", tread_warning_name(w->kind),
            (unsigned long long)w->offset, w->message);
    fuzz_fail("an output of the converter reads back with a warning");
}

/* Reads one output (or the input) into d; fails the run when it does not
 * read back, unless allow_error (then returns -1). */
static int read_back(const char *path, tread_format format, digests *d, int allow_error)
{
    tread_parser *p = tread_parser_create(NULL);
    if (!p)
        abort();
    configure_input(p);
    if ((format != TREAD_FORMAT_UNKNOWN && tread_config(p, TREAD_OPT_FORMAT, format) != 0) ||
        (d->strict && tread_config(p, TREAD_OPT_LENIENT, 0) != 0))
        fuzz_fail("tread_config rejects a read-back option");
    const tread_callbacks cb = {.event = digest_event, .warning = any_warning};
    tread_set_callbacks(p, &cb, d);
    tread_status st = tread_parse_path(p, path);
    if (st != TREAD_STATUS_OK && allow_error) {
        tread_parser_free(p);
        return -1;
    }
    if (st != TREAD_STATUS_OK) {
        fprintf(stderr, "fuzz_convert: %s: %s at byte %llu: %s\n", path,
                tread_error_name(tread_get_error(p)),
                (unsigned long long)tread_get_error_offset(p), tread_get_error_message(p));
        fuzz_fail("an output does not read back");
    }
    tread_stats sst;
    tread_get_stats(p, &sst);
    if (d->want && sst.format != d->want) {
        fprintf(stderr, "fuzz_convert: %s is read as %s\n", path,
                tread_format_name(sst.format));
        fuzz_fail("a piece is not read as its own format");
    }
    tread_parser_free(p);
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The events of d, facts (1: distinct, as a set) or the rest (0: as a
 * multiset), sorted. */
static size_t select_sorted(const digests *d, int fact, uint64_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++)
        if (d->fact[i] == fact)
            out[n++] = d->v[i];
    qsort(out, n, sizeof *out, cmp_u64);
    if (fact) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (k == 0 || out[k - 1] != out[i])
                out[k++] = out[i];
        n = k;
    }
    return n;
}

/* Is v the digest of one of d's unnamed slice_ends? */
static int is_state_end(const digests *d, uint64_t v)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->state_end[i] && d->v[i] == v)
            return 1;
    return 0;
}

/* The pieces hold the events of the whole (digests), but for exactly
 * lost_ends unnamed slice_ends the split counted as lost, and keep the
 * sizes. */
static void compare(const digests *whole, const digests *pieces, const char *prefix,
                    const char *ext, unsigned n_pieces, uint64_t max_bytes, uint64_t input,
                    uint64_t lost_ends)
{
    for (int fact = 0; fact < 2; fact++) {
        uint64_t *a = malloc((whole->n + 1) * sizeof *a);
        uint64_t *b = malloc((pieces->n + 1) * sizeof *b);
        if (!a || !b)
            abort();
        size_t na = select_sorted(whole, fact, a), nb = select_sorted(pieces, fact, b);
        /* b must be a's multiset less the counted losses (events only) */
        uint64_t missing = 0;
        int bad = 0;
        size_t i = 0, j = 0;
        while (i < na || j < nb) {
            if (i < na && j < nb && a[i] == b[j]) {
                i++, j++;
            } else if (i < na && (j >= nb || a[i] < b[j])) {
                if (fact || !is_state_end(whole, a[i]))
                    bad = 1;
                missing++, i++;
            } else {
                bad = 1, j++; /* in the pieces, not in the whole */
            }
        }
        if (bad || missing != (fact ? 0 : lost_ends)) {
            fprintf(stderr, "fuzz_convert: %s: %zu %s whole, %zu in %u pieces (%llu counted "
                    "as lost)\n", ext, na, fact ? "distinct facts" : "events", nb, n_pieces,
                    (unsigned long long)(fact ? 0 : lost_ends));
            fuzz_fail("the pieces do not hold the events of the whole");
        }
        free(a);
        free(b);
    }
    /* sizes: a piece over max_bytes holds one record (facts aside) */
    char path[160];
    uint64_t total = 0;
    for (unsigned i = 0; i < n_pieces; i++) {
        snprintf(path, sizeof path, "%s-%05u.%s", prefix, i, ext);
        struct stat st;
        if (stat(path, &st) != 0)
            fuzz_fail("a piece listed is missing");
        total += (uint64_t)st.st_size;
        if ((uint64_t)st.st_size <= max_bytes)
            continue;
        int have = 0;
        uint64_t off = 0;
        for (size_t k = 0; k < pieces->n; k++) {
            if (pieces->piece[k] != i || pieces->fact[k])
                continue;
            if (have && pieces->off[k] != off) {
                fprintf(stderr, "fuzz_convert: %s: %lld bytes > %llu with records at %llu "
                        "and %llu\n", path, (long long)st.st_size,
                        (unsigned long long)max_bytes, (unsigned long long)off,
                        (unsigned long long)pieces->off[k]);
                fuzz_fail("a piece is over --max-bytes with more than one record");
            }
            have = 1;
            off = pieces->off[k];
        }
    }
    uint64_t bound = 4 * input + (1u << 20) + 4096u * n_pieces;
    if (total > bound) {
        fprintf(stderr, "fuzz_convert: %s: %llu bytes in %u pieces for %llu bytes of input\n",
                ext, (unsigned long long)total, n_pieces, (unsigned long long)input);
        fuzz_fail("the pieces are over the default --max-total-bytes");
    }
}

/* The name of the process or thread with key k in force in the whole
 * (facts[0..n): the latest name fact of that key), or 0. */
static uint64_t name_in_force(const uint64_t *keys, const uint64_t *names, size_t n, uint64_t k)
{
    for (size_t i = n; i-- > 0;)
        if (keys[i] == k)
            return names[i];
    return 0;
}

/* Metadata once, where needed (doc/convert.md): each event of a piece has,
 * earlier in that piece, the process name and the thread name in force for
 * its pid and (pid, tid) where it stood in the whole, as the facts are
 * compared (their time and sequence aside). The pieces' events are the
 * whole's, in order (compare checked them as a multiset; a piece order
 * that differed would be said here). */
static void check_names_in_pieces(const digests *whole, const digests *pieces)
{
    size_t nw = whole->n;
    uint64_t *keys = malloc((nw + 1) * sizeof *keys), *names = malloc((nw + 1) * sizeof *names);
    uint64_t *seen = malloc((pieces->n + 1) * sizeof *seen);
    if (!keys || !names || !seen)
        abort();
    size_t nf = 0, j = 0, nseen = 0;
    unsigned piece = 0;
    for (size_t i = 0; i < nw; i++) {
        if (whole->fact[i]) {
            if (whole->name_fact[i]) {
                keys[nf] = whole->name_fact[i] == 1 ? whole->proc[i] : whole->thread[i];
                names[nf++] = whole->v[i];
            }
            continue;
        }
        /* the piece's next event that is not a fact, with the facts before it */
        while (j < pieces->n && pieces->fact[j]) {
            if (pieces->piece[j] != piece)
                piece = pieces->piece[j], nseen = 0;
            seen[nseen++] = pieces->v[j++];
        }
        if (j == pieces->n || pieces->v[j] != whole->v[i]) {
            fprintf(stderr, "fuzz_convert: event %zu of the whole is not the pieces' next\n", i);
            fuzz_fail("the pieces do not hold the whole's events in order");
        }
        if (pieces->piece[j] != piece)
            piece = pieces->piece[j], nseen = 0;
        const uint64_t need[2] = {name_in_force(keys, names, nf, whole->proc[i]),
                                  name_in_force(keys, names, nf, whole->thread[i])};
        for (int w = 0; w < 2; w++) {
            if (!need[w] || (w == 0 ? !whole->proc[i] : !whole->thread[i]))
                continue;
            size_t k = 0;
            while (k < nseen && seen[k] != need[w])
                k++;
            if (k == nseen) {
                fprintf(stderr, "fuzz_convert: piece %u: the event at record %llu lacks its %s "
                        "name\n", piece, (unsigned long long)pieces->off[j],
                        w == 0 ? "process" : "thread");
                fuzz_fail("a piece does not restate a name its events use");
            }
        }
        j++;
    }
    free(keys), free(names), free(seen);
}

/* ------------------------------------------------------------------------ */
/* Converting: tools/convert_sink.c                                         */

/* Whether the input had an event of unknown kind with a phase, which the
 * converters keep (and the read-back rightly warns about again). */
static int input_unknown;

static int on_event(void *user, const tread_event *ev)
{
    if (ev->kind == TREAD_EVENT_UNKNOWN && ev->phase > ' ' && ev->phase < 127)
        input_unknown = 1;
    return convert_sink_event(user, ev) != 0;
}

/* What a whole conversion to Perfetto says of stacks (the second pass of
 * cmd_convert.c: frames defined after the events that name them). */
typedef struct stack_pass {
    cvp_stacks *ahead;   /* in: the first pass's frames (taken); out: the
                            frames for a second pass, when one is wanted */
    uint64_t sf_missing; /* out */
} stack_pass;

/* Converts the trace into path (whole) or prefix-NNNNN pieces. Returns
 * the pieces written (1 for whole), or 0 when the sink failed (out of
 * memory or a limit: a clean refusal, nothing to check). */
static unsigned convert(const uint8_t *data, size_t size, convert_to to, const char *path,
                        const char *prefix, uint64_t max_bytes, stack_pass *sp)
{
    convert_sink s;
    if (convert_sink_open(&s, to, path, prefix, max_bytes, CONVERT_PF_MAX_INTERNED_DEFAULT) != 0)
        fuzz_fail("convert_sink_open fails on a scratch file");
    if (sp && sp->ahead)
        convert_sink_preload_frames(&s, sp->ahead);
    if (sp)
        sp->ahead = NULL;
    tread_parser *p = tread_parser_create(NULL);
    if (!p)
        abort();
    configure_input(p);
    const tread_callbacks cb = {.event = on_event};
    tread_set_callbacks(p, &cb, &s);
    tread_status st = tread_feed(p, data, size);
    if (st == TREAD_STATUS_OK)
        st = tread_finish(p);
    if (st == TREAD_STATUS_PAUSED && !s.failed)
        fuzz_fail("the parse paused without the sink asking to stop");
    tread_parser_free(p);
    int close_rc = convert_sink_close(&s);
    unsigned pieces = s.prefix && s.sp ? (unsigned)split_pieces_count(s.sp) : 1;
    int failed = s.failed || close_rc != 0;
    if (sp && !failed) {
        sp->sf_missing = s.sf_missing;
        if (s.sf_missing && s.frames_late && !s.frames_ahead)
            sp->ahead = convert_sink_take_frames(&s);
    }
    convert_sink_free(&s);
    return failed ? 0 : pieces;
}

/* The second pass `tread convert` makes when frames came after the events
 * naming them: the same events (facts aside: it adds stack frames), read
 * back without a warning, and no more sf left without a stack. */
static void second_pass(const uint8_t *data, size_t size, const char *whole, stack_pass *sp)
{
    char again[160];
    snprintf(again, sizeof again, "%s.again", whole);
    uint64_t first_missing = sp->sf_missing;
    if (!convert(data, size, CONVERT_TO_PERFETTO, again, NULL, 0, sp)) {
        unlink(again);
        return; /* a limit refused it: nothing to check */
    }
    if (sp->ahead)
        fuzz_fail("a second pass wants a third");
    if (sp->sf_missing > first_missing)
        fuzz_fail("the second pass leaves more sf without their stack");
    digests a, b;
    digests_init(&a);
    digests_init(&b);
    a.strict = b.strict = 1;
    a.unknown_ok = b.unknown_ok = input_unknown;
    read_back(whole, TREAD_FORMAT_PERFETTO, &a, 0);
    read_back(again, TREAD_FORMAT_PERFETTO, &b, 0);
    size_t na = 0, nb = 0;
    for (size_t i = 0; i < a.n; i++)
        na += !a.fact[i];
    for (size_t i = 0; i < b.n; i++)
        nb += !b.fact[i];
    if (na != nb) {
        fprintf(stderr, "fuzz_convert: %zu events in one pass, %zu in two\n", na, nb);
        fuzz_fail("the second pass changes the events written");
    }
    digests_free(&a);
    digests_free(&b);
    unlink(again);
}

/* ------------------------------------------------------------------------ */
/* Native: tools/split_fxt.c, tools/split_perfetto.c                        */

typedef struct native {
    split_pieces *sp;
    split_fxt *fxt;
    split_perfetto *pf;
    split_ftrace *ft;
    const char *prefix;
    uint64_t max_bytes;
    int failed;
} native;

static int start(native *n, const char *suffix)
{
    split_pieces_config cfg = {.prefix = n->prefix, .suffix = suffix,
                               .max_bytes = n->max_bytes, .max_total_bytes = 0};
    char err[256];
    if (split_pieces_new(&n->sp, &cfg, err, sizeof err) != 0)
        abort();
    return 0;
}

static int nat_fxt(void *user, const tread_fxt_record *rec)
{
    native *n = user;
    if (!n->fxt && !n->pf && !n->ft) {
        start(n, "fxt");
        if (!(n->fxt = split_fxt_new(n->sp)))
            abort();
    }
    if (n->fxt && split_fxt_record(n->fxt, rec) != 0)
        n->failed = 1;
    return n->failed;
}

static int nat_blob(void *user, const tread_blob *b)
{
    native *n = user;
    if (n->fxt && split_fxt_blob(n->fxt, b) != 0)
        n->failed = 1;
    return n->failed;
}

static int nat_packet(void *user, const tread_perfetto_packet *pk)
{
    native *n = user;
    if (!n->fxt && !n->pf && !n->ft) {
        start(n, "pftrace");
        if (!(n->pf = split_perfetto_new(n->sp)))
            abort();
    }
    if (n->pf && split_perfetto_packet(n->pf, pk) != 0)
        n->failed = 1;
    return n->failed;
}

static int nat_line(void *user, const tread_ftrace_line *l)
{
    native *n = user;
    if (!n->fxt && !n->pf && !n->ft) {
        start(n, "txt");
        if (!(n->ft = split_ftrace_new(n->sp)))
            abort();
    }
    if (n->ft && split_ftrace_line(n->ft, l) != 0)
        n->failed = 1;
    return n->failed;
}

static int nat_event(void *user, const tread_event *ev)
{
    native *n = user;
    if ((n->fxt && split_fxt_event(n->fxt, ev) != 0) ||
        (n->pf && split_perfetto_event(n->pf, ev) != 0))
        n->failed = 1;
    return n->failed;
}

/* Splits FXT or Perfetto input into its own format; the pieces written,
 * 0 for another format or a clean refusal. */
static unsigned split_native(const uint8_t *data, size_t size, const char *prefix,
                             uint64_t max_bytes, const char **ext, uint64_t *lost_ends,
                             uint64_t *v8_split)
{
    native n = {.prefix = prefix, .max_bytes = max_bytes};
    tread_parser *p = tread_parser_create(NULL);
    if (!p)
        abort();
    configure_input(p);
    const tread_callbacks cb = {.event = nat_event, .fxt_record = nat_fxt,
                                .blob = nat_blob, .perfetto_packet = nat_packet,
                                .ftrace_line = nat_line};
    tread_set_callbacks(p, &cb, &n);
    tread_status st = tread_feed(p, data, size);
    if (st == TREAD_STATUS_OK)
        st = tread_finish(p);
    tread_stats ts;
    tread_get_stats(p, &ts);
    tread_parser_free(p);
    unsigned pieces = 0;
    if (!n.failed && n.fxt && split_fxt_finish(n.fxt, ts.bytes_decoded) == 0)
        pieces = (unsigned)split_pieces_count(n.sp);
    *lost_ends = *v8_split = 0;
    if (!n.failed && n.pf && split_perfetto_finish(n.pf) == 0) {
        pieces = (unsigned)split_pieces_count(n.sp);
        *lost_ends = split_perfetto_get_stats(n.pf)->state_ends_lost;
        *v8_split = split_perfetto_get_stats(n.pf)->v8_records_split;
    }
    if (!n.failed && n.ft && split_ftrace_finish(n.ft) == 0)
        pieces = (unsigned)split_pieces_count(n.sp);
    *ext = n.fxt ? "fxt" : n.ft ? "txt" : "pftrace";
    split_ftrace_free(n.ft);
    split_fxt_free(n.fxt);
    split_perfetto_free(n.pf);
    split_pieces_free(n.sp);
    return pieces;
}

static void remove_pieces(const char *prefix, const char *ext)
{
    char piece[160];
    for (unsigned i = 0;; i++) {
        snprintf(piece, sizeof piece, "%s-%05u.%s", prefix, i, ext);
        if (unlink(piece) != 0)
            break;
    }
}

__attribute__((visibility("default")))
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    convert_to to = (data[0] & 1) ? CONVERT_TO_PERFETTO : CONVERT_TO_JSON;
    /* 1..4192 bytes: pieces smaller than one event too */
    uint64_t max_bytes = 1 + (uint64_t)(data[0] >> 1) * 33;
    data++;
    size--;
    const char *ext = to == CONVERT_TO_JSON ? "json" : "pftrace";
    tread_format fmt = to == CONVERT_TO_JSON ? TREAD_FORMAT_JSON : TREAD_FORMAT_PERFETTO;
    input_unknown = 0;

    char whole[128], prefix[96], piece[128], in[128];
    snprintf(whole, sizeof whole, "%s/whole.%s", dir, ext);
    snprintf(prefix, sizeof prefix, "%s/piece", dir);

    stack_pass sp = {NULL, 0};
    unsigned n_whole = convert(data, size, to, whole, NULL, 0, &sp);
    if (n_whole && sp.ahead)
        second_pass(data, size, whole, &sp);
    unsigned n_pieces = convert(data, size, to, NULL, prefix, max_bytes, NULL);
    if (n_whole && n_pieces) {
        digests w, s;
        digests_init(&w);
        digests_init(&s);
        w.strict = s.strict = 1;
        w.unknown_ok = s.unknown_ok = input_unknown;
        read_back(whole, fmt, &w, 0);
        struct stat st;
        uint64_t whole_size = stat(whole, &st) == 0 ? (uint64_t)st.st_size : 0;
        for (unsigned i = 0; i < n_pieces; i++) {
            snprintf(piece, sizeof piece, "%s-%05u.%s", prefix, i, ext);
            s.cur_piece = i;
            read_back(piece, fmt, &s, 0);
        }
        /* a converting split's bound: against the whole conversion */
        compare(&w, &s, prefix, ext, n_pieces, max_bytes, whole_size, 0);
        check_names_in_pieces(&w, &s);
        digests_free(&w);
        digests_free(&s);
    }
    unlink(whole);
    remove_pieces(prefix, ext);

    /* FXT and Perfetto also split into their own format */
    const char *next = NULL;
    uint64_t lost_ends = 0, v8_split = 0;
    unsigned n_native = split_native(data, size, prefix, max_bytes, &next, &lost_ends, &v8_split);
    if (n_native) {
        snprintf(in, sizeof in, "%s/input", dir);
        FILE *f = fopen(in, "wb");
        if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
            fuzz_fail("cannot write the input to the scratch directory");
        digests w, s;
        digests_init(&w);
        digests_init(&s);
        int text = strcmp(next, "txt") == 0;
        /* ftrace text: the input sniffed (ftrace or a container), its
         * ftrace events against the pieces', each piece sniffed */
        tread_format nf = text ? TREAD_FORMAT_UNKNOWN
                          : strcmp(next, "fxt") == 0 ? TREAD_FORMAT_FXT : TREAD_FORMAT_PERFETTO;
        w.only_ftrace = text;
        w.switch_norm = s.switch_norm = nf == TREAD_FORMAT_PERFETTO;
        w.v8_norm = s.v8_norm = v8_split > 0;
        s.want = text ? TREAD_FORMAT_FTRACE : TREAD_FORMAT_UNKNOWN;
        /* an input that stops with an error: its pieces hold the records
         * before it; only a clean input is compared */
        if (read_back(in, nf, &w, 1) == 0) {
            for (unsigned i = 0; i < n_native; i++) {
                snprintf(piece, sizeof piece, "%s-%05u.%s", prefix, i, next);
                s.cur_piece = i;
                read_back(piece, nf, &s, 0);
            }
            compare(&w, &s, prefix, next, n_native, max_bytes, size, lost_ends);
        }
        digests_free(&w);
        digests_free(&s);
        unlink(in);
    }
    if (next)
        remove_pieces(prefix, next);
    return 0;
}
