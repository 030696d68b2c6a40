/* The chunk-boundary and resume test: for each file, the canonical dump of
 * everything tread delivers must be identical whether the input is fed
 * whole, in chunks of 4096, 7 or 1 byte(s), or with a stop (and resume)
 * after every event. Chunk size 1 is skipped for files larger than
 * $CHUNK1_MAX bytes (default 4 MiB) to bound the run time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "event_dump.h"

static void first_difference(const char *a, const char *b)
{
    size_t line = 1, i = 0;
    while (a[i] && a[i] == b[i]) {
        if (a[i] == '\n') line++;
        i++;
    }
    const char *la = a + i, *lb = b + i;
    while (la > a && la[-1] != '\n') la--;
    while (lb > b && lb[-1] != '\n') lb--;
    fprintf(stderr, "  first difference at line %zu:\n  want: %.300s\n  got:  %.300s\n", line, la, lb);
}

static int check_file(const char *path, size_t chunk1_max)
{
    size_t len;
    unsigned char *buf = dump_read_file(path, &len);
    if (!buf) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    dump ref;
    dump_init(&ref);
    dump_parse(&ref, buf, len, 0, NULL);
    static const size_t chunks[] = {4096, 7, 1};
    int bad = 0;
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0] + 1; c++) {
        dump d;
        dump_init(&d);
        size_t chunk = c < 3 ? chunks[c] : 65536;
        if (chunk == 1 && len > chunk1_max)
            continue;
        if (c == 3)
            d.stop_every = 1; /* stop after every event, resume */
        dump_parse(&d, buf, len, chunk, NULL);
        if (!ref.text || !d.text || strcmp(ref.text, d.text) != 0 ||
            (c == 3 && d.events && d.stops == 0)) {
            fprintf(stderr, "MISMATCH %s with %s %zu\n", path, c == 3 ? "stops, chunk" : "chunk", chunk);
            if (ref.text && d.text)
                first_difference(ref.text, d.text);
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
    const char *env = getenv("CHUNK1_MAX");
    size_t chunk1_max = env ? (size_t)strtoull(env, NULL, 10) : (size_t)4 << 20;
    int bad = 0;
    for (int i = 1; i < argc; i++)
        bad |= check_file(argv[i], chunk1_max);
    return bad;
}
