/*
 * bench/count_events: the benchmark's "small program linked to the
 * library": its callback counts events by kind and reads every name (a
 * checksum over the bytes, so the compiler cannot drop the reads). What a
 * minimal analysis tool costs on top of the decoder.
 *
 * Usage: bench/count_events FILE
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <tread.h>

typedef struct counts {
    uint64_t by_kind[TREAD_EVENT_KIND_COUNT_];
    uint64_t name_bytes;
    uint64_t name_sum;
} counts;

static int on_event(void *user, const tread_event *ev)
{
    counts *c = user;
    c->by_kind[ev->kind]++;
    const unsigned char *s = (const unsigned char *)ev->name.ptr;
    size_t n = ev->name.len, i = 0;
    c->name_bytes += n;
    /* every byte is read: eight at a time, summed in 16-bit lanes */
    uint64_t sum = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        w = (w & 0x00ff00ff00ff00ffULL) + ((w >> 8) & 0x00ff00ff00ff00ffULL);
        sum += (w * 0x0001000100010001ULL) >> 48;
    }
    for (; i < n; i++)
        sum += s[i];
    c->name_sum += sum;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: count_events FILE\n");
        return 2;
    }
    static counts c;
    tread_callbacks cb = {.event = on_event};
    tread_parser *p = tread_parser_create(NULL);
    if (!p)
        return 1;
    tread_set_callbacks(p, &cb, &c);
    tread_status st = tread_parse_path(p, argv[1]);
    if (st != TREAD_STATUS_OK) {
        fprintf(stderr, "count_events: %s at byte %" PRIu64 ": %s\n",
                tread_error_name(tread_get_error(p)), tread_get_error_offset(p),
                tread_get_error_message(p));
        tread_parser_free(p);
        return 1;
    }
    for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++)
        if (c.by_kind[k])
            printf("%-16s %" PRIu64 "\n", tread_event_kind_name((tread_event_kind)k), c.by_kind[k]);
    printf("name bytes %" PRIu64 " (checksum %" PRIu64 ")\n", c.name_bytes, c.name_sum);
    tread_parser_free(p);
    return 0;
}
