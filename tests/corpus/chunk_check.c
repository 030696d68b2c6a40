/* The chunk-boundary and resume test: for each file, the canonical dump of
 * everything tread delivers must be identical whether the input is fed
 * whole, in chunks of 4096, 7 or 1 byte(s), or with a stop (and resume)
 * after every event, and whether plain records take the fast path or
 * yajl reads everything (TREAD_OPT_JSON_FAST_PATH 0). The reference
 * expands Perfetto compressed packets inline, every other run on the
 * decompression thread (TREAD_OPT_DECOMPRESS_THREAD). To bound the run time (sanitizer builds in CI), files
 * with more than $CHUNK_FULL_EVENTS events (default 15000) get chunks of
 * 4096 and 509 bytes and a stop every 97 events instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "event_dump.h"

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
