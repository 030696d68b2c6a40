/*
 * split_cat: `tread cat` of many files in one process, for
 * tests/split_contract.sh (a process per piece would cost minutes).
 *
 *   split_cat < FILES
 *
 * For each path on standard input (one per line): its events as the lines
 * `tread cat` writes (tools/ndjson_writer.c), each after "PIECE OFFSET\t":
 * the file's line number from 0 and the byte offset of its record; then
 * "# decoded N", its decoded size (Perfetto compressed packets expanded),
 * and "# status S", 1 when it stopped with an error. Exit 1 when a file does not read cleanly
 * (an error); warnings are counted per file on standard error.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tread.h>

#include "ndjson_writer.h"
#include "out_buf.h"

typedef struct cat_ctx {
    ndjson_writer w;
    out_buf *ob;
    unsigned piece;
    uint64_t warnings;
} cat_ctx;

static int cat_event(void *user, const tread_event *ev)
{
    cat_ctx *c = user;
    char pre[64];
    int n = snprintf(pre, sizeof pre, "%u %llu\t", c->piece,
                     (unsigned long long)ev->offset);
    out_buf_write(c->ob, pre, (size_t)n);
    ndjson_write_event(&c->w, ev);
    return 0;
}

static int on_warning(void *user, const tread_warning *w)
{
    (void)w;
    ((cat_ctx *)user)->warnings++;
    return 0;
}

int main(void)
{
    static out_buf ob;
    cat_ctx c = {.ob = &ob};
    out_buf_init(&ob, stdout);
    ndjson_writer_init(&c.w, &ob);
    char line[4096];
    int rc = 0;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        if (!line[0])
            continue;
        tread_parser *p = tread_parser_create(NULL);
        tread_callbacks cb = {.event = cat_event, .warning = on_warning};
        tread_set_callbacks(p, &cb, &c);
        c.warnings = 0;
        int rc_file = 0;
        if (tread_parse_path(p, line) != TREAD_STATUS_OK) {
            rc_file = 1;
            fprintf(stderr, "split_cat: %s: %s at byte %llu: %s\n", line,
                    tread_error_name(tread_get_error(p)),
                    (unsigned long long)tread_get_error_offset(p),
                    tread_get_error_message(p));
            rc = 1;
        }
        tread_stats st;
        tread_get_stats(p, &st);
        uint64_t decoded = st.bytes_decoded;
        tread_counter fc[64];
        size_t nfc = tread_get_format_counters(p, fc, 64);
        for (size_t i = 0; i < nfc && i < 64; i++)
            if (strcmp(fc[i].name, "compressed_bytes_expanded") == 0)
                decoded += fc[i].value; /* copied expanded into pieces */
        out_buf_printf(&ob, "# decoded %llu\n", (unsigned long long)decoded);
        out_buf_printf(&ob, "# status %d\n", rc_file);
        if (c.warnings)
            fprintf(stderr, "split_cat: %s: %llu warnings\n", line,
                    (unsigned long long)c.warnings);
        tread_parser_free(p);
        c.piece++;
    }
    out_buf_flush(&ob);
    ndjson_writer_free(&c.w);
    return rc;
}
