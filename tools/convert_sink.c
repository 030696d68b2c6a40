/* convert_sink: see convert_sink.h and doc/convert.md. */
#define _POSIX_C_SOURCE 200809L
#include "convert_sink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int fail(convert_sink *s, const char *what, const char *path, int err)
{
    if (!s->failed)
        snprintf(s->error, sizeof s->error, "%s '%.300s': %s", what, path,
                 strerror(err));
    s->failed = 1;
    return -1;
}

static int fail_msg(convert_sink *s, const char *msg)
{
    if (!s->failed)
        snprintf(s->error, sizeof s->error, "%s", msg);
    s->failed = 1;
    return -1;
}

static void put(convert_sink *s, const void *p, size_t n)
{
    out_buf_write(s->ob, p, n);
    s->piece_bytes += n;
}

static const char *suffix(const convert_sink *s)
{
    return s->to == CONVERT_TO_JSON ? "json" : "pftrace";
}

/* Opens the next output (or the one output) and writes its header. */
static int open_piece(convert_sink *s)
{
    const char *path = s->path;
    if (s->prefix) {
        snprintf(s->piece_path, sizeof s->piece_path, "%s-%05u.%s", s->prefix,
                 s->piece_no, suffix(s));
        path = s->piece_path;
    }
    if (strcmp(path, "-") == 0) {
        s->fp = stdout;
    } else {
        s->fp = fopen(path, "wb");
        if (!s->fp)
            return fail(s, "cannot create", path, errno);
    }
    s->piece_no++;
    out_buf_init(s->ob, s->fp);
    s->piece_bytes = 0;
    s->piece_records = 0;
    if (s->to == CONVERT_TO_JSON) {
        put(s, CONVERT_JSON_HEADER, sizeof CONVERT_JSON_HEADER - 1);
        if (s->meta_len) { /* metadata records, separated already */
            put(s, s->meta, s->meta_len);
            s->piece_records++;
        }
    } else if (s->piece_no > 1) {
        if (convert_perfetto_restart(&s->cp) != 0)
            return fail_msg(s, "out of memory");
        put(s, s->cp.out.data, s->cp.out.len);
        pb_clear(&s->cp.out);
    }
    return 0;
}

static int close_piece(convert_sink *s)
{
    const char *path = s->prefix ? s->piece_path : s->path;
    if (s->to == CONVERT_TO_JSON)
        put(s, CONVERT_JSON_FOOTER, sizeof CONVERT_JSON_FOOTER - 1);
    int rc = 0;
    if (out_buf_flush(s->ob) != 0)
        rc = fail(s, "cannot write", path, s->ob->err);
    if (s->fp && s->fp != stdout) {
        if (fclose(s->fp) != 0 && rc == 0)
            rc = fail(s, "cannot write", path, errno);
    }
    s->fp = NULL;
    if (rc == 0 && s->prefix) {
        /* the pieces, one per line, for xargs and batch engines */
        printf("%s\n", path);
        fflush(stdout);
    }
    return rc;
}

int convert_sink_open(convert_sink *s, convert_to to, const char *path,
                      const char *prefix, uint64_t max_bytes,
                      uint64_t max_interned)
{
    memset(s, 0, sizeof *s);
    s->to = to;
    s->path = path;
    s->prefix = prefix;
    s->max_bytes = max_bytes;
    convert_json_init(&s->cj);
    if (convert_perfetto_init(&s->cp, max_interned,
                              CONVERT_PF_MAX_TRACKS_DEFAULT) != 0)
        return fail_msg(s, "out of memory");
    s->ob = malloc(sizeof *s->ob);
    if (!s->ob)
        return fail_msg(s, "out of memory");
    if (prefix) { /* JSON pieces stage each record */
        s->mem = open_memstream(&s->mem_data, &s->mem_size);
        s->stage = malloc(sizeof *s->stage);
        if (!s->mem || !s->stage)
            return fail_msg(s, "out of memory");
        out_buf_init(s->stage, s->mem);
    }
    return 0; /* the output is opened at the first event (split picks its
                 format from the input's) or at the end */
}

static void keep_metadata(convert_sink *s, const void *rec, size_t n)
{
    size_t need = n + sizeof CONVERT_JSON_SEPARATOR - 1;
    if (s->meta_full)
        return;
    if (s->meta_len + need > CONVERT_MAX_REPEATED_METADATA) {
        s->meta_full = 1;
        fprintf(stderr, "tread: warning: more than %u bytes of process and "
                "thread metadata: later ones are not repeated in every piece\n",
                CONVERT_MAX_REPEATED_METADATA);
        return;
    }
    if (s->meta_len + need > s->meta_cap) {
        size_t cap = s->meta_cap ? s->meta_cap : 4096;
        while (cap < s->meta_len + need)
            cap *= 2;
        unsigned char *p = realloc(s->meta, cap);
        if (!p) {
            s->meta_full = 1;
            return;
        }
        s->meta = p;
        s->meta_cap = cap;
    }
    if (s->meta_len) {
        memcpy(s->meta + s->meta_len, CONVERT_JSON_SEPARATOR,
               sizeof CONVERT_JSON_SEPARATOR - 1);
        s->meta_len += sizeof CONVERT_JSON_SEPARATOR - 1;
    }
    memcpy(s->meta + s->meta_len, rec, n);
    s->meta_len += n;
}

static int json_event(convert_sink *s, const tread_event *ev)
{
    cvj_class c = convert_json_classify(ev);
    const size_t sep = sizeof CONVERT_JSON_SEPARATOR - 1;
    if (c == CVJ_SKIP) {
        s->skipped++;
        return 0;
    }
    if (!s->prefix) { /* one output: straight to it */
        if (s->records)
            out_buf_write(s->ob, CONVERT_JSON_SEPARATOR, sep);
        if (convert_json_event(&s->cj, s->ob, ev) != 0)
            return fail_msg(s, "out of memory while writing args");
        s->records++;
        return s->ob->failed ? fail(s, "cannot write", s->path, s->ob->err) : 0;
    }
    /* split: stage the record, then decide which piece it goes to */
    if (fseeko(s->mem, 0, SEEK_SET) != 0)
        return fail_msg(s, "cannot stage a record");
    out_buf_init(s->stage, s->mem);
    if (convert_json_event(&s->cj, s->stage, ev) != 0 ||
        out_buf_flush(s->stage) != 0)
        return fail_msg(s, "out of memory while staging a record");
    off_t n = ftello(s->mem);
    if (n < 0)
        return fail_msg(s, "cannot stage a record");
    size_t len = (size_t)n;
    const size_t footer = sizeof CONVERT_JSON_FOOTER - 1;
    if (s->piece_records &&
        s->piece_bytes + sep + len + footer > s->max_bytes) {
        if (close_piece(s) != 0 || open_piece(s) != 0)
            return -1;
    }
    if (s->piece_records)
        put(s, CONVERT_JSON_SEPARATOR, sep);
    put(s, s->mem_data, len);
    s->piece_records++;
    s->records++;
    if (c == CVJ_METADATA)
        keep_metadata(s, s->mem_data, len);
    return s->ob->failed ? fail(s, "cannot write", s->piece_path, s->ob->err) : 0;
}

static int perfetto_event(convert_sink *s, const tread_event *ev)
{
    if (!convert_perfetto_wanted(ev)) {
        s->skipped++;
        return 0;
    }
    if (convert_perfetto_event(&s->cp, ev) != 0)
        return fail_msg(s, s->cp.error);
    if (s->prefix && s->piece_records &&
        s->piece_bytes + s->cp.out.len > s->max_bytes) {
        /* encode it again after the restart: its interned names and
         * tracks must be in the new piece */
        pb_clear(&s->cp.out);
        if (close_piece(s) != 0 || open_piece(s) != 0)
            return -1;
        if (convert_perfetto_event(&s->cp, ev) != 0)
            return fail_msg(s, s->cp.error);
    }
    if (s->cp.out.len) {
        put(s, s->cp.out.data, s->cp.out.len);
        s->piece_records++;
        s->records++;
    }
    pb_clear(&s->cp.out);
    if (s->ob->failed)
        return fail(s, "cannot write", s->prefix ? s->piece_path : s->path,
                    s->ob->err);
    return 0;
}

int convert_sink_event(convert_sink *s, const tread_event *ev)
{
    if (s->failed)
        return -1;
    if (!s->fp) {
        if (s->to == CONVERT_TO_NONE)
            s->to = ev->format == TREAD_FORMAT_PERFETTO ? CONVERT_TO_PERFETTO
                                                        : CONVERT_TO_JSON;
        if (open_piece(s) != 0)
            return -1;
    }
    return s->to == CONVERT_TO_JSON ? json_event(s, ev) : perfetto_event(s, ev);
}

int convert_sink_close(convert_sink *s)
{
    if (s->failed)
        return -1;
    if (!s->fp) { /* no event at all: an empty trace */
        if (s->to == CONVERT_TO_NONE)
            s->to = CONVERT_TO_JSON;
        if (open_piece(s) != 0)
            return -1;
    }
    int rc = close_piece(s);
    return s->failed ? -1 : rc;
}

void convert_sink_free(convert_sink *s)
{
    if (s->fp && s->fp != stdout)
        fclose(s->fp);
    s->fp = NULL;
    if (s->mem)
        fclose(s->mem);
    free(s->mem_data);
    free(s->stage);
    free(s->ob);
    free(s->meta);
    convert_json_free(&s->cj);
    convert_perfetto_free(&s->cp);
    memset(s, 0, sizeof *s);
}
