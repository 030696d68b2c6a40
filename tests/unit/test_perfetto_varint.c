/* The varint readers of pf_wire.h (pf_varint, pf_next, and pf_varint_long
 * under both) against a byte-at-a-time reference: every length from 1 to
 * 10 bytes, canonical and padded encodings, a tenth byte with bits past
 * the 64th, an 11-byte varint, and every number of bytes left after the
 * varint (the readers take another path when fewer than 10 remain). */
#include <stdint.h>
#include <string.h>
#include "testlib.h"
#include "perfetto/pf_wire.h"

/* The reference: the value of the varint at p (n bytes readable), its
 * length in *len; 0 with *len 0 when cut short or longer than 10 bytes. */
static uint64_t ref_varint(const unsigned char *p, size_t n, size_t *len)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n && i < 10; i++) {
        v |= (uint64_t)(p[i] & 0x7f) << (7 * i); /* (7 * 9 = 63: one bit left) */
        if (!(p[i] & 0x80)) {
            *len = i + 1;
            return v;
        }
    }
    *len = 0;
    return 0;
}

static uint64_t rnd_state = 2463534242u;
static uint32_t rnd(void) { return (uint32_t)(test_rand(&rnd_state) >> 32); }

static int bad;

/* One encoding (enc, elen bytes) followed by `after` bytes of noise, read
 * by every reader. */
static void check_one(const unsigned char *enc, size_t elen, size_t after)
{
    unsigned char buf[64];
    memcpy(buf, enc, elen);
    for (size_t i = 0; i < after; i++)
        buf[elen + i] = (unsigned char)rnd();
    size_t n = elen + after, want_len;
    uint64_t want = ref_varint(buf, n, &want_len);

    /* pf_varint */
    const unsigned char *p = buf;
    uint64_t got = 0;
    int rc = pf_varint(&p, buf + n, &got);
    if (want_len) {
        if ((rc != PF_OK || got != want || (size_t)(p - buf) != want_len) && bad++ < 10) {
            CHECK_EQ_INT(rc, PF_OK);
            CHECK_EQ_INT(got, want);
            CHECK_EQ_INT(p - buf, want_len);
        }
    } else if (rc != PF_BAD && bad++ < 10) {
        CHECK_EQ_INT(rc, PF_BAD);
    }

    /* pf_varint_long, where it applies (more than one byte, 10 readable) */
    if (n >= 10 && (buf[0] & 0x80)) {
        unsigned l = pf_varint_long(buf, &got);
        if ((l != want_len || (l && got != want)) && bad++ < 10) {
            CHECK_EQ_INT(l, want_len);
            CHECK_EQ_INT(got, want);
        }
    }

    /* pf_next: a varint field with a one-byte tag (field 1) and a
     * two-byte one (field 300) */
    static const unsigned char tags[2][2] = {{0x08, 0}, {0xe0, 0x12}};
    for (int t = 0; t < 2; t++) {
        unsigned char fb[80];
        size_t tl = t ? 2 : 1;
        memcpy(fb, tags[t], tl);
        memcpy(fb + tl, buf, n);
        pf_reader r;
        pf_field f;
        pf_reader_init(&r, fb, tl + n);
        rc = pf_next(&r, &f);
        if (want_len) {
            if ((rc != PF_OK || f.v != want || f.num != (t ? 300u : 1u) ||
                 f.wire != PF_WIRE_VARINT || (size_t)(r.p - fb) != tl + want_len) &&
                bad++ < 10) {
                CHECK_EQ_INT(rc, PF_OK);
                CHECK_EQ_INT(f.v, want);
                CHECK_EQ_INT(f.num, t ? 300 : 1);
                CHECK_EQ_INT(r.p - fb, tl + want_len);
            }
        } else if (rc != PF_BAD && bad++ < 10) {
            CHECK_EQ_INT(rc, PF_BAD);
        }
    }
}

/* The canonical encoding of v into out: its length. */
static size_t encode(uint64_t v, unsigned char *out)
{
    size_t n = 0;
    do {
        unsigned char b = v & 0x7f;
        v >>= 7;
        out[n++] = (unsigned char)(b | (v ? 0x80 : 0));
    } while (v);
    return n;
}

int main(void)
{
    unsigned char enc[16];
    for (size_t after = 0; after <= 12; after++) {
        /* canonical: values of every bit length, 0 to 64 */
        for (int bits = 0; bits <= 64; bits++) {
            for (int k = 0; k < 20; k++) {
                uint64_t v = ((uint64_t)rnd() << 32) | rnd();
                v = bits == 64 ? v | (1ull << 63) : bits ? (v & ((1ull << bits) - 1)) | (1ull << (bits - 1)) : 0;
                check_one(enc, encode(v, enc), after);
            }
            uint64_t all = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
            check_one(enc, encode(all, enc), after);
        }
        /* padded: a value in more bytes than it needs (0x80 ... 0x00) */
        for (size_t len = 2; len <= 10; len++) {
            for (int k = 0; k < 20; k++) {
                for (size_t i = 0; i < len; i++)
                    enc[i] = (unsigned char)((rnd() & 0x7f) | (i + 1 < len ? 0x80 : 0));
                if (k == 0)
                    enc[len - 1] = 0; /* a zero last byte */
                check_one(enc, len, after);
            }
        }
        /* a tenth byte with bits past the 64th (dropped) */
        for (unsigned last = 1; last < 0x80; last++) {
            memset(enc, 0xff, 9);
            enc[9] = (unsigned char)last;
            check_one(enc, 10, after);
        }
        /* too long: eleven bytes and more */
        memset(enc, 0x80, 11);
        enc[11] = 0x01;
        check_one(enc, 12, after);
        memset(enc, 0xff, 10);
        enc[10] = 0x00;
        check_one(enc, 11, after);
    }
    /* cut short: continuation bits to the end of the data */
    for (size_t len = 1; len <= 12; len++) {
        memset(enc, 0x81, len);
        check_one(enc, len, 0);
    }
    CHECK_EQ_INT(bad, 0);
    return TEST_EXIT();
}
