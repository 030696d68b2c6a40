/*
 * libFuzzer harness for the Chrome JSON decoder alone: the format is forced
 * (JSON, or for a third of the inputs the .cpuprofile reading of the same
 * decoder) and decompression is off, so every input goes straight to the
 * JSON tokenizer, record assembly and event mapping, V8 profiles
 * included (a small TREAD_OPT_MAX_PROFILE_NODES half the time). Each input is parsed whole
 * with yajl reading everything (TREAD_OPT_JSON_FAST_PATH 0, the
 * reference), whole with the fast path, and in chunks with pauses
 * (harness.c) with the fast path on or off; all runs must agree. JSON
 * (not .cpuprofile) is read again as two byte ranges cut at a random
 * offset, chunked and paused, which must give between them what the
 * whole gives: every callback in order, and the whole's error from the
 * first range that fails (doc/formats/json.md, "Byte ranges"). A
 * quarter of those inputs is read as two ranges once more, gzip'd and
 * inflated by the parser (on its thread or inline), as `tread stats`
 * reads a .json.gz: the same must come out. And every input is read by
 * lib/json/json_tokens.c's scanner and by yajl, which must agree.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tread.h>
#include <zlib.h>

#include "harness.h"
#include "core/alloc.h"
#include "json/json_tokens.h"

/* Options drawn once per input, applied to both runs. */
typedef struct json_options {
    int64_t max_event_bytes;
    int64_t max_depth;        /* 0: the default */
    int64_t max_string_bytes; /* 0: the default */
    int strict;
    int64_t max_warnings;     /* -1: the default */
    int stressed_fast;        /* the fast path in the stressed run */
    tread_format format;      /* JSON or CPUPROFILE */
    int64_t max_profile_nodes; /* 0: the default */
} json_options;

static void draw_options(json_options *o, fuzz_rng *r)
{
    /* The defaults half the time, else limits a few KiB of input reach. */
    o->max_event_bytes = fuzz_rng_below(r, 2) ? (int64_t)1 << 20
                                              : 64 + (int64_t)fuzz_rng_below(r, 4096);
    o->max_depth = fuzz_rng_below(r, 2) ? 1 + (int64_t)fuzz_rng_below(r, 32) : 0;
    o->max_string_bytes = fuzz_rng_below(r, 2) ? 1 + (int64_t)fuzz_rng_below(r, 1024) : 0;
    o->strict = fuzz_rng_below(r, 4) == 0;
    o->max_warnings = fuzz_rng_below(r, 4) == 0 ? (int64_t)fuzz_rng_below(r, 4) : -1;
    o->stressed_fast = fuzz_rng_below(r, 4) != 0;
    o->format = fuzz_rng_below(r, 3) == 0 ? TREAD_FORMAT_CPUPROFILE : TREAD_FORMAT_JSON;
    o->max_profile_nodes = fuzz_rng_below(r, 2) ? 16 + (int64_t)fuzz_rng_below(r, 64) : 0;
}

/* data gzip'd into a malloc'd buffer (*out_len), or NULL. */
static unsigned char *gzip_of(const uint8_t *data, size_t size, size_t *out_len)
{
    z_stream z = {0};
    if (deflateInit2(&z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = deflateBound(&z, (uLong)size) + 32;
    unsigned char *out = malloc(cap);
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    if (!out || deflate(&z, Z_FINISH) != Z_STREAM_END) {
        deflateEnd(&z);
        free(out);
        return NULL;
    }
    *out_len = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

static tread_parser *new_parser(const json_options *o, int fast)
{
    tread_parser *p = tread_parser_create(NULL);
    if (!p)
        abort();
    if (tread_config(p, TREAD_OPT_FORMAT, o->format) != 0 ||
        tread_config(p, TREAD_OPT_DECOMPRESS, 0) != 0 ||
        tread_config(p, TREAD_OPT_MAX_EVENT_BYTES, o->max_event_bytes) != 0)
        fuzz_fail("tread_config rejects FORMAT, DECOMPRESS or MAX_EVENT_BYTES");
    if (o->max_depth)
        tread_config(p, TREAD_OPT_MAX_DEPTH, o->max_depth);
    if (o->max_string_bytes)
        tread_config(p, TREAD_OPT_MAX_STRING_BYTES, o->max_string_bytes);
    if (o->strict)
        tread_config(p, TREAD_OPT_LENIENT, 0);
    if (o->max_profile_nodes &&
        tread_config(p, TREAD_OPT_MAX_PROFILE_NODES, o->max_profile_nodes) != 0)
        fuzz_fail("tread_config rejects MAX_PROFILE_NODES");
    if (o->max_warnings >= 0)
        tread_config(p, TREAD_OPT_MAX_WARNINGS_REPORTED, o->max_warnings);
    if (tread_config(p, TREAD_OPT_JSON_FAST_PATH, fast) != 0)
        fuzz_fail("tread_config rejects JSON_FAST_PATH");
    return p;
}

static void check_ranges(const json_options *o, const fuzz_outcome *whole, const uint8_t *data,
                         size_t size, uint64_t cut, int gzipped, int inline_inflate);

__attribute__((visibility("default")))
/* lib/json/json_tokens.c (the JSON of a Perfetto V8 profile record): the
 * scanner for plain JSON and yajl, its oracle, read the input alike:
 * result, tokens, error and its byte. */
static void check_text_tokens(const uint8_t *data, size_t size, int max_depth)
{
    tread_alloc a;
    tread_alloc_init(&a, NULL);
    tread_buf x, y;
    tread_buf_init(&x, &a, 1 << 20);
    tread_buf_init(&y, &a, 1 << 20);
    const char *wx = NULL, *wy = NULL;
    size_t ax = 0, ay = 0;
    int rx = json_text_tokens(&a, data, size, max_depth, &x, &wx, &ax);
    int ry = json_text_tokens_yajl(&a, data, size, max_depth, &y, &wy, &ay);
    if (rx != ry || x.len != y.len || (x.len && memcmp(x.data, y.data, x.len) != 0) ||
        (rx == -1 && (ax != ay || strcmp(wx, wy) != 0)))
        fuzz_fail("json_text_tokens: the scanner and yajl differ");
    tread_buf_free(&x);
    tread_buf_free(&y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_rng r;
    json_options o;
    fuzz_rng_init(&r, data, size);
    draw_options(&o, &r);
    check_text_tokens(data, size, o.max_depth ? (int)o.max_depth : 64);

    /* yajl alone whole, the fast path whole, then the stressed run */
    static const int stressed[3] = {0, 0, 1};
    int fast[3] = {0, 1, o.stressed_fast};
    fuzz_outcome out[3];
    for (int i = 0; i < 3; i++) {
        fuzz_plan plan = {stressed[i], SIZE_MAX, 0, o.format, 0};
        tread_parser *p = new_parser(&o, fast[i]);
        fuzz_run(p, &plan, data, size, &out[i]);
        tread_parser_free(p);
    }
    fuzz_compare(&out[0], &out[1]);
    fuzz_compare_errors(&out[0], &out[1]);
    fuzz_compare(&out[0], &out[2]);
    /* the offending byte whatever the chunking: byte ranges are fed in
     * other pieces than the whole, and must give its error */
    fuzz_compare_errors(&out[0], &out[2]);
    /* the same reader whole and stressed: the same statistics and counters */
    fuzz_compare_counts(&out[o.stressed_fast ? 1 : 0], &out[2]);
    if (o.format != TREAD_FORMAT_JSON)
        return 0;

    uint64_t cut = fuzz_rng_below(&r, (uint64_t)size + 9);
    check_ranges(&o, &out[0], data, size, cut, 0, 0);
    if (fuzz_rng_below(&r, 4) == 0) {
        size_t gn = 0;
        unsigned char *gz = gzip_of(data, size, &gn);
        if (gz)
            check_ranges(&o, &out[0], gz, gn, cut, 1, (int)fuzz_rng_below(&r, 2));
        free(gz);
    }
    return 0;
}

/* Byte ranges [0, cut) and [cut, end) of data (gzip'd: the whole's bytes
 * deflated, inflated by the parser, inline or on its thread) against the
 * whole run: the digest of the second range goes on from the first's. */
static void check_ranges(const json_options *o, const fuzz_outcome *whole, const uint8_t *data,
                         size_t size, uint64_t cut, int gzipped, int inline_inflate)
{
    const fuzz_outcome *out = whole;
    fuzz_outcome part[2];
    if (getenv("TREAD_FUZZ_VERBOSE"))
        fprintf(stderr, "fuzz: byte ranges cut at %llu%s%s; max_event_bytes %lld, max_depth %lld, "
                        "max_string_bytes %lld, strict %d, fast %d\n",
                (unsigned long long)cut, gzipped ? ", gzip'd" : "",
                gzipped ? (inline_inflate ? ", inline" : ", threaded") : "",
                (long long)o->max_event_bytes, (long long)o->max_depth,
                (long long)o->max_string_bytes, o->strict, o->stressed_fast);
    for (int i = 0; i < 2; i++) {
        fuzz_plan plan = {1, SIZE_MAX, 0, o->format, i ? part[0].digest : 0};
        tread_parser *p = new_parser(o, o->stressed_fast);
        if (tread_config(p, i ? TREAD_OPT_RANGE_BEGIN : TREAD_OPT_RANGE_END, (int64_t)cut) != 0)
            fuzz_fail("tread_config rejects a byte range");
        if (gzipped && (tread_config(p, TREAD_OPT_DECOMPRESS, 1) != 0 ||
                        tread_config(p, TREAD_OPT_DECOMPRESS_THREAD, !inline_inflate) != 0))
            fuzz_fail("tread_config rejects DECOMPRESS or DECOMPRESS_THREAD");
        fuzz_run(p, &plan, data, size, &part[i]);
        tread_parser_free(p);
        if (part[0].status == TREAD_STATUS_ERROR)
            break; /* the ranges after the first that fails are not read */
    }
    int whole_failed = out[0].status == TREAD_STATUS_ERROR;
    int last = part[0].status == TREAD_STATUS_ERROR ? 0 : 1;
    if (whole_failed != (part[last].status == TREAD_STATUS_ERROR))
        fuzz_fail(whole_failed ? "byte ranges: the whole's error is no range's"
                               : "byte ranges: an error the whole does not have");
    if (whole_failed)
        fuzz_compare_errors(&out[0], &part[last]);
    uint64_t events = part[0].events + (last ? part[1].events : 0);
    uint64_t records = part[0].records + (last ? part[1].records : 0);
    uint64_t warnings = part[0].warnings + (last ? part[1].warnings : 0);
    if (getenv("TREAD_FUZZ_VERBOSE"))
        fprintf(stderr, "fuzz: whole %llu events %llu records %llu warnings; ranges %llu+%llu, "
                        "%llu+%llu, %llu+%llu\n",
                (unsigned long long)out[0].events, (unsigned long long)out[0].records,
                (unsigned long long)out[0].warnings, (unsigned long long)part[0].events,
                (unsigned long long)(last ? part[1].events : 0), (unsigned long long)part[0].records,
                (unsigned long long)(last ? part[1].records : 0), (unsigned long long)part[0].warnings,
                (unsigned long long)(last ? part[1].warnings : 0));
    if (events != out[0].events || records != out[0].records ||
        (o->max_warnings < 0 && (warnings != out[0].warnings || part[last].digest != out[0].digest)))
        fuzz_fail(gzipped ? "byte ranges of the gzip'd input: the two ranges do not add up to the whole"
                          : "byte ranges: the two ranges do not add up to the whole");
}
