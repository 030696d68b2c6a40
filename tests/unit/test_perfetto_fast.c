/* The Perfetto fast reader (lib/perfetto/pf_fast.c) against its oracle,
 * the general reader (TREAD_OPT_PERFETTO_FAST_PATH 0):
 * - every reason it leaves a packet to the general reader, on a packet
 *   built for it (the decoder's internal per-reason counts: this test links
 *   the static library), with identical events, warnings and status both
 *   ways;
 * - packets of every shape it takes, counted in stats.fast_records, with
 *   identical output both ways, fed whole and one byte at a time;
 * - every file of ../shared/corpus/perfetto (difftests included): identical
 *   output both ways (skipped, saying so, when the corpus is absent), also
 *   with the raw hook (a line per packet) asking to stop every 7 packets;
 * - the raw hook on a packet with a literal name and extra counters, its
 *   stops and the events' at every phase, whole and in 7-byte chunks.
 * "Identical" covers the events, warnings and status (event_dump), and the
 * format counters and record count. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tread.h>
#include "testlib.h"
#include "event_dump.h"
#include "pb_build.h"
#include "core/parser.h"
#include "perfetto/pf_context.h"

enum { TS = 8, SEQ = 10, TE = 11, INTERNED = 12, FLAGS = 13, PPD = 42, CLOCK_ID = 58,
       DEFAULTS = 59, TDESC = 60 };
#define CLEARED 1
#define NEEDS 2

static const int64_t general_only[] = {TREAD_OPT_PERFETTO_FAST_PATH, 0, 0};

static void packet(pb *t, const pb *pkt) { pb_msg(t, 1, pkt); }

/* A packet on seq with a TrackEvent, flags NEEDS. */
static void te_packet(pb *t, uint32_t seq, int64_t ts, const pb *te)
{
    pb k;
    pb_init(&k);
    if (ts >= 0)
        pb_varint(&k, TS, (uint64_t)ts);
    pb_varint(&k, SEQ, seq);
    pb_varint(&k, FLAGS, NEEDS);
    pb_msg(&k, TE, te);
    packet(t, &k);
    pb_free(&k);
}

static void intern_str(pb *idata, uint32_t field, uint64_t iid, const char *s)
{
    size_t m = pb_begin(idata, field);
    pb_varint(idata, 1, iid);
    pb_string(idata, 2, s);
    pb_end(idata, m);
}

static void counter_track(pb *t, uint64_t uuid, const char *name, int64_t mult, int incr)
{
    pb k;
    pb_init(&k);
    pb_varint(&k, SEQ, 99);
    size_t m = pb_begin(&k, TDESC);
    pb_varint(&k, 1, uuid);
    pb_string(&k, 2, name);
    size_t cm = pb_begin(&k, 8);
    if (mult != 1)
        pb_varint(&k, 4, (uint64_t)mult);
    if (incr)
        pb_varint(&k, 5, 1);
    pb_end(&k, cm);
    pb_end(&k, m);
    packet(t, &k);
    pb_free(&k);
}

/* The set-up every case starts from: counter tracks 30 (x1000,
 * incremental), 31 and 40; sequence 1 cleared with names 1-2, categories
 * 1-2, defaults (track 40, extra counter tracks 30 and 31), one TrackEvent
 * so that the sequence has been seen. Sequence 2 seen, never cleared. */
static void setup(pb *t)
{
    pb_init(t);
    counter_track(t, 30, "bytes", 1000, 1);
    counter_track(t, 31, "items", 1, 0);
    counter_track(t, 40, "default", 1, 0);
    pb idata, defaults, k;
    pb_init(&idata);
    intern_str(&idata, 2, 1, "alpha");
    intern_str(&idata, 2, 2, "beta");
    intern_str(&idata, 1, 1, "cat1");
    intern_str(&idata, 1, 2, "cat2");
    pb_init(&defaults);
    size_t m = pb_begin(&defaults, 11);
    pb_varint(&defaults, 11, 40);
    pb_varint(&defaults, 31, 30);
    pb_varint(&defaults, 31, 31);
    pb_end(&defaults, m);
    pb_init(&k);
    pb_varint(&k, TS, 1000);
    pb_varint(&k, SEQ, 1);
    pb_varint(&k, FLAGS, CLEARED);
    pb_msg(&k, INTERNED, &idata);
    pb_msg(&k, DEFAULTS, &defaults);
    size_t tm = pb_begin(&k, TE);
    pb_varint(&k, 9, 3);
    pb_varint(&k, 10, 1);
    pb_end(&k, tm);
    packet(t, &k);
    pb_free(&k);
    pb_init(&k);
    pb_varint(&k, TS, 1000);
    pb_varint(&k, SEQ, 2);
    pb_varint(&k, 3, 7); /* trusted_uid */
    packet(t, &k);
    pb_free(&k), pb_free(&idata), pb_free(&defaults);
}

/* The format counters and the record counts of one parse (fed whole, no
 * callbacks): what the event dumps do not show. Returns a malloc'd text. */
static char *counters_text(const void *buf, size_t len, const int64_t *opts)
{
    tread_parser *p = tread_parser_create(NULL);
    if (!p)
        abort();
    for (; opts && opts[0]; opts += 2)
        tread_config(p, (tread_option)opts[0], opts[1]);
    tread_feed(p, buf, len);
    tread_finish(p);
    size_t n = tread_get_format_counters(p, NULL, 0);
    tread_counter *c = calloc(n ? n : 1, sizeof *c);
    size_t cap = 64 + n * 96, used = 0;
    char *text = malloc(cap);
    if (!c || !text)
        abort();
    tread_get_format_counters(p, c, n);
    tread_stats st;
    tread_get_stats(p, &st);
    used += (size_t)snprintf(text, cap, "records=%llu\n", (unsigned long long)st.records);
    for (size_t i = 0; i < n; i++)
        used += (size_t)snprintf(text + used, cap - used, "%.80s=%llu\n", c[i].name,
                                 (unsigned long long)c[i].value);
    free(c);
    tread_parser_free(p);
    return text;
}

/* The counters both ways must be the same (what): 1 if they are. */
static int same_counters(const char *what, const void *buf, size_t len, const int64_t *fast_opts,
                         const int64_t *slow_opts)
{
    char *a = counters_text(buf, len, fast_opts), *b = counters_text(buf, len, slow_opts);
    int same = strcmp(a, b) == 0;
    if (!same) {
        fprintf(stderr, "%s: the fast and the general reader count differently\n", what);
        dump_show_difference(b, a);
        test_failures++;
    }
    test_checks++;
    free(a), free(b);
    return same;
}

/* Parses t both ways (fed in chunks of `chunk`, 0: whole): the dumps must
 * be identical. Returns the fast parse's per-reason counts in declined and
 * its stats.fast_records. */
static uint64_t both_ways(const char *what, const pb *t, size_t chunk,
                          uint64_t declined[PF_FAST_REASONS_])
{
    dump fast, slow;
    dump_init(&fast);
    dump_init(&slow);
    static const int64_t force[] = {TREAD_OPT_FORMAT, TREAD_FORMAT_PERFETTO, 0};
    static const int64_t force_slow[] = {TREAD_OPT_FORMAT, TREAD_FORMAT_PERFETTO,
                                         TREAD_OPT_PERFETTO_FAST_PATH, 0, 0};
    dump_parse(&fast, t->data, t->len, chunk, force);
    dump_parse(&slow, t->data, t->len, chunk, force_slow);
    CHECK(fast.text && slow.text);
    if (fast.text && slow.text && strcmp(fast.text, slow.text) != 0) {
        fprintf(stderr, "%s: the fast and the general reader differ\n", what);
        dump_show_difference(slow.text, fast.text);
        test_failures++;
    }
    CHECK_EQ_INT(slow.fast_records, 0);
    if (chunk == 0)
        same_counters(what, t->data, t->len, force, force_slow);
    uint64_t n = fast.fast_records;
    dump_free(&fast);
    dump_free(&slow);
    if (declined) {
        /* again, to read the decoder's counts (not in any public output) */
        memset(declined, 0, PF_FAST_REASONS_ * sizeof *declined);
        tread_parser *p = tread_parser_create(NULL);
        tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_PERFETTO);
        tread_feed(p, t->data, t->len);
        tread_finish(p);
        const pf_decoder *d = p->dec;
        CHECK(d != NULL);
        if (d)
            memcpy(declined, d->n_fast_declined, PF_FAST_REASONS_ * sizeof *declined);
        tread_parser_free(p);
    }
    return n;
}

/* The set-up plus one packet (seq, ts, the TrackEvent, extra packet
 * fields in `extra`): the packet must be declined for `reason` (and the
 * set-up packets for their usual reasons only). */
static void declined_for(const char *what, int reason, uint32_t seq, int64_t ts, const pb *te,
                         const pb *extra)
{
    pb t, k;
    setup(&t);
    uint64_t base[PF_FAST_REASONS_];
    (void)both_ways("set-up", &t, 0, base);
    pb_init(&k);
    if (ts >= 0)
        pb_varint(&k, TS, (uint64_t)ts);
    pb_varint(&k, SEQ, seq);
    pb_varint(&k, FLAGS, NEEDS);
    if (te)
        pb_msg(&k, TE, te);
    if (extra)
        pb_raw(&k, extra->data, extra->len);
    packet(&t, &k);
    uint64_t got[PF_FAST_REASONS_];
    uint64_t fast = both_ways(what, &t, 0, got);
    CHECK_EQ_INT(fast, 0);
    for (int r = 2; r < PF_FAST_REASONS_; r++) {
        long want = (long)base[r] + (r == reason);
        if ((long)got[r] != want) {
            fprintf(stderr, "%s: reason %d counted %ld times, expected %ld\n", what, r,
                    (long)got[r], want);
            test_failures++;
        }
    }
    test_checks++;
    pb_free(&t), pb_free(&k);
}

static void te_init(pb *te, int type)
{
    pb_init(te);
    if (type >= 0)
        pb_varint(te, 9, (uint64_t)type);
    pb_varint(te, 10, 1);
}

static void test_declined(void)
{
    pb te, x;
    /* a packet field the fast reader leaves: interned data twice, data
     * loss */
    te_init(&te, 1);
    pb_init(&x);
    size_t m = pb_begin(&x, INTERNED);
    intern_str(&x, 2, 3, "gamma");
    pb_end(&x, m);
    m = pb_begin(&x, INTERNED);
    intern_str(&x, 2, 4, "delta");
    pb_end(&x, m);
    declined_for("interned data twice", PF_FAST_PACKET_FIELD, 1, 2000, &te, &x);
    pb_free(&x);
    pb_init(&x);
    pb_tag(&x, INTERNED, PF_WIRE_LEN);
    pb_varint_raw(&x, 50);
    declined_for("interned data overrun", PF_FAST_MALFORMED, 1, 2000, &te, &x);
    pb_free(&x);
    pb_init(&x);
    pb_varint(&x, PPD, 1);
    declined_for("previous_packet_dropped", PF_FAST_PACKET_FIELD, 1, 2000, &te, &x);
    pb_free(&x);
    pb_init(&x);
    pb_fixed64(&x, SEQ + 100, 1); /* an unknown non-varint field */
    declined_for("unknown fixed64 packet field", PF_FAST_PACKET_FIELD, 1, 2000, &te, &x);
    pb_free(&x);
    /* malformed: a field overrunning the packet, a known field of the
     * wrong wire type, a three-byte tag */
    pb_init(&x);
    pb_tag(&x, TE, PF_WIRE_LEN);
    pb_varint_raw(&x, 50);
    declined_for("overrun", PF_FAST_MALFORMED, 1, 2000, &te, &x);
    pb_free(&x);
    pb_init(&x);
    pb_tag(&x, TS, PF_WIRE_VARINT);
    pb_raw(&x, "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 11);
    declined_for("an 11-byte varint", PF_FAST_MALFORMED, 1, 2000, &te, &x);
    pb_free(&x), pb_free(&te);
    pb_init(&te);
    pb_string(&te, 9, "x");
    declined_for("type as a string", PF_FAST_MALFORMED, 1, 2000, &te, NULL);
    pb_free(&te);
    te_init(&te, 1);
    pb_varint(&te, 3000, 1);
    declined_for("three-byte tag", PF_FAST_MALFORMED, 1, 2000, &te, NULL);
    pb_free(&te);
    te_init(&te, 1);
    pb_raw(&te, "\0\1", 2); /* field number 0 */
    declined_for("field 0", PF_FAST_MALFORMED, 1, 2000, &te, NULL);
    pb_free(&te);
    te_init(&te, 1);
    pb_tag(&te, 200, PF_WIRE_GROUP_START);
    pb_tag(&te, 200, PF_WIRE_GROUP_END);
    declined_for("a group", PF_FAST_MALFORMED, 1, 2000, &te, NULL);
    pb_free(&te);
    /* no track event, two */
    declined_for("no track event", PF_FAST_NO_TRACK_EVENT, 1, 2000, NULL, NULL);
    te_init(&te, 1);
    pb_init(&x);
    pb_msg(&x, TE, &te);
    declined_for("two track events", PF_FAST_NO_TRACK_EVENT, 1, 2000, &te, &x);
    pb_free(&x);
    declined_for("no timestamp", PF_FAST_NO_TIMESTAMP, 1, -1, &te, NULL);
    declined_for("new sequence", PF_FAST_SEQUENCE, 7, 2000, &te, NULL);
    declined_for("invalid incremental state", PF_FAST_SEQ_STATE, 2, 2000, &te, NULL);
    pb_init(&x);
    pb_varint(&x, FLAGS, CLEARED | NEEDS);
    declined_for("state cleared", PF_FAST_SEQ_STATE, 1, 2000, &te, &x);
    pb_free(&x), pb_free(&te);
    /* every TrackEvent field the general reader reads and the fast one
     * does not */
    static const uint32_t general_fields[] = {1,  2,  6,  8,  16, 17, 20, 21, 22,
                                              31, 36, 42, 45, 46, 52, 53, 54, 55, 56};
    for (size_t i = 0; i < sizeof general_fields / sizeof general_fields[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "track_event field %u", (unsigned)general_fields[i]);
        te_init(&te, 1);
        uint32_t f = general_fields[i];
        if (f == 6) {
            size_t lm = pb_begin(&te, 6);
            pb_varint(&te, 2, 'B');
            pb_end(&te, lm);
        } else if (f == 22 || f == 53 || f == 55) {
            pb_string(&te, f, "s");
        } else if (f == 21) {
            size_t lm = pb_begin(&te, 21);
            pb_varint(&te, 2, 1);
            pb_end(&te, lm);
        } else if (f == 46) {
            pb_double(&te, f, 1.5);
        } else {
            pb_varint(&te, f, 5);
        }
        declined_for(what, PF_FAST_TE_FIELD, 1, 2000, &te, NULL);
        pb_free(&te);
    }
    te_init(&te, 1);
    pb_bytes(&te, 47, "\1\0\0\0\0\0\0\0\2\0\0\0\0\0\0\0", 16);
    declined_for("packed flow ids", PF_FAST_TE_FIELD, 1, 2000, &te, NULL);
    pb_free(&te);
    /* type: absent, 0, unknown */
    te_init(&te, -1);
    declined_for("no type", PF_FAST_TE_TYPE, 1, 2000, &te, NULL);
    pb_free(&te);
    te_init(&te, 0);
    declined_for("type 0", PF_FAST_TE_TYPE, 1, 2000, &te, NULL);
    pb_free(&te);
    te_init(&te, 7);
    declined_for("type 7", PF_FAST_TE_TYPE, 1, 2000, &te, NULL);
    pb_free(&te);
    /* categories: more iids than the fast reader joins (one by one,
     * packed, both), an empty packed list */
    te_init(&te, 3);
    for (int i = 0; i < 9; i++)
        pb_varint(&te, 3, 1 + (i & 1));
    declined_for("nine category iids", PF_FAST_CATEGORIES, 1, 2000, &te, NULL);
    pb_free(&te);
    te_init(&te, 3);
    pb_bytes(&te, 3, "\1\2\1\2\1\2\1\2\1", 9);
    declined_for("nine packed category iids", PF_FAST_CATEGORIES, 1, 2000, &te, NULL);
    pb_free(&te);
    te_init(&te, 3);
    pb_varint(&te, 3, 1);
    pb_bytes(&te, 3, "\1\2\1\2\1\2\1\2", 8);
    declined_for("nine category iids, one then packed", PF_FAST_CATEGORIES, 1, 2000, &te, NULL);
    pb_free(&te);
    te_init(&te, 3);
    pb_bytes(&te, 3, "", 0);
    declined_for("empty packed category iids", PF_FAST_CATEGORIES, 1, 2000, &te, NULL);
    pb_free(&te);
    te_init(&te, 3);
    pb_bytes(&te, 3, "\1\x80", 2);
    declined_for("packed category iids cut short", PF_FAST_MALFORMED, 1, 2000, &te, NULL);
    pb_free(&te);
    /* extra counter values beyond the two default tracks */
    te_init(&te, 4);
    pb_bytes(&te, 12, "\1\2\3", 3);
    declined_for("three extra counters", PF_FAST_EXTRA_COUNTERS, 1, 2000, &te, NULL);
    pb_free(&te);
}

/* The raw hook (perfetto_packet) does not keep the fast reader away: it
 * describes the packet before its events, as the general reader's queue
 * does, and a stop it asks for leaves the packet's events (the main one
 * and its extra counters) queued for tread_resume. */
static void test_hook(void)
{
    pb t, te;
    setup(&t);
    te_init(&te, 1);
    pb_string(&te, 23, "literal name"); /* (copied at delivery once queued) */
    pb_bytes(&te, 12, "\1\2", 2);     /* two extra counters */
    te_packet(&t, 1, 2000, &te);
    pb_free(&te);
    te_init(&te, 2);
    te_packet(&t, 1, 2100, &te);
    static const int64_t force[] = {TREAD_OPT_FORMAT, TREAD_FORMAT_PERFETTO, 0};
    static const int64_t force_slow[] = {TREAD_OPT_FORMAT, TREAD_FORMAT_PERFETTO,
                                         TREAD_OPT_PERFETTO_FAST_PATH, 0, 0};
    for (size_t every = 0; every <= 3; every++) {
        for (size_t chunk = 0; chunk <= 7; chunk += 7) {
            dump fast, slow;
            dump_init(&fast);
            dump_init(&slow);
            fast.packets = slow.packets = 1;
            fast.stop_packets_every = slow.stop_packets_every = every;
            fast.stop_every = slow.stop_every = every ? every + 1 : 0;
            dump_parse(&fast, t.data, t.len, chunk, force);
            dump_parse(&slow, t.data, t.len, chunk, force_slow);
            CHECK(fast.text && slow.text && strstr(fast.text, "packet off=") &&
                  strstr(fast.text, "literal name"));
            if (fast.text && slow.text && strcmp(fast.text, slow.text) != 0) {
                fprintf(stderr, "hook, a stop every %zu packets, chunks of %zu: the fast "
                        "and the general reader differ\n", every, chunk);
                dump_show_difference(slow.text, fast.text);
                test_failures++;
            }
            CHECK_EQ_INT(fast.packets_seen, 7);
            CHECK_EQ_INT(fast.fast_records, 2); /* the two TrackEvents */
            CHECK_EQ_INT(slow.fast_records, 0);
            dump_free(&fast);
            dump_free(&slow);
        }
    }
    pb_free(&t), pb_free(&te);
}

/* Packets of every shape the fast reader takes, on top of the set-up. */
static void test_taken(void)
{
    pb t, te;
    setup(&t);
    int n = 0;
    /* name string, name iid, category iid, missing iids (warned) */
    pb_init(&te);
    pb_varint(&te, 9, 1);
    pb_string(&te, 23, "by string");
    pb_varint(&te, 3, 1);
    te_packet(&t, 1, 2000, &te), n++;
    pb_free(&te);
    te_init(&te, 2);
    pb_varint(&te, 3, 2);
    te_packet(&t, 1, 2100, &te), n++;
    pb_free(&te);
    pb_init(&te);
    pb_varint(&te, 9, 3);
    pb_varint(&te, 10, 9);
    pb_varint(&te, 3, 9);
    te_packet(&t, 1, 2200, &te), n++;
    pb_free(&te);
    /* several category iids, joined: one by one, packed, both, a missing
     * one (warned; "" adds no comma), eight (the most), on a counter
     * with extra values (their events take the joined categories) */
    te_init(&te, 1);
    pb_varint(&te, 3, 1);
    pb_varint(&te, 3, 2);
    te_packet(&t, 1, 2210, &te), n++;
    pb_free(&te);
    te_init(&te, 3);
    pb_bytes(&te, 3, "\2\1", 2);
    te_packet(&t, 1, 2220, &te), n++;
    pb_free(&te);
    te_init(&te, 3);
    pb_bytes(&te, 3, "\1", 1);
    te_packet(&t, 1, 2225, &te), n++;
    pb_free(&te);
    te_init(&te, 2);
    pb_varint(&te, 3, 2);
    pb_bytes(&te, 3, "\1\2", 2);
    pb_varint(&te, 3, 1);
    te_packet(&t, 1, 2230, &te), n++;
    pb_free(&te);
    te_init(&te, 3);
    pb_bytes(&te, 3, "\x09\1\x0a", 3);
    te_packet(&t, 1, 2240, &te), n++;
    pb_free(&te);
    te_init(&te, 3);
    pb_bytes(&te, 3, "\1\2\1\2\1\2\1\2", 8);
    te_packet(&t, 1, 2250, &te), n++;
    pb_free(&te);
    pb_init(&te);
    pb_varint(&te, 9, 4);
    pb_bytes(&te, 3, "\1\2", 2);
    pb_bytes(&te, 12, "\3\4", 2);
    te_packet(&t, 1, 2260, &te), n++;
    pb_free(&te);
    /* an explicit track (unknown: counted), the default track */
    te_init(&te, 3);
    pb_varint(&te, 11, 12345);
    te_packet(&t, 1, 2300, &te), n++;
    pb_free(&te);
    /* counters: int on the incremental x1000 track, double, none */
    pb_init(&te);
    pb_varint(&te, 9, 4);
    pb_varint(&te, 11, 30);
    pb_varint(&te, 30, 5);
    te_packet(&t, 1, 2400, &te), n++;
    te_packet(&t, 1, 2500, &te), n++;
    pb_free(&te);
    pb_init(&te);
    pb_varint(&te, 9, 4);
    pb_varint(&te, 11, 31);
    pb_double(&te, 44, 2.5);
    te_packet(&t, 1, 2600, &te), n++;
    pb_free(&te);
    pb_init(&te);
    pb_varint(&te, 9, 4);
    te_packet(&t, 1, 2700, &te), n++;
    pb_free(&te);
    /* extra counter values: one by one, packed, with the main counter */
    pb_init(&te);
    pb_varint(&te, 9, 4);
    pb_varint(&te, 12, 7);
    pb_varint(&te, 12, 8);
    te_packet(&t, 1, 2800, &te), n++;
    pb_free(&te);
    pb_init(&te);
    pb_varint(&te, 9, 4);
    pb_varint(&te, 3, 2);
    pb_bytes(&te, 12, "\11\12", 2);
    pb_varint(&te, 30, 3);
    te_packet(&t, 1, 2900, &te), n++;
    pb_free(&te);
    /* flows, terminating flows, debug annotations and typed fields (lazy
     * args), trusted uid and pid, a clock id */
    te_init(&te, 1);
    pb_fixed64(&te, 47, 77);
    pb_fixed64(&te, 47, 78);
    pb_fixed64(&te, 48, 79);
    size_t m = pb_begin(&te, 4);
    pb_varint(&te, 10, 1);
    pb_varint(&te, 4, 42);
    pb_end(&te, m);
    pb_varint(&te, 1040, 3);
    pb k;
    pb_init(&k);
    pb_varint(&k, 3, 1000);
    pb_varint(&k, TS, 3000);
    pb_varint(&k, SEQ, 1);
    pb_varint(&k, FLAGS, NEEDS);
    pb_varint(&k, CLOCK_ID, 6);
    pb_msg(&k, TE, &te);
    pb_varint(&k, 79, 55);
    packet(&t, &k), n++;
    pb_free(&k), pb_free(&te);
    /* interned data with the TrackEvent that uses it (before or after it
     * in the packet), with a bad entry (warned); on a sequence whose state
     * is not valid, without the flag that needs it: ignored, counted */
    for (int order = 0; order < 2; order++) {
        te_init(&te, 3);
        pb_varint(&te, 10, 5 + order); /* the name interned here */
        pb_varint(&te, 3, 5);
        pb idata;
        pb_init(&idata);
        intern_str(&idata, 2, 5 + order, order ? "zeta" : "epsilon");
        intern_str(&idata, 1, 5, "cat5");
        if (order) {
            size_t bm = pb_begin(&idata, 2);
            pb_string(&idata, 2, "no iid");
            pb_end(&idata, bm);
        }
        pb_init(&k);
        pb_varint(&k, TS, 3050 + order);
        pb_varint(&k, SEQ, 1);
        if (order)
            pb_msg(&k, TE, &te);
        pb_msg(&k, INTERNED, &idata);
        pb_varint(&k, FLAGS, NEEDS);
        if (!order)
            pb_msg(&k, TE, &te);
        packet(&t, &k), n++;
        pb_free(&k), pb_free(&te), pb_free(&idata);
    }
    te_init(&te, 3);
    pb_init(&k);
    pb_varint(&k, TS, 3060);
    pb_varint(&k, SEQ, 2);
    m = pb_begin(&k, INTERNED);
    intern_str(&k, 2, 1, "ignored");
    pb_end(&k, m);
    pb_msg(&k, TE, &te);
    packet(&t, &k), n++;
    pb_free(&k), pb_free(&te);
    /* a clock with no path to the trace clock (warned, raw timestamp) */
    te_init(&te, 3);
    pb_init(&k);
    pb_varint(&k, TS, 3100);
    pb_varint(&k, SEQ, 1);
    pb_varint(&k, CLOCK_ID, 64);
    pb_msg(&k, TE, &te);
    packet(&t, &k), n++;
    pb_free(&k), pb_free(&te);

    uint64_t declined[PF_FAST_REASONS_];
    uint64_t fast = both_ways("taken", &t, 0, declined);
    CHECK_EQ_INT(fast, n);
    CHECK_EQ_INT(both_ways("taken, 1-byte chunks", &t, 1, NULL), n);
    CHECK_EQ_INT(both_ways("taken, 3-byte chunks", &t, 3, NULL), n);
    pb_free(&t);
}

/* ---- the corpus ------------------------------------------------------- */

static int corpus_files, corpus_fast_files;
static uint64_t corpus_fast_packets, corpus_hook_fast_packets;

static void check_file(const char *path)
{
    size_t len;
    unsigned char *buf = dump_read_file(path, &len);
    if (!buf) {
        fprintf(stderr, "cannot read %s\n", path);
        test_failures++;
        return;
    }
    dump fast, slow;
    dump_init(&fast);
    dump_init(&slow);
    dump_parse(&fast, buf, len, 0, NULL);
    dump_parse(&slow, buf, len, 0, general_only);
    test_checks++;
    if (!fast.text || !slow.text || strcmp(fast.text, slow.text) != 0) {
        fprintf(stderr, "MISMATCH %s: the fast and the general reader differ\n", path);
        if (fast.text && slow.text)
            dump_show_difference(slow.text, fast.text);
        test_failures++;
    }
    CHECK_EQ_INT(slow.fast_records, 0);
    same_counters(path, buf, len, NULL, general_only);
    /* with the raw hook, and a stop in it every 7 packets */
    dump_free(&fast);
    dump_free(&slow);
    dump_init(&fast);
    dump_init(&slow);
    fast.packets = slow.packets = 1;
    fast.stop_packets_every = slow.stop_packets_every = 7;
    dump_parse(&fast, buf, len, 0, NULL);
    dump_parse(&slow, buf, len, 0, general_only);
    test_checks++;
    if (!fast.text || !slow.text || strcmp(fast.text, slow.text) != 0) {
        fprintf(stderr, "MISMATCH %s (raw hook): the fast and the general reader differ\n",
                path);
        if (fast.text && slow.text)
            dump_show_difference(slow.text, fast.text);
        test_failures++;
    }
    corpus_hook_fast_packets += fast.fast_records;
    corpus_files++;
    corpus_fast_files += fast.fast_records > 0;
    corpus_fast_packets += fast.fast_records;
    dump_free(&fast);
    dump_free(&slow);
    free(buf);
}

static void walk(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        size_t nl = strlen(n);
        if (n[0] == '.' || strcmp(n, "oracle") == 0 ||
            (nl > 3 && (strcmp(n + nl - 3, ".md") == 0 || strcmp(n + nl - 4, ".tsv") == 0)))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, n);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            walk(path);
        else if (S_ISREG(st.st_mode))
            check_file(path);
    }
    closedir(d);
}

static void test_corpus(void)
{
    const char *env = getenv("TREAD_CORPUS");
    const char *top = getenv("top_srcdir");
    char dir[4096];
    if (env)
        snprintf(dir, sizeof dir, "%s/perfetto", env);
    else
        snprintf(dir, sizeof dir, "%s/../shared/corpus/perfetto", top ? top : ".");
    struct stat st;
    if (stat(dir, &st) != 0) {
        printf("SKIP corpus part: %s not found (../shared is absent; set TREAD_CORPUS)\n", dir);
        return;
    }
    walk(dir);
    printf("corpus: %d files identical both ways; the fast reader read %llu packets in %d "
           "of them\n",
           corpus_files, (unsigned long long)corpus_fast_packets, corpus_fast_files);
    CHECK(corpus_files >= 400);
    CHECK(corpus_fast_packets >= 500000); /* chromium_startup and the SDK traces */
    CHECK_EQ_INT(corpus_hook_fast_packets, corpus_fast_packets);
}

int main(void)
{
    test_declined();
    test_hook();
    test_taken();
    test_corpus();
    printf("%d checks, %d failed\n", test_checks, test_failures);
    return TEST_EXIT();
}
