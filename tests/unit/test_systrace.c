/* Containers: Android systrace HTML (trace-data blocks holding ftrace
 * text, JSON, or base64 of zlib; trace2html viewer-data; the 2012
 * linuxPerfData string) and ctrace ("TRACE:\n" + zlib). Inputs are built
 * here (zlib for the compressed forms). Every input also goes through the
 * "all chunkings agree" check (whole, 1-byte and 7-byte chunks, a stop
 * after every event). Expected events: doc/formats/systrace.md and
 * doc/formats/ftrace.md (sched_switch, atrace B/E). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <tread.h>

#include "json_collect.h"

/* Three ftrace lines: a context switch, an atrace slice. */
#define FTRACE_TEXT                                                                       \
    "# tracer: nop\n"                                                                     \
    "#\n"                                                                                 \
    "          <idle>-0     [000] d..2.   100.000001: sched_switch: prev_comm=swapper/0 " \
    "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=foo next_pid=12 next_prio=120\n" \
    "             foo-12    [000] .....   100.000002: tracing_mark_write: B|12|work\n"   \
    "             foo-12    [000] .....   100.000003: tracing_mark_write: E|12\n"

#define JSON_TEXT "{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"j\",\"ts\":5,\"pid\":1,\"tid\":2}]}"

static char buf[65536];

static void check_ftrace_events(size_t first)
{
    CHECK(C.nev >= first + 3);
    if (C.nev < first + 3)
        return;
    CHECK_EQ_INT(C.ev[first].kind, TREAD_EVENT_CONTEXT_SWITCH);
    CHECK_EQ_INT(C.ev[first + 1].kind, TREAD_EVENT_SLICE_BEGIN);
    CHECK(str_is(&C.ev[first + 1].name, "work"));
    CHECK_EQ_INT(C.ev[first + 2].kind, TREAD_EVENT_SLICE_END);
    CHECK_EQ_INT(C.ev[first].format, TREAD_FORMAT_FTRACE); /* the sub-trace's own */
}

static size_t b64(const unsigned char *in, size_t n, char *out)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        out[o++] = t[v >> 18];
        out[o++] = t[(v >> 12) & 63];
        out[o++] = i + 1 < n ? t[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? t[v & 63] : '=';
        if (o % 77 == 76)
            out[o++] = '\n'; /* line breaks are skipped */
    }
    out[o] = 0;
    return o;
}

/* zlib (wbits 15) or gzip (wbits 31) of s. */
static size_t deflate_to(const char *s, int wbits, unsigned char *out, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    CHECK(deflateInit2(&z, 6, Z_DEFLATED, wbits, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    z.next_in = (unsigned char *)s;
    z.avail_in = (uInt)strlen(s);
    z.next_out = out;
    z.avail_out = (uInt)cap;
    CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
    size_t n = z.total_out;
    deflateEnd(&z);
    return n;
}

static void test_trace_data_text(void)
{
    snprintf(buf, sizeof buf,
             "<!DOCTYPE html>\n<html><head><script>var x = '<b>' + 1 < 2;</script>\n"
             "<script src=\"viewer.js\"></script></head><body>\n<!-- BEGIN TRACE -->\n"
             "  <script class=\"trace-data\" type=\"application/text\">\n%s  </script>\n"
             "  <script class=\"trace-data\" type=\"application/text\">\n%s\n  </script>\n"
             "<!-- END TRACE -->\n</body></html>\n",
             FTRACE_TEXT, JSON_TEXT);
    PARSE(buf);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.stats.format, TREAD_FORMAT_SYSTRACE);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 4);
    check_ftrace_events(0);
    if (C.nev == 4) {
        CHECK_EQ_INT(C.ev[3].kind, TREAD_EVENT_INSTANT);
        CHECK(str_is(&C.ev[3].name, "j"));
        /* a text block's events carry their lines' offsets in the page
         * (the block's first bytes are held to sniff it: they were once
         * reported at the <script tag) */
        CHECK_EQ_INT(C.ev[0].offset, offset_of(buf, "          <idle>-0", 0));
        CHECK_EQ_INT(C.ev[1].offset, offset_of(buf, "             foo-12", 0));
        CHECK_EQ_INT(C.ev[2].offset, offset_of(buf, "             foo-12", 1));
    }
    /* the nested ftrace decoder's counters, under its format's name */
    CHECK_EQ_INT(counter_of("data_blocks"), 2);
    /* (the block's text: a blank line after the tag, the 5 lines, the
     * blanks before </script>; blank lines count as header lines) */
    CHECK_EQ_INT(counter_of("ftrace.lines"), 7);
    CHECK_EQ_INT(counter_of("ftrace.event_lines"), 3);
    CHECK_EQ_INT(counter_of("ftrace.header_lines"), 4);
}

static void test_trace_data_base64(void)
{
    /* base64 of zlib of ftrace text; base64 of plain JSON */
    static unsigned char z[8192];
    static char t1[16384], t2[4096];
    size_t zn = deflate_to(FTRACE_TEXT, 15, z, sizeof z);
    b64(z, zn, t1);
    b64((const unsigned char *)JSON_TEXT, strlen(JSON_TEXT), t2);
    snprintf(buf, sizeof buf,
             "<html><body>\n<script class=\"trace-data\" type=\"application/text\">\n%s\n</script>\n"
             "<script class=\"trace-data\" type=\"application/text\">%s</SCRIPT>\n</body></html>\n",
             t1, t2);
    PARSE(buf);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 4);
    check_ftrace_events(0);
}

static void test_viewer_data(void)
{
    static unsigned char z[8192];
    static char t[16384];
    size_t zn = deflate_to(FTRACE_TEXT, 31, z, sizeof z);
    b64(z, zn, t);
    snprintf(buf, sizeof buf,
             "<!doctype html>\n<html>\n<script id=\"viewer-data\" type=\"text/plain\">\n%s\n</script>\n"
             "</html>\n",
             t);
    PARSE(buf);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 3);
    check_ftrace_events(0);
}

/* A viewer-data block that the input cuts off (no </script>) and that
 * inflates to several times the sub-trace's stage (16 KiB): a stop while
 * the pump still had compressed bytes left them all to the end, after the
 * cut block's warning, where a run without stops inflates them as the
 * input comes and leaves only the last stage for the end (fuzz_systrace).
 * PARSE's stop runs compare the order. */
static void test_cut_viewer_data_paused(void)
{
    static char text[81920];
    static unsigned char z[16384];
    static char t[24576];
    static char pad[1001];
    memset(pad, '#', 1000);
    size_t o = (size_t)snprintf(text, sizeof text, "# tracer: nop\n");
    for (int i = 0; i < 60; i++) /* 60 slices, each after a comment: 63 KiB */
        o += (size_t)snprintf(text + o, sizeof text - o,
                              "%s\n             foo-%d    [000] .....   100.%06d: "
                              "tracing_mark_write: B|%d|w%d\n",
                              pad, 12 + i % 7, i, 12 + i % 7, i);
    size_t zn = deflate_to(text, 31, z, sizeof z);
    b64(z, zn, t);
    snprintf(buf, sizeof buf,
             "<!doctype html>\n<html>\n<script id=\"viewer-data\" type=\"text/plain\">\n%s\n",
             t);
    PARSE(buf);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 60);
    CHECK_EQ_INT(C.nwarn, 1);
    if (C.nwarn == 1)
        CHECK_EQ_INT(C.warn[0].kind, TREAD_WARN_TRUNCATED_EVENT);
}

static void test_linux_perf_data(void)
{
    /* 2012 systrace: each line ends with the JS escape \n and a
     * continuation backslash */
    char text[] = FTRACE_TEXT;
    char js[4096];
    size_t o = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        o += (size_t)snprintf(js + o, sizeof js - o, "%s\\n\\\n", line);
    snprintf(buf, sizeof buf,
             "<!DOCTYPE html>\n<html>\n<body>\n  <script>\n  'use strict';\n"
             "  var linuxPerfData = \"\\\n%s\";\n  </script>\n</body>\n</html>\n",
             js);
    PARSE(buf);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 3);
    check_ftrace_events(0);
}

static void test_ctrace(void)
{
    static unsigned char in[16384];
    memcpy(in, "TRACE:\n", 7);
    size_t zn = deflate_to(FTRACE_TEXT, 15, in + 7, sizeof in - 7);
    parse_at(in, 7 + zn, NULL, __LINE__);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.stats.format, TREAD_FORMAT_SYSTRACE);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 3);
    check_ftrace_events(0);

    /* adb's own line first; junk after the zlib stream: a warning at its
     * first byte, the events kept */
    static unsigned char in2[16384];
    const char *pre = "capturing trace... done\nTRACE:\n";
    size_t pl = strlen(pre);
    memcpy(in2, pre, pl);
    memcpy(in2 + pl, in + 7, zn);
    memcpy(in2 + pl + zn, "junk after the stream", 21);
    parse_at(in2, pl + zn + 21, NULL, __LINE__);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 3);
    CHECK_EQ_INT(C.nwarn, 1);
    CHECK(has_warning_at(TREAD_WARN_TRAILING_DATA, pl + zn));

    /* ftrace text's own first line decides before a ctrace marker later
     * in the sniffer's window (a piece of tread split may start so) */
    static const char *firsts[] = {"# tracer: nop\n", "version = 6\n", "cpus=4\n"};
    for (size_t f = 0; f < 3; f++) {
        static unsigned char in3[16384];
        size_t fl = strlen(firsts[f]);
        memcpy(in3, firsts[f], fl);
        memcpy(in3 + fl, in, 7 + zn);
        parse_at(in3, fl + 7 + zn, NULL, __LINE__);
        CHECK_EQ_INT(C.stats.format, TREAD_FORMAT_FTRACE);
    }

    /* cut short: what came is decoded, and said */
    parse_at(in, 7 + zn - 4, NULL, __LINE__);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(count_warnings(TREAD_WARN_COMPRESSED_TRUNCATED), 1);
    CHECK(C.nev >= 3);
}

/* A JSON trace cut short, longer than the sniffer's window
 * (TREAD_SNIFF_MAX, 4096 bytes): a sub-trace holds its first bytes to
 * sniff them, then passes the rest zero-copy. Its "missing }" is said at
 * the end of its input. */
static size_t cut_json(char *out, size_t cap)
{
    char pad[6001];
    memset(pad, 'a', sizeof pad - 1);
    pad[sizeof pad - 1] = 0;
    return (size_t)snprintf(out, cap,
                            "{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"j\",\"ts\":5,\"pid\":1,"
                            "\"tid\":2},\n{\"ph\":\"i\",\"name\":\"k\",\"ts\":6,\"pid\":1,"
                            "\"tid\":2,\"args\":{\"pad\":\"%s\"}}]",
                            pad);
}

/* The offsets a nested decoder reports when its input ends are the same
 * whatever the feeding: every chunk size from 1 byte to the whole (the
 * end offset once came from where the last staged bytes ended, so it
 * depended on which bytes were staged and which passed). */
static void test_end_offsets(void)
{
    static char json[8192], b[16384];
    size_t jn = cut_json(json, sizeof json);

    /* a text block with no </script>: the input's end */
    size_t n = (size_t)snprintf(buf, sizeof buf,
                                "<html><script class=\"trace-data\" type=\"text\">\n%s", json);
    PARSE(buf);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 2);
    CHECK_EQ_INT(count_warnings(TREAD_WARN_MISSING_END), 1);
    CHECK(has_warning_at(TREAD_WARN_MISSING_END, n));
    every_chunk_size_agrees(buf, n, NULL, __LINE__);

    /* a text block closed by </script>: where its text ends */
    n = (size_t)snprintf(buf, sizeof buf,
                         "<html><script class=\"trace-data\">\n%s\n</script></html>\n", json);
    PARSE(buf);
    CHECK_EQ_INT(C.nev, 2);
    CHECK(has_warning_at(TREAD_WARN_MISSING_END, offset_of(buf, "</script>", 0)));
    every_chunk_size_agrees(buf, n, NULL, __LINE__);

    /* ctrace with text after "TRACE:" (not zlib; the sniffer calls that
     * ftrace, so the format is forced): the input's end */
    static const int64_t systrace[] = {TREAD_OPT_FORMAT, TREAD_FORMAT_SYSTRACE, 0};
    n = (size_t)snprintf(buf, sizeof buf, "TRACE:\n%s", json);
    PARSE_OPTS(buf, systrace);
    CHECK_EQ_INT(C.nev, 2);
    CHECK(has_warning_at(TREAD_WARN_MISSING_END, n));
    every_chunk_size_agrees(buf, n, systrace, __LINE__);

    /* base64 of zlib: a transformed block's sub-trace offsets are the
     * block's offset plus the bytes decoded, its end too */
    static unsigned char z[8192];
    size_t zn = deflate_to(json, 15, z, sizeof z);
    b64(z, zn, b);
    n = (size_t)snprintf(buf, sizeof buf,
                         "<html><script class=\"trace-data\">\n%s\n</script></html>\n", b);
    PARSE(buf);
    CHECK_EQ_INT(C.nev, 2);
    CHECK(has_warning_at(TREAD_WARN_MISSING_END, offset_of(buf, "<script", 0) + jn));
    every_chunk_size_agrees(buf, n, NULL, __LINE__);

    /* the same without </script> */
    n = (size_t)snprintf(buf, sizeof buf, "<html><script class=\"trace-data\">\n%s", b);
    PARSE(buf);
    CHECK_EQ_INT(C.nev, 2);
    CHECK(has_warning_at(TREAD_WARN_MISSING_END, offset_of(buf, "<script", 0) + jn));
    every_chunk_size_agrees(buf, n, NULL, __LINE__);

    /* ftrace text longer than the window, its last line cut: the event of
     * that line at the line's start (the "# tracer:" line makes the block
     * ftrace: a block the sniffer cannot name is one unknown_record) */
    size_t o = (size_t)snprintf(buf, sizeof buf,
                                "<html><script class=\"trace-data\">\n# tracer: nop\n");
    for (int i = 0; o < 6000; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "# a comment line %d of the header\n", i);
    n = o + (size_t)snprintf(buf + o, sizeof buf - o,
                             "             foo-12    [000] .....   100.000002: "
                             "tracing_mark_write: B|12|last");
    PARSE(buf);
    CHECK_EQ_INT(C.nev, 1);
    if (C.nev == 1)
        CHECK_EQ_INT(C.ev[0].offset, o);
    every_chunk_size_agrees(buf, n, NULL, __LINE__);
}

static void test_damaged(void)
{
    /* no </script>: the block is decoded and the truncation said */
    snprintf(buf, sizeof buf,
             "<html>\n<script class=\"trace-data\" type=\"application/text\">\n%s", FTRACE_TEXT);
    PARSE(buf);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 3);
    CHECK_EQ_INT(C.nwarn, 1);
    CHECK(has_warning_at(TREAD_WARN_TRUNCATED_EVENT, offset_of(buf, "<script", 0)));

    /* corrupt compressed data: that block is skipped, the next one read */
    snprintf(buf, sizeof buf,
             /* 78 9c (zlib) then ff: an invalid block type */
             "<html>\n<script class=\"trace-data\">eJz/////////////////////////</script>\n"
             "<script class=\"trace-data\">\n%s</script>\n</html>\n",
             FTRACE_TEXT);
    PARSE(buf);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 3);
    CHECK_EQ_INT(C.nwarn, 1);
    CHECK(has_warning_at(TREAD_WARN_BAD_RECORD, offset_of(buf, "<script", 0)));

    /* no data block at all */
    PARSE("<!DOCTYPE html>\n<html><script>var a = 1;</script></html>\n");
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 0);
    CHECK_EQ_INT(count_warnings(TREAD_WARN_NOT_AN_EVENT), 1);

    /* a block that holds nothing tread knows: one unknown_record at its
     * tag, however many lines it has (it was once read as ftrace, a
     * bad_record per line); also base64 of something unknown */
    PARSE("<html><script class=\"trace-data\">\n%%%% not a trace %%%%\n%%%% nor this %%%%\n"
          "%%%% nor this %%%%\n</script></html>");
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 0);
    CHECK_EQ_INT(C.nwarn, 1);
    CHECK(has_warning_at(TREAD_WARN_UNKNOWN_RECORD, 6));
    PARSE("<html><script class=\"trace-data\">\nUFJPQ0VTUyBEVU1QClVTRVIgUElEIFBQSUQgVlNaIFJTUyBXQ0hBTiBQQyBTIE5BTUUK\n"
          "cm9vdCAxIDAgMSAxIDAgMCBTIGluaXQgaW5pdAo=\n</script></html>");
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 0);
    CHECK_EQ_INT(C.nwarn, 1);
    CHECK(has_warning_at(TREAD_WARN_UNKNOWN_RECORD, 6));

    /* "</scr" inside the data is not the end tag */
    snprintf(buf, sizeof buf,
             "<html><script class=\"trace-data\">\n"
             "# tracer: nop\n"
             "             foo-12    [000] .....   100.000002: tracing_mark_write: B|12|a</scrub>\n"
             "             foo-12    [000] .....   100.000003: tracing_mark_write: E|12\n"
             "</script></html>");
    PARSE(buf);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 2);
    if (C.nev == 2) {
        CHECK(str_is(&C.ev[0].name, "a</scrub>"));
        /* the false end tag's bytes are fed at their own offset */
        CHECK_EQ_INT(C.ev[0].offset, offset_of(buf, "             foo-12", 0));
        CHECK_EQ_INT(C.ev[1].offset, offset_of(buf, "             foo-12", 1));
    }
}

/* A ps listing's first bytes are base64 characters: the block title
 * decides first. */
#define PDUMP_TEXT                                                                        \
    "PROCESS DUMP\n"                                                                      \
    "USER           PID  PPID     VSZ    RSS WCHAN            PC S NAME               COMMAND\n" \
    "root             1     0 10782796  9868 do_epoll_wait     0 S init               init\n" \
    "u10_a123      1234   610 14702072 180412 do_epoll_wait    0 S com.example.app    com.example.app\n" \
    "system         900   610     1234     56 0                0 R system_server      system server\n" \
    "u0_i7         950   610        1      2 0                0 S iso                iso\n" \
    "USER           PID   TID CMD\n"                                                     \
    "root             1     1 init\n"                                                    \
    "u10_a123      1234  1240 RenderThread\n"                                           \
    "u10_a123      1234  1242 hwuiTask 1\n"                                             \
    "2001          1234  1243 Binder:1234_1\n"

static int64_t arg_int(size_t i, const char *key)
{
    tread_arg a;
    tread_args args = args_of(&C.ev[i].args);
    if (!tread_args_find(&args, key, strlen(key), &a) || a.type != TREAD_ARG_INT)
        return -12345;
    return a.v.i;
}

static int arg_str_is(size_t i, const char *key, const char *want)
{
    tread_arg a;
    tread_args args = args_of(&C.ev[i].args);
    return tread_args_find(&args, key, strlen(key), &a) && a.type == TREAD_ARG_STRING &&
           a.v.s.len == strlen(want) && memcmp(a.v.s.ptr, want, a.v.s.len) == 0;
}

static void test_process_dump(void)
{
    snprintf(buf, sizeof buf,
             "<!DOCTYPE html>\n<html><body>\n"
             "  <script class=\"trace-data\" type=\"application/text\">\n%s  </script>\n"
             "  <script class=\"trace-data\" type=\"application/text\">\n%s  </script>\n"
             "  <script class=\"trace-data\" type=\"application/text\">\n"
             "CGROUP DUMP\n#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpuset\t3\t6\t1\n"
             "# cgroup task attachment\n/foreground (root=3) : 1234 1240\n  </script>\n"
             "  <script class=\"trace-data\" type=\"application/text\">\n"
             "# tracer: \nCGROUP DUMP\ncpuset\t3\t6\t1\n  </script>\n"
             "</body></html>\n",
             FTRACE_TEXT, PDUMP_TEXT);
    PARSE(buf);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nwarn, 0);
    CHECK_EQ_INT(C.nev, 3 + 4 + 4);
    check_ftrace_events(0);
    if (C.nev != 11)
        return;
    /* processes: pid, name, ppid, user and uid, sizes, state, comm */
    for (size_t i = 3; i < 7; i++) {
        CHECK_EQ_INT(C.ev[i].kind, TREAD_EVENT_METADATA);
        CHECK_EQ_INT(C.ev[i].meta, TREAD_META_PROCESS_NAME);
        CHECK_EQ_INT(C.ev[i].format, TREAD_FORMAT_SYSTRACE);
        CHECK(C.ev[i].flags & TREAD_HAS_PID);
        CHECK(!(C.ev[i].flags & (TREAD_HAS_TID | TREAD_HAS_TS)));
        CHECK_EQ_INT(arg_int(i, "ppid"), i == 3 ? 0 : 610);
    }
    CHECK_EQ_INT(C.ev[3].pid, 1);
    CHECK_STR(C.ev[3].meta_str, "init");
    CHECK_EQ_INT(arg_int(3, "uid"), 0);
    CHECK_EQ_INT(arg_int(3, "vsz"), 10782796);
    CHECK_EQ_INT(arg_int(3, "rss"), 9868);
    CHECK(arg_str_is(3, "wchan", "do_epoll_wait"));
    CHECK(arg_str_is(3, "state", "S"));
    CHECK_EQ_INT(C.ev[4].pid, 1234);
    CHECK_STR(C.ev[4].meta_str, "com.example.app");
    CHECK(arg_str_is(4, "user", "u10_a123"));
    CHECK_EQ_INT(arg_int(4, "uid"), 1010123);
    CHECK_EQ_INT(C.ev[4].offset, offset_of(buf, "u10_a123      1234   610", 0));
    CHECK_STR(C.ev[5].meta_str, "system_server");
    CHECK(arg_str_is(5, "comm", "system server"));
    CHECK_EQ_INT(arg_int(5, "uid"), -12345); /* "system": a device table */
    CHECK_EQ_INT(arg_int(6, "uid"), 99007);
    /* threads: pid, tid, the name with its blanks */
    for (size_t i = 7; i < 11; i++) {
        CHECK_EQ_INT(C.ev[i].meta, TREAD_META_THREAD_NAME);
        CHECK((C.ev[i].flags & (TREAD_HAS_PID | TREAD_HAS_TID)) == (TREAD_HAS_PID | TREAD_HAS_TID));
    }
    CHECK_EQ_INT(C.ev[7].pid, 1);
    CHECK_EQ_INT(C.ev[7].tid, 1);
    CHECK_EQ_INT(C.ev[8].pid, 1234);
    CHECK_EQ_INT(C.ev[8].tid, 1240);
    CHECK_STR(C.ev[8].meta_str, "RenderThread");
    CHECK_STR(C.ev[9].meta_str, "hwuiTask 1");
    CHECK_STR(C.ev[10].meta_str, "Binder:1234_1");
    CHECK_EQ_INT(arg_int(10, "uid"), 2001);
    CHECK_EQ_INT(counter_of("data_blocks"), 4);
    CHECK_EQ_INT(counter_of("process_dump_blocks"), 1);
    CHECK_EQ_INT(counter_of("process_dump_processes"), 4);
    CHECK_EQ_INT(counter_of("process_dump_threads"), 4);
    CHECK_EQ_INT(counter_of("process_dump_lines_skipped"), 0);
    CHECK_EQ_INT(counter_of("cgroup_dump_blocks"), 2);
    CHECK_EQ_INT(counter_of("cgroup_dump_lines"), 5 + 3);
    every_chunk_size_agrees(buf, strlen(buf), NULL, __LINE__);

    /* lines tread cannot read: the legacy listing, a short line, text
     * before any header: one unknown_record per block, all counted */
    snprintf(buf, sizeof buf,
             "<html><script class=\"trace-data\">\nPROCESS DUMP\n"
             "USER     PID   PPID  VSIZE  RSS     WCHAN    PC         NAME\n"
             "root      1     0     8904   788   ffffffff 00000000 S /init\n"
             "root      2     0     0      0     ffffffff 00000000 S kthreadd\n"
             "USER PID PPID VSZ RSS WCHAN PC S NAME COMMAND\n"
             "root 3 x 1 1 0 0 S a a\n"
             "root 4 0 1 1 0 0 S b b\n"
             "</script>\n<script class=\"trace-data\">\nPROCESS DUMP\nstray text\n</script></html>");
    PARSE(buf);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 1);
    CHECK_EQ_INT(C.ev[0].pid, 4);
    CHECK_EQ_INT(C.nwarn, 2);
    CHECK(has_warning_at(TREAD_WARN_UNKNOWN_RECORD, offset_of(buf, "root      1", 0)));
    CHECK(has_warning_at(TREAD_WARN_UNKNOWN_RECORD, offset_of(buf, "stray", 0)));
    CHECK_EQ_INT(counter_of("process_dump_lines_skipped"), 4);
    every_chunk_size_agrees(buf, strlen(buf), NULL, __LINE__);

    /* a line past max-line-bytes: skipped and counted; a block cut short
     * without a line break still gives its last line */
    static char big[6000];
    memset(big, 'x', 400);
    big[400] = 0;
    snprintf(buf, sizeof buf,
             "<html><script class=\"trace-data\">\nPROCESS DUMP\nUSER PID TID CMD\n"
             "root 1 1 %s\nroot 1 2 ok\nroot 1 3 last", big);
    const int64_t opts[] = {TREAD_OPT_MAX_LINE_BYTES, 256, 0};
    PARSE_OPTS(buf, opts);
    CHECK_EQ_INT(C.status, TREAD_STATUS_OK);
    CHECK_EQ_INT(C.nev, 2);
    if (C.nev == 2) {
        CHECK_STR(C.ev[0].meta_str, "ok");
        CHECK_STR(C.ev[1].meta_str, "last");
    }
    CHECK_EQ_INT(count_warnings(TREAD_WARN_UNKNOWN_RECORD), 1);
    CHECK_EQ_INT(count_warnings(TREAD_WARN_TRUNCATED_EVENT), 1);
    CHECK_EQ_INT(counter_of("process_dump_lines_skipped"), 1);
}

/* tread_get_stats from an event callback of a sub-trace reports the
 * container's format (doc/formats/systrace.md), as it does after the
 * parse: the sub-trace's is in the event (tread split once took a JSON
 * block's event for JSON input). */
static tread_format seen_formats[8];
static int nseen;

static int stats_in_callback(void *u, const tread_event *ev)
{
    (void)ev;
    tread_stats st;
    tread_get_stats((tread_parser *)u, &st);
    if (nseen < 8)
        seen_formats[nseen++] = st.format;
    return 0;
}

static void test_stats_format_in_callback(void)
{
    snprintf(buf, sizeof buf,
             "<!DOCTYPE html>\n<html><body>\n"
             "<script class=\"trace-data\" type=\"application/text\">\n%s\n</script>\n"
             "<script class=\"trace-data\" type=\"application/text\">\n%s</script>\n"
             "</body></html>\n",
             JSON_TEXT, FTRACE_TEXT);
    tread_parser *p = tread_parser_create(NULL);
    CHECK(p != NULL);
    const tread_callbacks cb = {.event = stats_in_callback};
    tread_set_callbacks(p, &cb, p);
    nseen = 0;
    CHECK_EQ_INT(tread_feed(p, buf, strlen(buf)), TREAD_STATUS_OK);
    CHECK_EQ_INT(tread_finish(p), TREAD_STATUS_OK);
    CHECK_EQ_INT(nseen, 4);
    for (int i = 0; i < nseen; i++)
        CHECK_EQ_INT(seen_formats[i], TREAD_FORMAT_SYSTRACE);
    tread_parser_free(p);
}

int main(void)
{
    test_trace_data_text();
    test_trace_data_base64();
    test_viewer_data();
    test_cut_viewer_data_paused();
    test_linux_perf_data();
    test_ctrace();
    test_damaged();
    test_end_offsets();
    test_process_dump();
    test_stats_format_in_callback();
    return TEST_EXIT();
}
