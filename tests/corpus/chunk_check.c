/* The chunk-boundary and resume test: for each file, the canonical dump of
 * everything tread delivers must be identical whether the input is fed
 * whole, in chunks of 4096, 7 or 1 byte(s), or with a stop (and resume)
 * after every event, and whether plain records take the fast path or
 * yajl reads everything (TREAD_OPT_JSON_FAST_PATH 0). The reference
 * expands Perfetto compressed packets inline, every other run on the
 * decompression thread (TREAD_OPT_DECOMPRESS_THREAD). To bound the run time (sanitizer builds in CI), files
 * with more than $CHUNK_FULL_EVENTS events (default 15000) get chunks of
 * 4096 and 509 bytes and a stop every 97 events instead. FXT files are
 * and JSON files are also read in byte ranges (check_ranges). gzip and Perfetto files are
 * also inflated by zlib, the oracle of the default engine isa-l
 * (check_inflate_engines). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "event_dump.h"

/* Byte ranges (TREAD_OPT_RANGE_*, FXT and JSON): the dumps of K ranges
 * that cover the file, put end to end without their status lines up to
 * the first range that fails, equal the whole file's, that range's error
 * is the whole's, and each range's stats count its own events only. */
static int check_ranges(const char *path, const unsigned char *buf, size_t len,
                        const dump *ref, int full)
{
    static const int cuts[] = {2, 3, 7};
    size_t ref_body = dump_body_len(ref->text);
    int bad = 0;
    for (size_t c = 0; c < 2 * sizeof cuts / sizeof cuts[0] && !bad; c++) {
        int k = cuts[c / 2];
        size_t chunk = c % 2 ? (full ? 7 : 509) : 0;
        if (!full && c != 2 && c != 5)
            continue; /* big files (sanitizer builds): 3 whole, 7 in chunks */
        dump all;
        dump_init(&all);
        const char *ref_status = ref->text + ref_body;
        size_t ref_err = strstr(ref_status, " events=") ? (size_t)(strstr(ref_status, " events=") - ref_status) : 0;
        int failed = 0;
        for (int i = 0; i < k && !failed; i++) {
            int64_t begin = (int64_t)(len / (size_t)k * (size_t)i);
            int64_t end = i == k - 1 ? -1 : (int64_t)(len / (size_t)k * (size_t)(i + 1));
            const int64_t opts[] = {TREAD_OPT_RANGE_BEGIN, begin, TREAD_OPT_RANGE_END, end, 0};
            dump d;
            dump_init(&d);
            dump_parse(&d, buf, len, chunk, opts);
            size_t n = dump_body_len(d.text);
            char want[64];
            snprintf(want, sizeof want, " events=%zu ", d.events);
            if (!strstr(d.text + n, want)) {
                fprintf(stderr, "MISMATCH %s range %d of %d: stats events not %zu: %s", path,
                        i, k, d.events, d.text + n);
                bad = 1;
            }
            dump_printf(&all, "%.*s", (int)n, d.text);
            failed = strncmp(d.text + n, "status=0 ", 9) != 0;
            if ((failed || strncmp(ref_status, "status=0 ", 9) != 0) &&
                (failed || i == k - 1) && strncmp(d.text + n, ref_status, ref_err) != 0) {
                fprintf(stderr, "MISMATCH %s range %d of %d: %s, not %s", path, i, k,
                        d.text + n, ref_status);
                bad = 1;
            }
            dump_free(&d);
        }
        if (!all.text || all.len != ref_body || memcmp(all.text, ref->text, ref_body) != 0) {
            fprintf(stderr, "MISMATCH %s in %d ranges, chunk %zu\n", path, k, chunk);
            if (all.text)
                dump_show_difference(ref->text, all.text);
            bad = 1;
        }
        dump_free(&all);
    }
    return bad;
}

/* The inflate engines (TREAD_OPT_INFLATE): zlib, the oracle, gives what
 * the default engine (isa-l when built with it) gave, for gzip input and
 * Perfetto compressed packets; nothing else inflates through them. */
static int check_inflate_engines(const char *path, const unsigned char *buf, size_t len,
                                 const dump *ref)
{
    static const int64_t zlib_engine[] = {TREAD_OPT_INFLATE, 0, TREAD_OPT_DECOMPRESS_THREAD, 0, 0};
    dump d;
    dump_init(&d);
    dump_parse(&d, buf, len, 0, zlib_engine);
    int bad = !d.text || strcmp(ref->text, d.text) != 0;
    if (bad) {
        fprintf(stderr, "MISMATCH %s inflated by zlib\n", path);
        if (d.text)
            dump_show_difference(ref->text, d.text);
    }
    dump_free(&d);
    return bad;
}

static int check_file(const char *path, size_t full_events)
{
    size_t len;
    unsigned char *buf = dump_read_file(path, &len);
    if (!buf) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    dump ref;
    dump_init(&ref);
    static const int64_t inline_expansion[] = {TREAD_OPT_DECOMPRESS_THREAD, 0, 0};
    dump_parse(&ref, buf, len, 0, inline_expansion);
    int full = ref.events <= full_events;
    const size_t chunks[] = {4096, full ? 7 : 509, full ? 1 : 4096};
    int bad = 0;
    static const int64_t yajl_only[] = {TREAD_OPT_JSON_FAST_PATH, 0, 0};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0] + 2; c++) {
        dump d;
        dump_init(&d);
        size_t chunk = c < 3 ? chunks[c] : c == 3 ? 65536 : 0;
        if (c == 2 && !full)
            continue;
        if (c == 3)
            d.stop_every = full ? 1 : 97; /* stop, then resume */
        dump_parse(&d, buf, len, chunk, c == 4 ? yajl_only : NULL);
        if (!ref.text || !d.text || strcmp(ref.text, d.text) != 0 ||
            (c == 3 && d.events && d.stops == 0)) {
            fprintf(stderr, "MISMATCH %s with %s %zu\n", path,
                    c == 3 ? "stops, chunk" : c == 4 ? "yajl only, chunk" : "chunk", chunk);
            if (ref.text && d.text)
                dump_show_difference(ref.text, d.text);
            bad = 1;
        }
        dump_free(&d);
    }
    if (ref.text && (strstr(ref.text + dump_body_len(ref.text), " format=fxt ") ||
                     strstr(ref.text + dump_body_len(ref.text), " format=json ")))
        bad |= check_ranges(path, buf, len, &ref, full);
    if (ref.text && (strstr(ref.text + dump_body_len(ref.text), " compression=gzip") ||
                     strstr(ref.text + dump_body_len(ref.text), " format=perfetto ")))
        bad |= check_inflate_engines(path, buf, len, &ref);
    printf("%s %s (%zu events)\n", bad ? "FAIL" : "ok", path, ref.events);
    dump_free(&ref);
    free(buf);
    return bad;
}

int main(int argc, char **argv)
{
    const char *env = getenv("CHUNK_FULL_EVENTS");
    size_t full_events = env ? (size_t)strtoull(env, NULL, 10) : 15000;
    int bad = 0;
    for (int i = 1; i < argc; i++)
        bad |= check_file(argv[i], full_events);
    return bad;
}
