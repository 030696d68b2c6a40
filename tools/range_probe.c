/* range_probe: see range_probe.h. */
#define _POSIX_C_SOURCE 200809L
#include "range_probe.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "range_cuts.h"

int range_probe(const char *path, int (*configure)(tread_parser *p, const void *arg),
                const void *arg, tread_format *f, tread_compression *c)
{
    int ok = 0;
    tread_parser *p = tread_parser_create(NULL);
    unsigned char *buf = malloc(RANGE_PROBE_BYTES);
    int fd = open(path, O_RDONLY);
    if (p && buf && fd >= 0 && (!configure || configure(p, arg) == 0)) {
        ssize_t n = read(fd, buf, RANGE_PROBE_BYTES);
        if (n > 0 && tread_feed(p, buf, (size_t)n) != TREAD_STATUS_ERROR) {
            tread_stats st;
            tread_get_stats(p, &st);
            /* a small compressed file: the decompressor may hold all of
             * it until the end of input */
            if (st.format == TREAD_FORMAT_UNKNOWN && st.compression != TREAD_COMPRESSION_NONE) {
                (void)tread_finish(p);
                tread_get_stats(p, &st);
            }
            *f = st.format;
            *c = st.compression;
            ok = 1;
        }
    }
    if (fd >= 0)
        close(fd);
    free(buf);
    tread_parser_free(p);
    return ok;
}

uint64_t range_gzip_holds(const char *path, uint64_t file_size)
{
    unsigned char t[4];
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t n = file_size >= 18 ? pread(fd, t, 4, (off_t)(file_size - 4)) : -1;
    close(fd);
    if (n != 4)
        return 0;
    uint64_t isize = (uint64_t)t[0] | (uint64_t)t[1] << 8 | (uint64_t)t[2] << 16 |
                     (uint64_t)t[3] << 24;
    if (file_size >= (4u << 20))
        while (isize < file_size)
            isize += 1ull << 32;
    return isize;
}

int range_plan_file(const char *path, uint64_t file_size,
                    int (*configure)(tread_parser *p, const void *arg), const void *arg,
                    range_plan *plan)
{
    tread_format f;
    tread_compression c;
    if (!range_probe(path, configure, arg, &f, &c))
        return 0;
    plan->inflate_cost = 0;
    if (c == TREAD_COMPRESSION_NONE && (f == TREAD_FORMAT_FXT || f == TREAD_FORMAT_JSON)) {
        plan->size = file_size;
    } else if (c == TREAD_COMPRESSION_GZIP && f == TREAD_FORMAT_JSON) {
        plan->size = range_gzip_holds(path, file_size);
        plan->inflate_cost = RANGE_CUTS_GZIP_INFLATE_COST;
        if (!plan->size)
            return 0;
    } else {
        return 0;
    }
    plan->prefix_cost = f == TREAD_FORMAT_JSON ? RANGE_CUTS_JSON_PREFIX_COST
                                               : RANGE_CUTS_FXT_PREFIX_COST;
    return 1;
}
