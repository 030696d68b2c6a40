#include "core/sniff.h"
#include "ftrace/ftrace_line.h"

#include <string.h>

tread_compression tread_sniff_compression(const unsigned char *d, size_t n,
                                          int final, int *need_more)
{
    static const unsigned char gz[2] = {0x1f, 0x8b};
    static const unsigned char zst[4] = {0x28, 0xb5, 0x2f, 0xfd};
    *need_more = 0;
    if (n >= 2 && memcmp(d, gz, 2) == 0)
        return TREAD_COMPRESSION_GZIP;
    if (n >= 4 && memcmp(d, zst, 4) == 0)
        return TREAD_COMPRESSION_ZSTD;
    /* zstd skippable frame: 0x184D2A5? little endian */
    if (n >= 4 && (d[0] & 0xf0) == 0x50 && d[1] == 0x2a && d[2] == 0x4d && d[3] == 0x18)
        return TREAD_COMPRESSION_ZSTD;
    if (!final && n < 4) {
        /* could still become a magic number */
        int maybe = (n == 0) || (d[0] == 0x1f && n < 2) || d[0] == 0x28 ||
                    (d[0] & 0xf0) == 0x50;
        if (n >= 2 && d[0] == 0x28)
            maybe = d[1] == 0xb5 && (n < 3 || d[2] == 0x2f);
        if (n >= 2 && (d[0] & 0xf0) == 0x50)
            maybe = d[1] == 0x2a && (n < 3 || d[2] == 0x4d);
        if (maybe) {
            *need_more = 1;
            return TREAD_COMPRESSION_NONE;
        }
    }
    return TREAD_COMPRESSION_NONE;
}

static int is_ws(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* Whitespace and JSON comments (accepted by the JSON decoder). */
static size_t skip_ws_comments(const unsigned char *d, size_t n, size_t j)
{
    for (;;) {
        while (j < n && is_ws(d[j]))
            j++;
        if (j >= n || d[j] != '/')
            return j;
        if (j + 1 >= n)
            return n; /* a '/' at the end: maybe a comment, undecided */
        if (d[j + 1] == '/') {
            while (j < n && d[j] != '\n')
                j++;
        } else if (d[j + 1] == '*') {
            size_t k = j + 2;
            while (k + 1 < n && !(d[k] == '*' && d[k + 1] == '/'))
                k++;
            if (k + 1 >= n)
                return n; /* the comment goes on: undecided */
            j = k + 2;
        } else {
            return j;
        }
    }
}

/* Is there a plausible protobuf field key at d? */
static int pb_key_ok(unsigned char c)
{
    unsigned wt = c & 7;
    return (c >> 3) != 0 && (wt == 0 || wt == 1 || wt == 2 || wt == 5);
}

static int has_prefix_ci(const unsigned char *d, size_t n, const char *s)
{
    size_t k = strlen(s);
    if (n < k)
        return 0;
    for (size_t i = 0; i < k; i++) {
        unsigned char c = d[i];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        if (c != (unsigned char)s[i])
            return 0;
    }
    return 1;
}

static int contains(const unsigned char *d, size_t n, const char *s)
{
    size_t k = strlen(s);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(d + i, s, k) == 0)
            return 1;
    return 0;
}

/* A .cpuprofile is a JSON object whose first key is one of a V8 profile's
 * (DevTools and node write "nodes" first; "samples" also opens Chrome
 * traces, so it does not count). d is just past the key's opening quote.
 * 1: a profile key, 0: another key, -1: undecided yet. Only whole bytes
 * decide, so more input never changes the answer. */
static int cpuprofile_key(const unsigned char *d, size_t n)
{
    static const char *const keys[] = {"nodes", "startTime", "endTime", "timeDeltas"};
    int open = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        size_t k = strlen(keys[i]);
        size_t m = n < k + 1 ? n : k + 1;
        /* the key and its closing quote */
        if (m <= k) {
            if (memcmp(d, keys[i], m) == 0)
                open = 1;
        } else if (memcmp(d, keys[i], k) == 0 && d[k] == '"') {
            return 1;
        }
    }
    return open ? -1 : 0;
}

tread_format tread_sniff_format(const unsigned char *d, size_t n, int final,
                                int *need_more)
{
    static const unsigned char fxt_magic[8] = {0x10, 0x00, 0x04, 0x46, 0x78, 0x54, 0x16, 0x00};
    *need_more = 0;
    if (n == 0) {
        *need_more = !final;
        return TREAD_FORMAT_UNKNOWN;
    }
    /* FXT: the magic number record; a big-endian archive's is reversed
     * (recognised, so that the FXT decoder can say it is unsupported). */
    static const unsigned char fxt_magic_be[8] = {0x00, 0x16, 0x54, 0x78, 0x46, 0x04, 0x00, 0x10};
    if (d[0] == 0x00) {
        if (n < 8 && !final) {
            if (memcmp(d, fxt_magic_be, n) == 0)
                return *need_more = 1, TREAD_FORMAT_UNKNOWN;
        } else if (n >= 8 && memcmp(d, fxt_magic_be, 8) == 0) {
            return TREAD_FORMAT_FXT;
        }
    }
    /* FXT without the magic record (the format only says it "generally"
     * comes first): a provider info metadata record whose size is exactly
     * its header and name, which no text or protobuf start matches. */
    if (n >= 8 && (d[0] & 0x0f) == 0 && (d[2] & 0x0f) == 1 && (d[7] >> 4) == 0) {
        unsigned words = ((unsigned)d[0] >> 4) | ((unsigned)d[1] << 4);
        unsigned name_len = ((unsigned)d[6] >> 4) | (((unsigned)d[7] & 0x0f) << 4);
        if (words == 1 + (name_len + 7) / 8)
            return TREAD_FORMAT_FXT;
    }
    if (d[0] == 0x10) {
        if (n < 8 && !final) {
            *need_more = memcmp(d, fxt_magic, n) == 0;
            if (*need_more)
                return TREAD_FORMAT_UNKNOWN;
        } else if (n >= 8 && memcmp(d, fxt_magic, 8) == 0) {
            return TREAD_FORMAT_FXT;
        }
    }
    /* trace-cmd's trace.dat: 0x17 0x08 0x44 "tracing" */
    if (d[0] == 0x17) {
        static const unsigned char td_magic[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
        size_t k = n < 10 ? n : 10;
        if (memcmp(d, td_magic, k) == 0) {
            if (k == 10)
                return TREAD_FORMAT_TRACEDAT;
            if (!final)
                return *need_more = 1, TREAD_FORMAT_UNKNOWN;
        }
    }
    size_t i = 0;
    if (n >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf)
        i = 3; /* UTF-8 byte-order mark */
    else if (!final && n < 3 && d[0] == 0xef)
        return *need_more = 1, TREAD_FORMAT_UNKNOWN;
    size_t j = skip_ws_comments(d, n, i);
    /* Perfetto: field 1 (packet), length-delimited, then a packet whose
     * first key is a valid protobuf key. A JSON text may also start with
     * '\n', so look for JSON first when the bytes after the whitespace
     * read like the start of a JSON trace. */
    if (j < n && (d[j] == '{' || d[j] == '[')) {
        size_t k = j + 1;
        while (k < n && is_ws(d[k]))
            k++;
        if (k >= n && !final && n < TREAD_SNIFF_MAX)
            return *need_more = 1, TREAD_FORMAT_UNKNOWN;
        if (d[j] == '{' && k < n && d[k] == '"') {
            int c = cpuprofile_key(d + k + 1, n - k - 1);
            if (c < 0 && !final && n < TREAD_SNIFF_MAX)
                return *need_more = 1, TREAD_FORMAT_UNKNOWN;
            if (c > 0)
                return TREAD_FORMAT_CPUPROFILE;
        }
        if (k >= n || d[k] == '"' || d[k] == '}' || d[k] == ']' || d[k] == '{' ||
            d[k] == '/' || d[0] != 0x0a)
            return TREAD_FORMAT_JSON;
    }
    if (j >= n && !final && n < TREAD_SNIFF_MAX)
        return *need_more = 1, TREAD_FORMAT_UNKNOWN; /* only blanks so far */
    /* ftrace text after blank lines ("\n# tracer: nop": catapult's
     * atrace_data_raw), before the Perfetto test that '\n' would pass */
    if (i == 0 && (d[0] == '\n' || d[0] == '\r') && j < n && d[j] == '#') {
        static const char tracer[] = "# tracer";
        size_t m = n - j < sizeof tracer - 1 ? n - j : sizeof tracer - 1;
        if (memcmp(d + j, tracer, m) == 0) {
            if (m == sizeof tracer - 1)
                return TREAD_FORMAT_FTRACE;
            if (!final)
                return *need_more = 1, TREAD_FORMAT_UNKNOWN;
        }
    }
    if (i == 0 && d[0] == 0x0a) {
        size_t k = 1;
        uint64_t len = 0;
        int shift = 0;
        while (k < n && k < 11 && (d[k] & 0x80)) {
            len |= (uint64_t)(d[k] & 0x7f) << shift;
            shift += 7;
            k++;
        }
        if (k >= n) {
            if (!final)
                return *need_more = 1, TREAD_FORMAT_UNKNOWN;
        } else if (shift < 64) { /* (ten continuation bytes: no length) */
            len |= (uint64_t)(d[k] & 0x7f) << shift;
            k++;
            if (len == 0 || k >= n) {
                if (!final && k >= n)
                    return *need_more = 1, TREAD_FORMAT_UNKNOWN;
                if (len == 0)
                    return TREAD_FORMAT_PERFETTO;
            } else if (pb_key_ok(d[k])) {
                return TREAD_FORMAT_PERFETTO;
            }
        }
    }
    if (j >= n) {
        if (!final && n < TREAD_SNIFF_MAX)
            return *need_more = 1, TREAD_FORMAT_UNKNOWN;
        return TREAD_FORMAT_UNKNOWN;
    }
    /* Text: ftrace and systrace HTML (see corpus/ftrace/GRAMMAR.md). */
    size_t window = n - i < 128 ? n - i : 128;
    /* the text rules look at 128 bytes (and the 2 of a zlib header after
     * a ctrace "TRACE:\n" ending there), and at the 14 of "<!doctype
     * html" where blanks and comments end: decide on them only, whatever
     * the chunking */
    static const char doctype[] = "<!doctype html";
    if ((n - i < 128 + 2 || n - j < sizeof doctype - 1) && !final && n < TREAD_SNIFF_MAX)
        return *need_more = 1, TREAD_FORMAT_UNKNOWN;
    const unsigned char *t = d + i;
    if (has_prefix_ci(t + (j - i), n - j, doctype) || has_prefix_ci(t + (j - i), n - j, "<html"))
        return TREAD_FORMAT_SYSTRACE;
    /* ftrace text's own first line ("# tracer: nop", trace-cmd report's
     * "version = 6" or "cpus=4") decides before anything later in the
     * window can: a text so begun stays ftrace whatever lines follow
     * (a piece of tread split starts so, doc/convert.md) */
    if (has_prefix_ci(t, n - i, "# tracer") || has_prefix_ci(t, n - i, "cpus=") ||
        has_prefix_ci(t, n - i, "version = "))
        return TREAD_FORMAT_FTRACE;
    /* ctrace: "TRACE:\n" (atrace's marker, after whatever adb printed)
     * then a zlib header (78 01/5e/9c/da) */
    for (size_t k = 0; k + 9 <= n - i && k + 7 <= window; k++)
        if (memcmp(t + k, "TRACE:\n", 7) == 0 && t[k + 7] == 0x78 &&
            ((0x78 << 8) | t[k + 8]) % 31 == 0)
            return TREAD_FORMAT_SYSTRACE;
    if (contains(t, window, "# tracer") || contains(t, window, "TRACE:\n") ||
        has_prefix_ci(t, n - i, "cpus=") || has_prefix_ci(t, n - i, "version = ") ||
        (t[0] == ' ' && j < n && d[j] != '{' && d[j] != '['))
        return TREAD_FORMAT_FTRACE; /* "version = 6": trace-cmd report */
    if (d[j] == '{' || d[j] == '[')
        return TREAD_FORMAT_JSON;
    /* bare ftrace lines (trace_pipe, trimmed dumps): the first line has the
     * event line shape; decided once that line is complete */
    size_t lim = n < TREAD_SNIFF_MAX ? n : TREAD_SNIFF_MAX; /* same answer for any n */
    const unsigned char *nl = j < lim ? memchr(d + j, '\n', lim - j) : NULL;
    if (!nl && !final && n < TREAD_SNIFF_MAX)
        return *need_more = 1, TREAD_FORMAT_UNKNOWN;
    ftrace_line fl;
    ftrace_parse_line((const char *)d + j, j < lim ? (size_t)((nl ? nl : d + lim) - (d + j)) : 0, &fl);
    if (fl.kind == FTRACE_LINE_EVENT || fl.kind == FTRACE_LINE_FUNCTION ||
        fl.kind == FTRACE_LINE_LOST)
        return TREAD_FORMAT_FTRACE;
    return TREAD_FORMAT_UNKNOWN;
}
