/*
 * libFuzzer harness for the reflective walk (lib/perfetto/pf_walk.c) and
 * its lazy args codec (TREAD_ARGS_PROTO, pf_walk_args.c).
 *
 * Input: [type][max_depth][message bytes]. type picks one of the message
 * types below (mod their number), max_depth is 1 + (byte % 64). The bytes
 * sit in their own exactly sized heap block, so ASan sees any read
 * outside them.
 *
 * Checks: the walk returns 0 or a -TREAD_PF_WALK_* error whose offset lies
 * in the bytes; every step's data, offset and depth are inside the bytes
 * and the depth limit; BEGIN/END balance and match; known fields have a
 * name and a type, unknown ones neither; enum names are the enum's; a walk
 * stopped at step k delivered exactly the first k + 1 steps of the full
 * one; a walk skipping every message delivers the depth-0 steps; the args
 * codec keeps containers balanced and depth within TREAD_ARGS_ITER_MAX_NEST,
 * does not fail where the deepest walk succeeded, and finds its first
 * top-level key.
 *
 * Every step of a walk is checked, however many there are: the running
 * hash after each step is kept in an array that grows with the walk (a
 * fixed one of 4097 entries was read past its end by longer walks).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tread.h>
#include <tread/perfetto.h>

#include "harness.h"

static const char *const types[] = {
    "perfetto.protos.TracePacket", "perfetto.protos.Trace", "perfetto.protos.TrackEvent",
    "perfetto.protos.DebugAnnotation", "perfetto.protos.FtraceEventBundle",
    "perfetto.protos.FtraceEvent", "perfetto.protos.InternedData",
    "perfetto.protos.ProcessTree", "perfetto.protos.TraceConfig",
    "perfetto.protos.ProtoLogMessage",
};

typedef struct rec {
    const unsigned char *base;
    size_t len;
    int max_depth;
    int open[TREAD_PF_WALK_MAX_DEPTH_LIMIT + 1];
    int depth;
    uint64_t *hash;               /* running hash after each step */
    size_t cap;                   /* entries allocated in hash */
    size_t steps;
    size_t stop_at;               /* stop after this step (SIZE_MAX: no) */
    int skip_all;
} rec;

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3u; }

static void inside(const rec *r, const unsigned char *p, size_t n)
{
    if (n && (!p || p < r->base || p + n > r->base + r->len || n > r->len))
        fuzz_fail("walk: data outside the walked bytes");
}

static int on_step(void *user, const tread_perfetto_field *f)
{
    rec *r = user;
    uint64_t h = r->steps ? r->hash[r->steps - 1] : 0xcbf29ce484222325u;
    if (f->offset >= r->len)
        fuzz_fail("walk: offset beyond the bytes");
    if (f->depth < 0 || f->depth > r->max_depth)
        fuzz_fail("walk: depth out of range");
    if (f->step == TREAD_PF_MESSAGE_END) {
        if (r->depth == 0 || f->depth != r->depth - 1 || r->open[r->depth - 1] != (int)f->number)
            fuzz_fail("walk: END does not match its BEGIN");
        r->depth--;
    } else if (f->depth != r->depth) {
        fuzz_fail("walk: depth does not follow BEGIN/END");
    }
    if (f->step == TREAD_PF_UNKNOWN) {
        if (f->name || f->type != TREAD_PF_TYPE_UNKNOWN)
            fuzz_fail("walk: unknown field with a name or type");
    } else if (!f->name || f->type == TREAD_PF_TYPE_UNKNOWN) {
        fuzz_fail("walk: known field without a name or type");
    }
    if (f->step == TREAD_PF_MESSAGE_BEGIN && (!f->msgtype || f->type != TREAD_PF_TYPE_MESSAGE))
        fuzz_fail("walk: BEGIN without a message type");
    if (f->type == TREAD_PF_TYPE_ENUM && f->enum_name && !*f->enum_name)
        fuzz_fail("walk: empty enum name");
    inside(r, f->data, f->len);
    h = mix(h, (uint64_t)f->step);
    h = mix(h, f->number);
    h = mix(h, (uint64_t)f->depth);
    h = mix(h, f->offset);
    h = mix(h, f->v.u);
    for (size_t i = 0; i < f->len; i++)
        h = mix(h, f->data[i]);
    if (f->name)
        for (const char *c = f->name; *c; c++)
            h = mix(h, (unsigned char)*c);
    if (r->steps == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 1024;
        uint64_t *g = realloc(r->hash, cap * sizeof *g);
        if (!g)
            fuzz_fail("walk: out of memory for the step hashes");
        r->hash = g;
        r->cap = cap;
    }
    r->hash[r->steps] = h;
    size_t k = r->steps++;
    if (f->step == TREAD_PF_MESSAGE_BEGIN) {
        if (r->skip_all)
            return TREAD_PF_WALK_SKIP;
        r->open[r->depth++] = (int)f->number;
    }
    return k == r->stop_at ? 99 : 0;
}

static int run(rec *r, const tread_perfetto_msgtype *t, int max_depth,
               tread_perfetto_walk_result *res)
{
    r->max_depth = max_depth;
    r->depth = 0;
    r->steps = 0;
    int rc = tread_perfetto_walk(t, r->base, r->len, max_depth, on_step, r, res);
    if (rc < 0) {
        if (res->error != (tread_perfetto_walk_error)-rc || !res->message ||
            res->offset > r->len)
            fuzz_fail("walk: error result inconsistent");
        if (rc != -TREAD_PF_WALK_MALFORMED && rc != -TREAD_PF_WALK_TOO_DEEP)
            fuzz_fail("walk: unexpected error");
    } else if (rc == 0 && r->depth != 0) {
        fuzz_fail("walk: finished with messages open");
    }
    return rc;
}

static void check_args(const tread_perfetto_msgtype *t, const unsigned char *p, size_t n,
                       int walk_ok)
{
    tread_args a = tread_perfetto_args(t, p, n);
    tread_args_iter it;
    tread_arg v;
    int depth = 0;
    tread_str first = {NULL, 0};
    tread_arg_type first_type = TREAD_ARG_NULL;
    tread_args_iter_init(&it, &a);
    while (tread_args_next(&it, &v)) {
        if (v.type == TREAD_ARG_DICT_END || v.type == TREAD_ARG_ARRAY_END) {
            if (depth == 0 || v.depth != depth - 1 || v.key.ptr)
                fuzz_fail("args: unbalanced END");
            depth--;
            continue;
        }
        if (v.depth != depth || depth > TREAD_ARGS_ITER_MAX_NEST)
            fuzz_fail("args: depth");
        if (v.type == TREAD_ARG_STRING || v.type == TREAD_ARG_BYTES) {
            volatile unsigned char s = 0;
            for (size_t i = 0; i < v.v.s.len; i++)
                s ^= (unsigned char)v.v.s.ptr[i];
            (void)s;
        }
        if (depth == 0 && !first.ptr && v.key.ptr) {
            /* the key may live in the iterator: copy it */
            static char keybuf[256];
            size_t kl = v.key.len < sizeof keybuf ? v.key.len : sizeof keybuf - 1;
            memcpy(keybuf, v.key.ptr, kl);
            first.ptr = keybuf;
            first.len = kl;
            first_type = v.type;
        }
        if (v.type == TREAD_ARG_DICT_BEGIN || v.type == TREAD_ARG_ARRAY_BEGIN)
            depth++;
    }
    if (!tread_args_iter_failed(&it) && depth != 0)
        fuzz_fail("args: containers left open");
    if (walk_ok && tread_args_iter_failed(&it))
        fuzz_fail("args: failed where the walk succeeded");
    if (walk_ok && first.ptr) {
        tread_arg f;
        if (!tread_args_find(&a, first.ptr, first.len, &f) || f.type != first_type)
            fuzz_fail("args: first top-level key not found");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const tread_perfetto_msgtype *t =
        tread_perfetto_msgtype_find(types[data[0] % (sizeof types / sizeof types[0])]);
    if (!t)
        fuzz_fail("a schema type is missing");
    int max_depth = 1 + data[1] % 64;
    size_t n = size - 2;
    unsigned char *p = malloc(n ? n : 1);
    if (!p)
        return 0;
    memcpy(p, data + 2, n);
    rec *r = calloc(1, sizeof *r);
    if (!r) {
        free(p);
        return 0;
    }
    r->base = p;
    r->len = n;
    r->stop_at = SIZE_MAX;
    tread_perfetto_walk_result res;

    int rc = run(r, t, max_depth, &res);
    size_t full = r->steps;
    /* stopped at step k: exactly the first k + 1 steps, same contents */
    if (full > 0) {
        uint64_t *hashes = malloc(full * sizeof *hashes);
        if (!hashes)
            fuzz_fail("walk: out of memory for the step hashes");
        memcpy(hashes, r->hash, full * sizeof *hashes);
        size_t k = (size_t)(data[1] * 7919u + size) % full;
        r->stop_at = k;
        if (run(r, t, max_depth, &res) != 99 || r->steps != k + 1)
            fuzz_fail("walk: a stop did not stop at once");
        if (memcmp(r->hash, hashes, (k + 1) * sizeof *hashes) != 0)
            fuzz_fail("walk: a stopped walk differs from the full one");
        r->stop_at = SIZE_MAX;
        free(hashes);
    }
    /* skipping every message: only depth-0 steps */
    r->skip_all = 1;
    int rc_skip = run(r, t, max_depth, &res);
    if (rc == 0 && rc_skip != 0)
        fuzz_fail("walk: skipping messages failed where entering them did not");
    r->skip_all = 0;

    int rc_deep = run(r, t, TREAD_PF_WALK_MAX_DEPTH_LIMIT, &res);
    if (rc == 0 && rc_deep != 0)
        fuzz_fail("walk: a larger max_depth failed");
    check_args(t, p, n, rc_deep == 0);
    free(r->hash);
    free(r);
    free(p);
    return 0;
}
