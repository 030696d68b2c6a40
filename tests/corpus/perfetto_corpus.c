/* The Perfetto corpus against reviewed golden files, in one process (the
 * 400 difftests would cost a process each): for every file, what
 * tests/corpus/corpus_counts prints (format, compression, events by kind,
 * warnings by kind, error) followed by the non-zero Perfetto format
 * counters, compared with GOLDEN_DIR/REL.expected, or written there with
 * --update.
 *
 * Usage: perfetto_corpus [--update] GOLDEN_DIR CORPUS_DIR REL... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tread.h>

static char *counts(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    tread_parser *p = tread_parser_create(NULL);
    tread_status st = tread_parse_path(p, path);
    tread_stats s;
    tread_get_stats(p, &s);
    fprintf(f, "format %s\ncompression %s\n", tread_format_name(s.format),
            tread_compression_name(s.compression));
    fprintf(f, "bytes_decoded %llu\nrecords %llu\nevents %llu\n",
            (unsigned long long)s.bytes_decoded, (unsigned long long)s.records,
            (unsigned long long)s.events);
    for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++)
        if (s.events_by_kind[k])
            fprintf(f, "kind %s %llu\n", tread_event_kind_name((tread_event_kind)k),
                    (unsigned long long)s.events_by_kind[k]);
    for (int k = 0; k < TREAD_WARN_KIND_COUNT_; k++)
        if (s.warnings_by_kind[k])
            fprintf(f, "warning %s %llu\n", tread_warning_name((tread_warning_kind)k),
                    (unsigned long long)s.warnings_by_kind[k]);
    if (st == TREAD_STATUS_ERROR)
        fprintf(f, "error %s at %llu: %s\n", tread_error_name(tread_get_error(p)),
                (unsigned long long)tread_get_error_offset(p), tread_get_error_message(p));
    size_t n = tread_get_format_counters(p, NULL, 0);
    tread_counter *cs = n ? malloc(n * sizeof *cs) : NULL;
    if (cs) {
        n = tread_get_format_counters(p, cs, n);
        for (size_t i = 0; i < n; i++)
            if (cs[i].value && strcmp(cs[i].name, "interned_bytes_held") != 0)
                fprintf(f, "counter %s %llu\n", cs[i].name, (unsigned long long)cs[i].value);
        free(cs);
    }
    tread_parser_free(p);
    fclose(f);
    return text;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0, cap = 0, n;
    char buf[4096];
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            char *t = realloc(text, cap);
            if (!t) {
                free(text);
                fclose(f);
                return NULL;
            }
            text = t;
        }
        memcpy(text + len, buf, n);
        len += n;
    }
    fclose(f);
    if (!text)
        text = calloc(1, 1);
    else
        text[len] = 0;
    return text;
}

int main(int argc, char **argv)
{
    int update = argc > 1 && strcmp(argv[1], "--update") == 0;
    if (argc < 3 + update) {
        fprintf(stderr, "usage: perfetto_corpus [--update] GOLDEN_DIR CORPUS_DIR REL...\n");
        return 2;
    }
    const char *golden_dir = argv[1 + update], *corpus = argv[2 + update];
    int bad = 0, n = 0;
    for (int i = 3 + update; i < argc; i++) {
        char path[4096], gpath[4096];
        snprintf(path, sizeof path, "%s/%s", corpus, argv[i]);
        snprintf(gpath, sizeof gpath, "%s/%s.expected", golden_dir, argv[i]);
        char *got = counts(path);
        if (!got) {
            fprintf(stderr, "FAIL %s: out of memory\n", argv[i]);
            bad = 1;
            continue;
        }
        n++;
        if (update) {
            FILE *f = fopen(gpath, "wb");
            if (!f || fputs(got, f) < 0) {
                fprintf(stderr, "FAIL %s: cannot write %s\n", argv[i], gpath);
                bad = 1;
            }
            if (f)
                fclose(f);
        } else {
            char *want = slurp(gpath);
            if (!want) {
                printf("FAIL %s: no golden file %s\n", argv[i], gpath);
                bad = 1;
            } else if (strcmp(want, got) != 0) {
                printf("FAIL %s\n--- %s\n%s+++ got\n%s", argv[i], gpath, want, got);
                bad = 1;
            }
            free(want);
        }
        free(got);
    }
    printf("%d files %s\n", n, update ? "written" : "checked");
    return bad;
}
