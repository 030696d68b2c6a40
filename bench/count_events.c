/*
 * bench/count_events: the benchmark's "small program linked to the
 * library": its callback counts events by kind and reads every name (a
 * checksum over the bytes, so the compiler cannot drop the reads). What a
 * minimal analysis tool costs on top of the decoder.
 *
 * With -j N the file is cut into N byte ranges (TREAD_OPT_RANGE_BEGIN,
 * TREAD_OPT_RANGE_END), each read by a parser of its own on a thread of
 * its own, and the counts are added up: the same totals, on N cores. The
 * cuts are tread stats' (tools/range_cuts.h, tools/range_probe.h): a
 * range also scans those before it, so earlier ones are longer, and a
 * gzip'd JSON file is cut by what it holds (its trailer's size).
 *
 * --read-inline reads the file on the parsing thread
 * (TREAD_OPT_READ_THREAD 0), to measure what the read-ahead thread gains.
 * --single-thread also expands compressed input there
 * (TREAD_OPT_DECOMPRESS_THREAD 0): the whole work on one core, whose CPU
 * time bounds what any split of it between cores could reach.
 *
 * --zlib inflates gzip input and Perfetto compressed packets with zlib
 * (TREAD_OPT_INFLATE 0) instead of isa-l, for the comparison.
 *
 * --ranges prints the ranges' first bytes to standard error, and the size
 * they were cut by ("(decompressed)": what a gzip file holds).
 *
 * Usage: bench/count_events [-j N] [--ranges] [--read-inline | --single-thread] [--zlib] FILE
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tread.h>

#include "range_cuts.h"
#include "range_probe.h"

#define MAX_JOBS 64

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

typedef struct job {
    const char *path;
    int read_inline, decompress_inline, zlib;
    int64_t begin, end; /* end -1: to the end */
    counts c;
    int failed;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    tread_callbacks cb = {.event = on_event};
    tread_parser *p = tread_parser_create(NULL);
    if (!p) {
        j->failed = 1;
        return NULL;
    }
    if ((j->begin && tread_config(p, TREAD_OPT_RANGE_BEGIN, j->begin)) ||
        (j->end >= 0 && tread_config(p, TREAD_OPT_RANGE_END, j->end)) ||
        (j->read_inline && tread_config(p, TREAD_OPT_READ_THREAD, 0)) ||
        (j->decompress_inline && tread_config(p, TREAD_OPT_DECOMPRESS_THREAD, 0)) ||
        (j->zlib && tread_config(p, TREAD_OPT_INFLATE, 0))) {
        fprintf(stderr, "count_events: option not accepted\n");
        j->failed = 1;
    }
    tread_set_callbacks(p, &cb, &j->c);
    tread_status st = j->failed ? TREAD_STATUS_ERROR : tread_parse_path(p, j->path);
    if (st != TREAD_STATUS_OK && !j->failed) {
        fprintf(stderr, "count_events: %s at byte %" PRIu64 ": %s\n",
                tread_error_name(tread_get_error(p)), tread_get_error_offset(p),
                tread_get_error_message(p));
        j->failed = 1;
    }
    tread_parser_free(p);
    return NULL;
}

int main(int argc, char **argv)
{
    int jobs = 1, read_inline = 0, decompress_inline = 0, zlib = 0, show_ranges = 0;
    for (;;) {
        if (argc >= 3 && strcmp(argv[1], "-j") == 0) {
            jobs = atoi(argv[2]);
            argv += 2;
            argc -= 2;
        } else if (argc >= 2 && strcmp(argv[1], "--read-inline") == 0) {
            read_inline = 1;
            argv++;
            argc--;
        } else if (argc >= 2 && strcmp(argv[1], "--ranges") == 0) {
            show_ranges = 1;
            argv++;
            argc--;
        } else if (argc >= 2 && strcmp(argv[1], "--zlib") == 0) {
            zlib = 1;
            argv++;
            argc--;
        } else if (argc >= 2 && strcmp(argv[1], "--single-thread") == 0) {
            read_inline = decompress_inline = 1;
            argv++;
            argc--;
        } else {
            break;
        }
    }
    if (argc != 2 || jobs < 1 || jobs > MAX_JOBS) {
        fprintf(stderr, "usage: count_events [-j N] [--ranges] [--read-inline | --single-thread] [--zlib] FILE\n");
        return 2;
    }
    static job js[MAX_JOBS];
    pthread_t th[MAX_JOBS];
    int64_t size = 0;
    double cost = RANGE_CUTS_FXT_PREFIX_COST, inflate_cost = 0;
    if (jobs > 1) {
        /* cut as tread stats cuts (tools/stats_ranges.c): by what the
         * file holds, gzip'd JSON by its trailer's size */
        struct stat sb;
        if (stat(argv[1], &sb) != 0) {
            perror(argv[1]);
            return 1;
        }
        if (!S_ISREG(sb.st_mode)) { /* each range reads the file from its start */
            fprintf(stderr, "count_events: -j needs a regular file\n");
            return 2;
        }
        size = (int64_t)sb.st_size;
        range_plan rp;
        if (range_plan_file(argv[1], (uint64_t)sb.st_size, NULL, NULL, &rp)) {
            size = (int64_t)rp.size;
            cost = rp.prefix_cost;
            inflate_cost = rp.inflate_cost;
        }
    }
    for (int k = 0; k < jobs; k++) {
        js[k].path = argv[1];
        js[k].read_inline = read_inline;
        js[k].decompress_inline = decompress_inline;
        js[k].zlib = zlib;
        js[k].begin = (int64_t)range_cut_at((uint64_t)size, jobs, k, cost, inflate_cost);
        js[k].end = k == jobs - 1 ? -1
                                  : (int64_t)range_cut_at((uint64_t)size, jobs, k + 1, cost,
                                                          inflate_cost);
    }
    if (show_ranges) {
        fprintf(stderr, "count_events: %d byte ranges of %" PRId64 " bytes%s:", jobs, size,
                inflate_cost > 0 ? " (decompressed)" : "");
        for (int k = 0; k < jobs; k++)
            fprintf(stderr, " %" PRId64, js[k].begin);
        fprintf(stderr, "\n");
    }
    int started = 0;
    for (int k = 1; k < jobs; k++, started++)
        if (pthread_create(&th[k], NULL, run_job, &js[k]) != 0)
            break;
    run_job(&js[0]);
    for (int k = 1; k <= started; k++)
        pthread_join(th[k], NULL);
    if (started != jobs - 1) {
        fprintf(stderr, "count_events: cannot start a thread\n");
        return 1;
    }
    counts c = {{0}, 0, 0};
    for (int k = 0; k < jobs; k++) {
        if (js[k].failed)
            return 1;
        for (int i = 0; i < TREAD_EVENT_KIND_COUNT_; i++)
            c.by_kind[i] += js[k].c.by_kind[i];
        c.name_bytes += js[k].c.name_bytes;
        c.name_sum += js[k].c.name_sum;
    }
    for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++)
        if (c.by_kind[k])
            printf("%-16s %" PRIu64 "\n", tread_event_kind_name((tread_event_kind)k), c.by_kind[k]);
    printf("name bytes %" PRIu64 " (checksum %" PRIu64 ")\n", c.name_bytes, c.name_sum);
    return 0;
}
