/*
 * libFuzzer harness for the trace.dat decoder alone: the format is forced
 * and decompression is off, so every input goes to the header states,
 * the format parser, the page reader and the event mapping
 * (lib/tracedat/), read as a stream (the file mode's pread is covered by
 * tests/unit/test_tracedat and the recordings), and the lazy
 * TREAD_ARGS_TRACEDAT codec, which the driver (harness.c) walks for every
 * event. Each input is parsed whole and in random chunks with pauses; both
 * must agree. Half the time the metadata limit is small enough for a few
 * KiB to reach it. Then the input is read once more as a file (a memfd
 * given to tread_parse_fd): the decoder's own pread path, v7, the merge
 * by time and the lazy kallsyms and printk loads, its args walked (its
 * order differs from the stream's, so only the sanitizers judge it).
 */
#define _GNU_SOURCE 1 /* memfd_create */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tread.h>

#include "harness.h"

static int walk(void *u, const tread_event *e)
{
    tread_args_iter it;
    tread_arg a;
    size_t *n = u;
    tread_args_iter_init(&it, &e->args);
    while (tread_args_next(&it, &a))
        *n += a.key.len + (a.type == TREAD_ARG_STRING || a.type == TREAD_ARG_BYTES ? a.v.s.len : 1);
    *n += e->name.len + e->provider_name.len;
    return 0;
}

static void as_file(const uint8_t *data, size_t size, int64_t max_meta)
{
    int fd = memfd_create("fuzz_tracedat", 0);
    if (fd < 0)
        return;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return;
    }
    lseek(fd, 0, SEEK_SET);
    tread_parser *p = tread_parser_create(NULL);
    if (!p)
        abort();
    tread_callbacks cb = {0};
    size_t n = 0;
    cb.event = walk;
    tread_set_callbacks(p, &cb, &n);
    tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_TRACEDAT);
    tread_config(p, TREAD_OPT_DECOMPRESS, 0);
    tread_config(p, TREAD_OPT_READ_THREAD, 0);
    tread_config(p, TREAD_OPT_MAX_TRACEDAT_META_BYTES, max_meta);
    tread_config(p, TREAD_OPT_MAX_WARNINGS_REPORTED, 0);
    (void)tread_parse_fd(p, fd);
    tread_parser_free(p);
    close(fd);
}

__attribute__((visibility("default")))
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_rng r;
    fuzz_rng_init(&r, data, size);
    int64_t max_meta = fuzz_rng_below(&r, 2) ? (int64_t)1 << 24
                                             : 4096 + (int64_t)fuzz_rng_below(&r, 8192);
    int64_t max_warnings = fuzz_rng_below(&r, 4) == 0 ? (int64_t)fuzz_rng_below(&r, 4) : -1;

    fuzz_option opts[2] = {{TREAD_OPT_MAX_TRACEDAT_META_BYTES, max_meta},
                           {TREAD_OPT_MAX_WARNINGS_REPORTED, max_warnings}};
    fuzz_forced_pair(TREAD_FORMAT_TRACEDAT, opts, max_warnings >= 0 ? 2 : 1, data, size);
    as_file(data, size, max_meta);
    return 0;
}
