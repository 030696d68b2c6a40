/*
 * The `tread stats` tables (tools/) against plain oracles: str_eq and
 * str_hash against memcmp, name_table against a linear list of names
 * (one id per distinct name, whatever address the name comes from, and
 * the same address holding another name later), thread_table against a
 * list of (pid, tid), the slice stacks against per-thread arrays across
 * the table's growth, and the process table's
 * generation that tells the stats collector when a kept process_entry *
 * is stale.
 */
#include <stdlib.h>
#include <string.h>

#include "name_table.h"
#include "process_table.h"
#include "str_hash.h"
#include "testlib.h"
#include "thread_table.h"

static uint64_t rng = 0x1234567887654321ull;
static uint64_t next_rand(void) { return test_rand(&rng); }

static void test_str_eq_hash(void)
{
    char a[64 + 8], b[64 + 8];
    int bad_eq = 0, bad_hash = 0;
    for (size_t len = 0; len <= 64; len++) {
        for (size_t off = 0; off < 8; off++) {
            for (size_t i = 0; i < len; i++)
                a[i] = b[i + off] = (char)('a' + next_rand() % 26);
            if (!str_eq(a, b + off, len))
                bad_eq++;
            if (str_hash(a, len) != str_hash(b + off, len))
                bad_hash++;
            /* one byte different, at every position */
            for (size_t i = 0; i < len; i++) {
                char keep = b[i + off];
                b[i + off] = (char)(keep ^ 1);
                if (str_eq(a, b + off, len) != (memcmp(a, b + off, len) == 0))
                    bad_eq++;
                b[i + off] = keep;
            }
        }
    }
    CHECK_EQ_INT(bad_eq, 0);
    CHECK_EQ_INT(bad_hash, 0);
    /* lengths matter: "ab" and "ab\0" hash apart */
    CHECK(str_hash("ab\0", 2) != str_hash("ab\0", 3));
}

#define POOL 3000
#define MAXLEN 1100 /* past NAME_TABLE_MAX_NAME_LEN: cut to its first bytes */

static void test_name_table(void)
{
    static char pool[POOL][MAXLEN];
    static size_t pool_len[POOL];
    static uint32_t pool_id[POOL];
    for (int i = 0; i < POOL; i++) {
        /* shared prefixes and near-equal names: "name_<n>" and long ones */
        size_t len = next_rand() % 8 == 0 ? 17 + next_rand() % 60 : next_rand() % 17;
        if (i % 500 == 7)
            len = NAME_TABLE_MAX_NAME_LEN + 1 + next_rand() % 50;
        for (size_t k = 0; k < len; k++)
            pool[i][k] = (char)('a' + (k * 7 + (size_t)i * (k == len - 1)) % 26);
        pool_len[i] = len;
        pool_id[i] = UINT32_MAX;
    }
    name_table t;
    CHECK_EQ_INT(name_table_init(&t), 0);
    char scratch[MAXLEN]; /* one address holding many names in turn */
    int bad = 0;
    for (int n = 0; n < 200000; n++) {
        int i = (int)(next_rand() % POOL);
        const char *s = pool[i];
        if (next_rand() & 1) {
            memcpy(scratch, pool[i], pool_len[i]);
            s = scratch;
        }
        uint32_t id = name_table_intern(&t, s, pool_len[i]);
        if (pool_id[i] == UINT32_MAX)
            pool_id[i] = id;
        else if (pool_id[i] != id)
            bad++;
    }
    CHECK_EQ_INT(bad, 0);
    /* distinct (cut) names have distinct ids and their text */
    int distinct = 0, bad_text = 0, dup = 0;
    for (int i = 0; i < POOL; i++) {
        if (pool_id[i] == UINT32_MAX)
            continue;
        size_t want = pool_len[i] > NAME_TABLE_MAX_NAME_LEN ? NAME_TABLE_MAX_NAME_LEN : pool_len[i];
        size_t len;
        const char *txt = name_table_str(&t, pool_id[i], &len);
        if (len != want || memcmp(txt, pool[i], want) != 0)
            bad_text++;
        int first = 1;
        for (int j = 0; j < i; j++) {
            if (pool_id[j] == UINT32_MAX)
                continue;
            size_t wj = pool_len[j] > NAME_TABLE_MAX_NAME_LEN ? NAME_TABLE_MAX_NAME_LEN : pool_len[j];
            int same = wj == want && memcmp(pool[j], pool[i], want) == 0;
            if (same != (pool_id[j] == pool_id[i]))
                dup++;
            if (same)
                first = 0;
        }
        distinct += first;
    }
    CHECK_EQ_INT(bad_text, 0);
    CHECK_EQ_INT(dup, 0);
    CHECK_EQ_INT(name_table_count(&t), distinct);
    CHECK(!t.capped);
    name_table_free(&t);
}

static void test_thread_process_tables(void)
{
    enum { N = 5000 };
    static int64_t pid[N], tid[N];
    static int seen[N];
    for (int i = 0; i < N; i++) {
        pid[i] = i % 97 == 0 ? INT64_MIN : (int64_t)(next_rand() % 300);
        tid[i] = (int64_t)(next_rand() % 100000) - 50000;
    }
    thread_table t;
    process_table pt;
    CHECK_EQ_INT(thread_table_init(&t), 0);
    CHECK_EQ_INT(process_table_init(&pt), 0);
    int bad = 0, bad_proc = 0, gens = 0;
    uint32_t gen = pt.gen;
    for (int n = 0; n < 100000; n++) {
        int i = (int)(next_rand() % N);
        thread_entry *e = thread_table_get(&t, pid[i], tid[i]);
        if (!e || e->pid != pid[i] || e->tid != tid[i]) {
            bad++;
            continue;
        }
        /* the entry of an equal (pid, tid) added before */
        if (!e->seen) {
            for (int j = 0; j < N; j++)
                if (seen[j] && pid[j] == pid[i] && tid[j] == tid[i])
                    bad++;
            e->seen = 1;
        }
        seen[i] = 1;
        /* the stats collector's link from thread to process */
        process_entry *p;
        if (e->proc && e->proc_gen == pt.gen) {
            p = e->proc;
        } else {
            p = process_table_get(&pt, pid[i]);
            e->proc = p;
            e->proc_gen = pt.gen;
        }
        if (!p || p->pid != pid[i] || p != process_table_get(&pt, pid[i]))
            bad_proc++;
        if (pt.gen != gen) {
            gens++;
            gen = pt.gen;
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(bad_proc, 0);
    CHECK(gens > 0); /* the process table grew: links were renewed */
    uint32_t distinct = 0;
    for (int i = 0; i < N; i++) {
        if (!seen[i])
            continue;
        int first = 1;
        for (int j = 0; j < i && first; j++)
            if (seen[j] && pid[j] == pid[i] && tid[j] == tid[i])
                first = 0;
        distinct += (uint32_t)first;
    }
    CHECK_EQ_INT(t.n_used, distinct);
    thread_table_free(&t);
    process_table_free(&pt);
}

/* Slices pushed and popped on threads that keep being added (the table
 * grows and moves entries and stacks), against an array per thread. */
static void test_slice_stacks(void)
{
    enum { THREADS = 700, OPS = 60000, DEPTH = 40 };
    static int64_t model[THREADS][DEPTH];
    static int depth[THREADS];
    thread_table t;
    CHECK_EQ_INT(thread_table_init(&t), 0);
    int bad = 0, pushed = 0, popped = 0, open = 0;
    for (int op = 0; op < OPS; op++) {
        /* early ops on few threads, so stacks exist before the growth */
        int limit = 4 + op * THREADS / (OPS / 2);
        int k = (int)(next_rand() % (uint64_t)(limit < THREADS ? limit : THREADS));
        thread_entry *e = thread_table_get(&t, 1000 + k % 7, k);
        if (!e) {
            bad++;
            continue;
        }
        slice_frame f;
        int overflowed;
        if (depth[k] < DEPTH && (depth[k] == 0 || next_rand() % 3 != 0)) {
            int64_t ts = (int64_t)(next_rand() >> 1);
            f = (slice_frame){ts, (uint32_t)k, 1};
            if (thread_slice_push(&t, e, f) != 0)
                bad++;
            model[k][depth[k]++] = ts;
            pushed++;
        } else {
            int got = thread_slice_pop(e, &f, &overflowed);
            if (!got || overflowed || f.ts != model[k][--depth[k]] || f.name_id != (uint32_t)k)
                bad++;
            popped++;
        }
    }
    for (int k = 0; k < THREADS; k++)
        open += depth[k];
    CHECK_EQ_INT(bad, 0);
    CHECK(t.n_slots >= 1024); /* it grew several times */
    CHECK(popped > 1000 && pushed > popped);
    int left = 0;
    for (uint32_t i = 0; i < t.n_slots; i++)
        if (t.slots[i].used)
            left += (int)(t.slots[i].depth + t.slots[i].overflow);
    CHECK_EQ_INT(left, open);
    /* an E with no B, on a thread whose stack is empty */
    thread_entry *e = thread_table_get(&t, 5, 5);
    slice_frame f;
    int overflowed;
    CHECK(e != NULL);
    CHECK_EQ_INT(thread_slice_pop(e, &f, &overflowed), 0);
    CHECK_EQ_INT(overflowed, 0);
    thread_table_free(&t);
}

int main(void)
{
    test_str_eq_hash();
    test_name_table();
    test_thread_process_tables();
    test_slice_stacks();
    return TEST_EXIT();
}
