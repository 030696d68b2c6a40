/* Prints what tread reads from a trace: format, compression, events by
 * kind, warnings by kind, and the error if any. The corpus tests compare
 * this with reviewed golden files. */
#include <stdio.h>
#include <tread.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: corpus_counts FILE\n");
        return 2;
    }
    tread_parser *p = tread_parser_create(NULL);
    tread_status st = tread_parse_path(p, argv[1]);
    tread_stats s;
    tread_get_stats(p, &s);
    printf("format %s\ncompression %s\n", tread_format_name(s.format),
           tread_compression_name(s.compression));
    printf("bytes_decoded %llu\nrecords %llu\nevents %llu\n", (unsigned long long)s.bytes_decoded,
           (unsigned long long)s.records, (unsigned long long)s.events);
    for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++)
        if (s.events_by_kind[k])
            printf("kind %s %llu\n", tread_event_kind_name((tread_event_kind)k),
                   (unsigned long long)s.events_by_kind[k]);
    for (int k = 0; k < TREAD_WARN_KIND_COUNT_; k++)
        if (s.warnings_by_kind[k])
            printf("warning %s %llu\n", tread_warning_name((tread_warning_kind)k),
                   (unsigned long long)s.warnings_by_kind[k]);
    if (st == TREAD_STATUS_ERROR)
        printf("error %s at %llu: %s\n", tread_error_name(tread_get_error(p)),
               (unsigned long long)tread_get_error_offset(p), tread_get_error_message(p));
    tread_parser_free(p);
    return 0;
}
