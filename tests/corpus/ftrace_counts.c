/* Prints, for each file named, what tread reads from it as ftrace text:
 * format, events by kind, atrace events by phase letter, warnings by kind,
 * the decoder's format counters, and the error if any, under a line
 * "== FILE". tests/corpus/ftrace_corpus.sh compares this with reviewed
 * goldens; tests/corpus/ftrace_manifest.py with the corpus manifest. */
#include <stdio.h>
#include <string.h>
#include <tread.h>

typedef struct counts {
    unsigned long long phase[128];
    unsigned long long clock_sync;
} counts;

static int on_event(void *user, const tread_event *ev)
{
    counts *c = user;
    if (ev->kind == TREAD_EVENT_CLOCK_SYNC)
        c->clock_sync++;
    else if (ev->phase > 0 && ev->phase < 128)
        c->phase[ev->phase]++;
    return 0;
}

static void one(const char *path)
{
    counts c;
    memset(&c, 0, sizeof c);
    tread_parser *p = tread_parser_create(NULL);
    tread_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.event = on_event;
    tread_set_callbacks(p, &cb, &c);
    tread_status st = tread_parse_path(p, path);
    tread_stats s;
    tread_get_stats(p, &s);
    printf("== %s\n", path);
    printf("format %s\ncompression %s\n", tread_format_name(s.format),
           tread_compression_name(s.compression));
    printf("events %llu\n", (unsigned long long)s.events);
    for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++)
        if (s.events_by_kind[k])
            printf("kind %s %llu\n", tread_event_kind_name((tread_event_kind)k),
                   (unsigned long long)s.events_by_kind[k]);
    for (int ph = 1; ph < 128; ph++)
        if (c.phase[ph])
            printf("atrace %c %llu\n", ph, c.phase[ph]);
    if (c.clock_sync)
        printf("atrace clock_sync %llu\n", c.clock_sync);
    for (int k = 0; k < TREAD_WARN_KIND_COUNT_; k++)
        if (s.warnings_by_kind[k])
            printf("warning %s %llu\n", tread_warning_name((tread_warning_kind)k),
                   (unsigned long long)s.warnings_by_kind[k]);
    tread_counter ctr[128];
    size_t n = tread_get_format_counters(p, ctr, 128);
    for (size_t i = 0; i < n && i < 128; i++)
        if (ctr[i].value)
            printf("counter %s %llu\n", ctr[i].name, (unsigned long long)ctr[i].value);
    if (st == TREAD_STATUS_ERROR)
        printf("error %s at %llu: %s\n", tread_error_name(tread_get_error(p)),
               (unsigned long long)tread_get_error_offset(p), tread_get_error_message(p));
    tread_parser_free(p);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ftrace_counts FILE...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++)
        one(argv[i]);
    return 0;
}
