/* split_pf_v8.c: V8 profile records (Chrome's legacy Profile and
 * ProfileChunk TrackEvents, expanded by lib/perfetto/pf_v8.c) in pieces.
 *
 * A profile's state (its start, its running time, the nodes seen and the
 * parents their children lists name) is the decoder's, built from every
 * record of the profile. A piece that holds the profile's first record
 * holds all of its records up to the piece's end, so its decoder has the
 * whole's state; in a later piece it has not, and that is counted
 * (v8_records_split) rather than restated: restating the start would need
 * its value back on CLOCK_MONOTONIC through the piece's clock snapshots.
 * The records are recognised by the events the whole file's decoder made
 * of them: stack frames and samples whose ids are "<pid>:0x<id>:<node>",
 * and the Profile event (METADATA, phase 'P', named "Profile"). */
#include "split_pf_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 0x100000001b3ull;
    }
    return h | 1; /* (0 marks a free slot) */
}

/* The "<pid>:0x<id>" of a V8 frame id, or 0. */
static size_t v8_prefix(tread_str id)
{
    const char *s = id.ptr;
    size_t n = id.len, i = 0;
    if (!s)
        return 0;
    if (i < n && s[i] == '-')
        i++;
    size_t digits = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i == digits || i + 3 > n || memcmp(s + i, ":0x", 3) != 0)
        return 0;
    i += 3;
    while (i < n && s[i] != ':')
        i++;
    return i < n ? i : 0;
}

int spf_v8_key(const tread_event *ev, uint64_t *key)
{
    if (ev->phase != 'P')
        return 0;
    size_t n;
    if (ev->kind == TREAD_EVENT_STACK_FRAME && (n = v8_prefix(ev->id)) != 0) {
        *key = fnv(ev->id.ptr, n);
        return 1;
    }
    if (ev->kind == TREAD_EVENT_SAMPLE && (n = v8_prefix(ev->sf)) != 0) {
        *key = fnv(ev->sf.ptr, n);
        return 1;
    }
    if (ev->kind == TREAD_EVENT_METADATA && ev->name.len == 7 &&
        memcmp(ev->name.ptr, "Profile", 7) == 0 && ev->id.ptr) {
        char b[64];
        int k = snprintf(b, sizeof b, "%" PRId64 ":%.*s", ev->pid, (int)ev->id.len, ev->id.ptr);
        if (k <= 0 || (size_t)k >= sizeof b)
            return 0;
        *key = fnv(b, (size_t)k);
        return 1;
    }
    return 0;
}

int spf_v8_note(split_perfetto *s)
{
    if (!s->n_v8 && !s->v8_over)
        return 0;
    int split = s->v8_over;
    for (size_t i = 0; i < s->n_v8; i++) {
        uint64_t key = s->v8_key[i];
        if (!s->v8_keys) {
            s->v8_keys = calloc(2 * SPLIT_PF_MAX_V8_PROFILES, sizeof *s->v8_keys);
            s->v8_piece = calloc(2 * SPLIT_PF_MAX_V8_PROFILES, sizeof *s->v8_piece);
            if (!s->v8_keys || !s->v8_piece)
                return spf_nomem(s);
        }
        size_t mask = 2 * SPLIT_PF_MAX_V8_PROFILES - 1;
        size_t j = (size_t)(key * 0x9e3779b97f4a7c15u >> 40) & mask;
        while (s->v8_keys[j] && s->v8_keys[j] != key)
            j = (j + 1) & mask;
        if (s->v8_keys[j]) {
            split |= s->v8_piece[j] != s->piece;
        } else if (s->v8_used < SPLIT_PF_MAX_V8_PROFILES) {
            s->v8_keys[j] = key; /* its first record: this piece */
            s->v8_piece[j] = s->piece;
            s->v8_used++;
        } else {
            split = 1; /* not followed: counted */
        }
    }
    s->st.v8_records_split += (uint64_t)split;
    return 0;
}

int spf_thread_td(const unsigned char *m, size_t n)
{
    /* as lib/perfetto/pf_tracks.c reads it: the last thread field of a
     * descriptor that decodes, itself decoding, with a pid and a tid */
    rd r, t;
    fld f, g;
    int rc, has = 0, pid = 0, tid = 0;
    const unsigned char *thr = NULL;
    size_t thr_len = 0;
    rd_init(&r, m, n);
    while ((rc = rd_next(&r, &f)) > 0)
        if (f.num == 4 && f.wire == 2)
            has = 1, thr = f.data, thr_len = f.len;
    if (rc < 0 || !has)
        return 0;
    rd_init(&t, thr, thr_len);
    while ((rc = rd_next(&t, &g)) > 0) {
        if (g.wire == 0 && g.num == 1)
            pid = 1;
        else if (g.wire == 0 && g.num == 2)
            tid = 1;
    }
    return rc == 0 && pid && tid;
}
