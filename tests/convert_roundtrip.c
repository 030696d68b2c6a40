/*
 * convert_roundtrip: the conversions of tests/convert_roundtrip.sh in one
 * process (a process per file and step would cost minutes on the corpus).
 *
 *   convert_roundtrip OUTDIR SAMPLE_BYTES < FILES
 *
 * For each input path on standard input (one per line), numbered N from 1:
 * writes `tread cat` of the original (its first SAMPLE_BYTES bytes) to
 * OUTDIR/N.orig, converts it with the same code as `tread convert` to
 * OUTDIR/N.json and OUTDIR/N.perfetto, and writes `tread cat` of each to
 * OUTDIR/N.json.cat and OUTDIR/N.perfetto.cat. A Perfetto conversion whose
 * events named frames defined after them is made again with the frames
 * known ahead, as `tread convert` does to a file (cmd_convert.c), and
 * OUTDIR/N.perfetto.ahead says so. Prints one line per file:
 * "N PATH" or "N PATH unsupported" (the format has no decoder yet).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tread.h>

#include "convert_sink.h"
#include "ndjson_writer.h"

typedef struct cat_ctx {
    ndjson_writer w;
} cat_ctx;

static int cat_event(void *user, const tread_event *ev)
{
    cat_ctx *c = user;
    ndjson_write_event(&c->w, ev);
    return 0;
}

static int sink_event(void *user, const tread_event *ev)
{
    return convert_sink_event(user, ev) != 0;
}

/* Parses path (at most limit bytes), sending events to cb. Returns the
 * parser's error code. */
static tread_error parse(const char *path, uint64_t limit,
                         int (*cb)(void *, const tread_event *), void *user)
{
    static unsigned char buf[1 << 20];
    tread_parser *p = tread_parser_create(NULL);
    tread_callbacks cbs = {.event = cb};
    tread_set_callbacks(p, &cbs, user);
    FILE *f = fopen(path, "rb");
    if (!f) {
        tread_parser_free(p);
        return TREAD_ERROR_IO;
    }
    uint64_t fed = 0;
    tread_status st = TREAD_STATUS_OK;
    while (st == TREAD_STATUS_OK && fed < limit) {
        size_t want = sizeof buf;
        if (limit - fed < want)
            want = (size_t)(limit - fed);
        size_t n = fread(buf, 1, want, f);
        if (n == 0)
            break;
        fed += n;
        st = tread_feed(p, buf, n);
    }
    if (st == TREAD_STATUS_OK)
        st = tread_finish(p);
    tread_error e = st == TREAD_STATUS_ERROR ? tread_get_error(p) : TREAD_ERROR_NONE;
    fclose(f);
    tread_parser_free(p);
    return e;
}

static tread_error cat(const char *in, uint64_t limit, const char *out)
{
    FILE *f = fopen(out, "wb");
    if (!f) {
        perror(out);
        exit(99);
    }
    out_buf *ob = malloc(sizeof *ob);
    cat_ctx c;
    out_buf_init(ob, f);
    ndjson_writer_init(&c.w, ob);
    tread_error e = parse(in, limit, cat_event, &c);
    out_buf_flush(ob);
    ndjson_writer_free(&c.w);
    free(ob);
    fclose(f);
    return e;
}

static void convert(const char *in, uint64_t limit, convert_to to,
                    const char *out)
{
    cvp_stacks *ahead = NULL;
    for (int pass = 1; pass <= 2; pass++) {
        convert_sink s;
        if (convert_sink_open(&s, to, out, NULL, 0,
                              CONVERT_PF_MAX_INTERNED_DEFAULT) != 0) {
            fprintf(stderr, "%s\n", s.error);
            exit(99);
        }
        if (ahead)
            convert_sink_preload_frames(&s, ahead);
        parse(in, limit, sink_event, &s);
        int rc = convert_sink_close(&s);
        if (rc != 0)
            fprintf(stderr, "%s: %s\n", in, s.error);
        int again = pass == 1 && rc == 0 && to == CONVERT_TO_PERFETTO && s.sf_missing &&
                    s.frames_late;
        if (again) {
            ahead = convert_sink_take_frames(&s);
            char mark[4300];
            snprintf(mark, sizeof mark, "%s.ahead", out);
            FILE *m = fopen(mark, "w");
            if (!m) {
                perror(mark);
                exit(99);
            }
            fclose(m);
        }
        convert_sink_free(&s);
        if (!again)
            break;
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: convert_roundtrip OUTDIR SAMPLE_BYTES < FILES\n");
        return 2;
    }
    const char *dir = argv[1];
    uint64_t limit = strtoull(argv[2], NULL, 10);
    char line[4096], a[4200], b[4200];
    unsigned n = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        if (!line[0])
            continue;
        n++;
        snprintf(a, sizeof a, "%s/%u.orig", dir, n);
        if (cat(line, limit, a) == TREAD_ERROR_UNSUPPORTED) {
            printf("%u %s unsupported\n", n, line);
            continue;
        }
        static const char *const names[] = {"json", "perfetto"};
        for (int i = 0; i < 2; i++) {
            snprintf(a, sizeof a, "%s/%u.%s", dir, n, names[i]);
            snprintf(b, sizeof b, "%s/%u.%s.cat", dir, n, names[i]);
            convert(line, limit, i ? CONVERT_TO_PERFETTO : CONVERT_TO_JSON, a);
            cat(a, UINT64_MAX, b);
        }
        printf("%u %s\n", n, line);
        fflush(stdout);
    }
    return 0;
}
