/*
 * Perfetto system data sources other than ftrace: SysStats, ProcessStats,
 * AndroidLogPacket, BatteryCounters, PowerRails (field numbers from
 * perfetto_fields.tsv; doc/formats/perfetto.md, "System data sources",
 * has the counter names). Also the state they share with pf_ftrace.c: the
 * arena of counter names built from the trace, and the message types the
 * events' args are read with (TREAD_ARGS_PROTO).
 */
#include "perfetto/pf_system.h"
#include "perfetto/pf_seq.h"
#include "perfetto/pf_time.h"
#include "perfetto/pf_queue.h"
#include "perfetto/pf_clock.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- state -------------------------------------------------------------- */

pf_sys *pf_sys_get(pf_decoder *d, uint64_t off)
{
    if (d->sys)
        return d->sys;
    pf_sys *y = tread_malloc(&d->p->alloc, sizeof *y);
    if (!y) {
        tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
        return NULL;
    }
    memset(y, 0, sizeof *y);
    /* a bundle's synthesized messages: a few dozen bytes per compact event,
     * each of which takes at least 5 bytes of the packet */
    tread_buf_init(&y->synth, &d->p->alloc, d->p->max_event_bytes * 16);
    d->sys = y;
    return y;
}

void pf_system_free(pf_decoder *d)
{
    pf_sys *y = d->sys;
    if (!y)
        return;
    const tread_alloc *a = &d->p->alloc;
    for (pf_block *b = y->blocks, *n; b; b = n) {
        n = b->next;
        tread_free(a, b);
    }
    tread_free(a, y->names);
    tread_free(a, y->rails);
    tread_free(a, y->cpu_last);
    tread_free(a, y->cpu_known);
    tread_buf_free(&y->synth);
    tread_free(a, y);
    d->sys = NULL;
}

void pf_sys_find_types(pf_sys *y)
{
    if (y->types_found)
        return;
    y->types_found = 1;
#define T(field, name) y->field = tread_perfetto_msgtype_find("perfetto.protos." name)
    T(t_switch, "SchedSwitchFtraceEvent");
    T(t_waking, "SchedWakingFtraceEvent");
    T(t_wakeup, "SchedWakeupFtraceEvent");
    T(t_wakeup_new, "SchedWakeupNewFtraceEvent");
    T(t_cpufreq, "CpuFrequencyFtraceEvent");
    T(t_cpuidle, "CpuIdleFtraceEvent");
    T(t_newtask, "TaskNewtaskFtraceEvent");
    T(t_rename, "TaskRenameFtraceEvent");
    T(t_print, "PrintFtraceEvent");
    T(t_log_event, "AndroidLogPacket.LogEvent");
    T(t_ftrace_event, "FtraceEvent");
    T(t_log_message, "LogMessage");
#undef T
}

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h | 1; /* 0 marks an empty slot */
}

const char *pf_sys_intern(pf_decoder *d, const char *s, size_t len, uint64_t off)
{
    pf_sys *y = d->sys;
    uint64_t h = hash_bytes(s, len);
    if (y->names_size) {
        size_t j = h & (y->names_size - 1);
        while (y->names[j].hash) {
            if (y->names[j].hash == h && y->names[j].len == len && !memcmp(y->names[j].s, s, len))
                return y->names[j].s;
            j = (j + 1) & (y->names_size - 1);
        }
    }
    const tread_alloc *a = &d->p->alloc;
    if ((y->names_used + 1) * 2 > y->names_size) {
        size_t n = y->names_size ? y->names_size * 2 : 64;
        if (pf_charge(d, (n - y->names_size) * sizeof(pf_sys_name), off))
            return NULL;
        pf_sys_name *t = tread_malloc(a, n * sizeof *t);
        if (!t) {
            tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
            return NULL;
        }
        memset(t, 0, n * sizeof *t);
        for (size_t i = 0; i < y->names_size; i++) {
            if (!y->names[i].hash)
                continue;
            size_t j = y->names[i].hash & (n - 1);
            while (t[j].hash)
                j = (j + 1) & (n - 1);
            t[j] = y->names[i];
        }
        tread_free(a, y->names);
        y->names = t;
        y->names_size = n;
    }
    pf_block *b = y->blocks;
    if (!b || b->cap - b->used < len + 1) {
        size_t cap = len + 1 > PF_SYS_NAME_BLOCK ? len + 1 : PF_SYS_NAME_BLOCK;
        if (pf_charge(d, cap, off))
            return NULL;
        b = tread_malloc(a, sizeof *b + cap);
        if (!b) {
            tread__fail(d->p, TREAD_ERROR_NOMEM, off, "out of memory");
            return NULL;
        }
        b->used = 0;
        b->cap = cap;
        b->next = y->blocks;
        y->blocks = b;
    }
    char *dst = (char *)b->data + b->used;
    if (len)
        memcpy(dst, s, len);
    dst[len] = 0;
    b->used += len + 1;
    size_t j = h & (y->names_size - 1);
    while (y->names[j].hash)
        j = (j + 1) & (y->names_size - 1);
    y->names[j].hash = h;
    y->names[j].s = dst;
    y->names[j].len = len;
    y->names_used++;
    return dst;
}

/* A name from pieces: "a" "b" "c" joined (no separator added), interned.
 * Longer than 512 bytes is cut (counter names from keys the trace gives). */
static const char *name3(pf_decoder *d, const char *a, tread_str b, const char *c, uint64_t off)
{
    char buf[512];
    size_t n = 0;
    size_t la = strlen(a), lc = strlen(c);
    size_t lb = b.len > sizeof buf - la - lc - 1 ? sizeof buf - la - lc - 1 : b.len;
    memcpy(buf, a, la);
    n = la;
    if (lb)
        memcpy(buf + n, b.ptr, lb);
    n += lb;
    memcpy(buf + n, c, lc);
    n += lc;
    return pf_sys_intern(d, buf, n, off);
}

void pf_sys_set_ts(pf_decoder *d, pf_seq *s, tread_event *ev, uint32_t clock, int64_t value)
{
    pf_base b;
    memset(&b, 0, sizeof b);
    b.offset = ev->offset;
    pf_set_ts(d, s, clock, (uint64_t)value, &b);
    ev->flags &= ~(uint32_t)(TREAD_HAS_TS | TREAD_HAS_RAW_TS);
    ev->flags |= b.flags;
    ev->ts = b.ts;
    ev->raw_ts = b.raw_ts;
    ev->clock_id = b.clock_id;
}

pf_qitem *pf_sys_counter(pf_decoder *d, const pf_base *base, const char *name, int is_int,
                         int64_t iv, double dv)
{
    pf_qitem *q = pf_queue_event(d, base);
    if (!q)
        return NULL;
    tread_event *ev = &q->ev;
    ev->kind = TREAD_EVENT_COUNTER;
    ev->phase = 'C';
    ev->name.ptr = name;
    ev->name.len = strlen(name);
    ev->series = ev->name;
    q->nul |= PF_NUL_NAME | PF_NUL_SERIES;
    ev->flags |= TREAD_HAS_VALUE;
    if (is_int) {
        ev->flags |= TREAD_VALUE_IS_INT;
        ev->value_int = iv;
        ev->value = (double)iv;
    } else {
        ev->value = dv;
    }
    return q;
}

static void bad(pf_decoder *d, uint64_t off, const char *what)
{
    d->sys->n_bad++;
    tread__warn(d->p, TREAD_WARN_BAD_RECORD, off, "%s does not decode: skipped", what);
}

/* The enum value name of a field of a message (through the schema), for
 * counter names from MeminfoCounters / VmstatCounters / PsiResource. */
typedef struct enum_find {
    uint32_t num;
    const char *name;
} enum_find;

static int enum_cb(void *user, const tread_perfetto_field *f)
{
    enum_find *e = user;
    if (f->depth == 0 && f->step == TREAD_PF_FIELD && f->number == e->num) {
        e->name = f->enum_name;
        return 2; /* found: stop */
    }
    return f->step == TREAD_PF_MESSAGE_BEGIN ? TREAD_PF_WALK_SKIP : 0;
}

/* "prefix" + the enum value's name, lower case, without its first
 * underscore-separated word ("MEMINFO_MEM_TOTAL" -> "mem_total"), or the
 * number when the schema has no name for it. */
static const char *enum_counter_name(pf_decoder *d, const char *msgtype, const unsigned char *m,
                                     size_t len, uint32_t num, uint64_t value, const char *prefix,
                                     int strip_first, uint64_t off)
{
    enum_find e = {num, NULL};
    const tread_perfetto_msgtype *t = tread_perfetto_msgtype_find(msgtype);
    if (t)
        (void)tread_perfetto_walk(t, m, len, 0, enum_cb, &e, NULL);
    char buf[160];
    size_t n = strlen(prefix);
    memcpy(buf, prefix, n);
    if (e.name) {
        const char *s = e.name;
        if (strip_first) {
            const char *u = strchr(s, '_');
            if (u)
                s = u + 1;
        }
        for (; *s && n < sizeof buf - 1; s++)
            buf[n++] = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
    } else {
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%" PRIu64, value);
    }
    return pf_sys_intern(d, buf, n, off);
}

/* ---- SysStats ------------------------------------------------------------- */

/* A {key=1 enum, value=2 uint64} entry (MeminfoValue, VmstatValue). */
static int sys_kv(pf_decoder *d, const pf_base *base, const pf_field *f, const char *msgtype,
                  const char *prefix, int64_t scale)
{
    pf_reader r;
    pf_field g;
    int rc;
    uint64_t key = 0, val = 0;
    int has_val = 0;
    pf_reader_init(&r, f->data, f->len);
    while ((rc = pf_next(&r, &g)) == PF_OK) {
        if (g.wire != PF_WIRE_VARINT)
            continue;
        if (g.num == 1)
            key = g.v;
        else if (g.num == 2)
            val = g.v, has_val = 1;
    }
    if (rc == PF_BAD) {
        bad(d, base->offset, msgtype);
        return 0;
    }
    if (!has_val)
        return 0;
    const char *name =
        enum_counter_name(d, msgtype, f->data, f->len, 1, key, prefix, 1, base->offset);
    if (!name)
        return -1;
    return pf_sys_counter(d, base, name, 1, (int64_t)(val * (uint64_t)scale), 0) ? 0 : -1;
}

static const char *const cpu_time_names[] = {
    NULL, NULL, "cpu.times.user_ns", "cpu.times.user_nice_ns", "cpu.times.system_mode_ns",
    "cpu.times.idle_ns", "cpu.times.io_wait_ns", "cpu.times.irq_ns", "cpu.times.softirq_ns",
    "cpu.times.steal_ns"};

static int sys_cpu_times(pf_decoder *d, const pf_base *base, const pf_field *f)
{
    pf_reader r;
    pf_field g;
    int rc;
    uint64_t cpu = 0, v[10] = {0};
    unsigned have = 0;
    pf_reader_init(&r, f->data, f->len);
    while ((rc = pf_next(&r, &g)) == PF_OK) {
        if (g.wire != PF_WIRE_VARINT || g.num > 9)
            continue;
        if (g.num == 1)
            cpu = g.v;
        else if (g.num >= 2)
            v[g.num] = g.v, have |= 1u << g.num;
    }
    if (rc == PF_BAD) {
        bad(d, base->offset, "sys_stats cpu_stat");
        return 0;
    }
    for (unsigned i = 2; i <= 9; i++) {
        if (!(have & (1u << i)))
            continue;
        pf_qitem *q = pf_sys_counter(d, base, cpu_time_names[i], 1, (int64_t)v[i], 0);
        if (!q)
            return -1;
        q->ev.flags |= TREAD_HAS_CPU;
        q->ev.cpu = (int64_t)cpu;
    }
    return 0;
}

/* InterruptCount {irq=1, count=2}: "<prefix><irq>". */
static int sys_irq(pf_decoder *d, const pf_base *base, const pf_field *f, const char *prefix)
{
    pf_reader r;
    pf_field g;
    int rc;
    int64_t irq = 0;
    uint64_t count = 0;
    pf_reader_init(&r, f->data, f->len);
    while ((rc = pf_next(&r, &g)) == PF_OK) {
        if (g.wire != PF_WIRE_VARINT)
            continue;
        if (g.num == 1)
            irq = (int64_t)(int32_t)g.v;
        else if (g.num == 2)
            count = g.v;
    }
    if (rc == PF_BAD) {
        bad(d, base->offset, "sys_stats interrupt count");
        return 0;
    }
    char buf[64];
    int n = snprintf(buf, sizeof buf, "%s%" PRId64, prefix, irq);
    const char *name = pf_sys_intern(d, buf, (size_t)n, base->offset);
    return name && pf_sys_counter(d, base, name, 1, (int64_t)count, 0) ? 0 : -1;
}

/* A message with one string field (the key) and numeric fields, each a
 * counter "<prefix><key><suffix of the field>". */
typedef struct keyed_field {
    uint32_t num;
    const char *suffix;
} keyed_field;

static int sys_keyed(pf_decoder *d, const pf_base *base, const pf_field *f, uint32_t key_num,
                     const char *prefix, const keyed_field *fields, size_t nfields,
                     const char *what)
{
    pf_reader r;
    pf_field g;
    int rc;
    tread_str key = {"", 0};
    pf_reader_init(&r, f->data, f->len);
    while ((rc = pf_next(&r, &g)) == PF_OK)
        if (g.num == key_num && g.wire == PF_WIRE_LEN)
            key.ptr = (const char *)g.data, key.len = g.len;
    if (rc == PF_BAD) {
        bad(d, base->offset, what);
        return 0;
    }
    pf_reader_init(&r, f->data, f->len);
    while (pf_next(&r, &g) == PF_OK) {
        if (g.wire != PF_WIRE_VARINT)
            continue;
        for (size_t i = 0; i < nfields; i++) {
            if (fields[i].num != g.num)
                continue;
            const char *name = name3(d, prefix, key, fields[i].suffix, base->offset);
            if (!name || !pf_sys_counter(d, base, name, 1, (int64_t)g.v, 0))
                return -1;
        }
    }
    return 0;
}

static const keyed_field devfreq_fields[] = {{2, ""}};
static const keyed_field thermal_fields[] = {{2, ""}};
static const keyed_field disk_fields[] = {
    {2, "].read_sectors"},  {3, "].read_time_ms"},    {4, "].write_sectors"},
    {5, "].write_time_ms"}, {6, "].discard_sectors"}, {7, "].discard_time_ms"},
    {8, "].flush_count"},   {9, "].flush_time_ms"}};

/* CpuIdleState {cpu_id=1, cpuidle_state_entry=2 {state=1, duration_us=2}} */
static int sys_cpuidle(pf_decoder *d, const pf_base *base, const pf_field *f)
{
    pf_reader r;
    pf_field g;
    int rc;
    uint64_t cpu = 0;
    pf_reader_init(&r, f->data, f->len);
    while ((rc = pf_next(&r, &g)) == PF_OK)
        if (g.num == 1 && g.wire == PF_WIRE_VARINT)
            cpu = g.v;
    if (rc == PF_BAD) {
        bad(d, base->offset, "sys_stats cpuidle_state");
        return 0;
    }
    pf_reader_init(&r, f->data, f->len);
    while (pf_next(&r, &g) == PF_OK) {
        if (g.num != 2 || g.wire != PF_WIRE_LEN)
            continue;
        pf_reader er;
        pf_field e;
        tread_str state = {"", 0};
        uint64_t dur = 0;
        int has = 0;
        pf_reader_init(&er, g.data, g.len);
        while ((rc = pf_next(&er, &e)) == PF_OK) {
            if (e.num == 1 && e.wire == PF_WIRE_LEN)
                state.ptr = (const char *)e.data, state.len = e.len;
            else if (e.num == 2 && e.wire == PF_WIRE_VARINT)
                dur = e.v, has = 1;
        }
        if (rc == PF_BAD) {
            bad(d, base->offset, "sys_stats cpuidle_state entry");
            continue;
        }
        if (!has)
            continue;
        const char *name = name3(d, "cpuidle.", state, "", base->offset);
        pf_qitem *q = name ? pf_sys_counter(d, base, name, 1, (int64_t)dur, 0) : NULL;
        if (!q)
            return -1;
        q->ev.flags |= TREAD_HAS_CPU;
        q->ev.cpu = (int64_t)cpu;
    }
    return 0;
}

/* BuddyInfo {node=1, zone=2, order_pages=3 repeated}: "buddyinfo.<node>.<zone>.<order>" */
static int sys_buddy(pf_decoder *d, const pf_base *base, const pf_field *f)
{
    pf_reader r;
    pf_field g;
    int rc;
    tread_str node = {"", 0}, zone = {"", 0};
    pf_reader_init(&r, f->data, f->len);
    while ((rc = pf_next(&r, &g)) == PF_OK) {
        if (g.num == 1 && g.wire == PF_WIRE_LEN)
            node.ptr = (const char *)g.data, node.len = g.len;
        else if (g.num == 2 && g.wire == PF_WIRE_LEN)
            zone.ptr = (const char *)g.data, zone.len = g.len;
    }
    if (rc == PF_BAD) {
        bad(d, base->offset, "sys_stats buddy_info");
        return 0;
    }
    pf_u64list pages;
    memset(&pages, 0, sizeof pages);
    pf_reader_init(&r, f->data, f->len);
    while (pf_next(&r, &g) == PF_OK)
        if (g.num == 3 && pf_read_repeated(&g, 0, &pages))
            bad(d, base->offset, "sys_stats buddy_info order_pages");
    for (size_t i = 0; i < pages.n; i++) {
        char buf[300];
        int n = snprintf(buf, sizeof buf, "buddyinfo.%.*s.%.*s.%zu", (int)(node.len > 128 ? 128 : node.len),
                         node.ptr, (int)(zone.len > 128 ? 128 : zone.len), zone.ptr, i);
        const char *name = pf_sys_intern(d, buf, (size_t)n, base->offset);
        if (!name || !pf_sys_counter(d, base, name, 1, (int64_t)pages.v[i], 0))
            return -1;
    }
    return 0;
}

/* PsiSample {resource=1 enum, total_ns=2} */
static int sys_psi(pf_decoder *d, const pf_base *base, const pf_field *f)
{
    pf_reader r;
    pf_field g;
    int rc;
    uint64_t res = 0, total = 0;
    int has = 0;
    pf_reader_init(&r, f->data, f->len);
    while ((rc = pf_next(&r, &g)) == PF_OK) {
        if (g.wire != PF_WIRE_VARINT)
            continue;
        if (g.num == 1)
            res = g.v;
        else if (g.num == 2)
            total = g.v, has = 1;
    }
    if (rc == PF_BAD) {
        bad(d, base->offset, "sys_stats psi");
        return 0;
    }
    if (!has)
        return 0;
    /* PSI_RESOURCE_CPU_SOME -> psi.cpu_some */
    const char *name = enum_counter_name(d, "perfetto.protos.SysStats.PsiSample", f->data,
                                         f->len, 1, res, "psi.", 0, base->offset);
    if (!name)
        return -1;
    if (!strncmp(name, "psi.psi_resource_", 17)) {
        char buf[160];
        int n = snprintf(buf, sizeof buf, "psi.%s", name + 17);
        name = pf_sys_intern(d, buf, (size_t)n, base->offset);
        if (!name)
            return -1;
    }
    return pf_sys_counter(d, base, name, 1, (int64_t)total, 0) ? 0 : -1;
}

static int sys_stats(pf_decoder *d, const unsigned char *m, size_t len, const pf_base *base)
{
    pf_reader r;
    pf_field f;
    int rc;
    uint64_t cpufreq_i = 0, gpufreq_i = 0;
    d->sys->n_sys_stats++;
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        int e = 0;
        if (f.wire == PF_WIRE_VARINT) {
            switch (f.num) {
            case 4: e = !pf_sys_counter(d, base, "num_forks", 1, (int64_t)f.v, 0); break;
            case 5: e = !pf_sys_counter(d, base, "num_irq_total", 1, (int64_t)f.v, 0); break;
            case 7: e = !pf_sys_counter(d, base, "num_softirq_total", 1, (int64_t)f.v, 0); break;
            case 11: { /* cpufreq_khz, unpacked */
                pf_qitem *q = pf_sys_counter(d, base, "cpufreq", 1, (int64_t)f.v, 0);
                if (q)
                    q->ev.flags |= TREAD_HAS_CPU, q->ev.cpu = (int64_t)cpufreq_i++;
                e = !q;
                break;
            }
            case 17: { /* gpufreq_mhz, unpacked */
                char buf[40];
                int n = snprintf(buf, sizeof buf, "gpufreq.%" PRIu64, gpufreq_i++);
                const char *name = pf_sys_intern(d, buf, (size_t)n, base->offset);
                e = !name || !pf_sys_counter(d, base, name, 1, (int64_t)f.v, 0);
                break;
            }
            }
            if (e)
                return -1;
            continue;
        }
        if (f.wire != PF_WIRE_LEN)
            continue;
        switch (f.num) {
        case 1: /* /proc/meminfo is in kB: bytes, as trace_processor stores them */
            e = sys_kv(d, base, &f, "perfetto.protos.SysStats.MeminfoValue", "meminfo.", 1024);
            break;
        case 2: e = sys_kv(d, base, &f, "perfetto.protos.SysStats.VmstatValue", "vmstat.", 1); break;
        case 3: e = sys_cpu_times(d, base, &f); break;
        case 6: e = sys_irq(d, base, &f, "num_irq."); break;
        case 8: e = sys_irq(d, base, &f, "num_softirq."); break;
        case 10:
            e = sys_keyed(d, base, &f, 1, "devfreq.", devfreq_fields, 1, "sys_stats devfreq");
            break;
        case 11: /* cpufreq_khz packed */
        case 17: { /* gpufreq_mhz packed */
            pf_u64list l;
            memset(&l, 0, sizeof l);
            if (pf_read_repeated(&f, 0, &l)) {
                bad(d, base->offset, "sys_stats frequencies");
                break;
            }
            for (size_t i = 0; i < l.n && !e; i++) {
                if (f.num == 11) {
                    pf_qitem *q = pf_sys_counter(d, base, "cpufreq", 1, (int64_t)l.v[i], 0);
                    if (q)
                        q->ev.flags |= TREAD_HAS_CPU, q->ev.cpu = (int64_t)cpufreq_i++;
                    e = !q;
                } else {
                    char buf[40];
                    int n = snprintf(buf, sizeof buf, "gpufreq.%" PRIu64, gpufreq_i++);
                    const char *name = pf_sys_intern(d, buf, (size_t)n, base->offset);
                    e = !name || !pf_sys_counter(d, base, name, 1, (int64_t)l.v[i], 0);
                }
            }
            break;
        }
        case 12: e = sys_buddy(d, base, &f); break;
        case 13:
            e = sys_keyed(d, base, &f, 1, "diskstat.[", disk_fields,
                          sizeof disk_fields / sizeof disk_fields[0], "sys_stats disk_stat");
            break;
        case 14: e = sys_psi(d, base, &f); break;
        case 15:
            e = sys_keyed(d, base, &f, 1, "thermal.", thermal_fields, 1, "sys_stats thermal_zone");
            break;
        case 16: e = sys_cpuidle(d, base, &f); break;
        }
        if (e)
            return -1;
    }
    if (rc == PF_BAD)
        bad(d, base->offset, "sys_stats");
    return 0;
}

/* ---- ProcessStats --------------------------------------------------------- */

/* ProcessStats.Process fields that are memory in kB, and their counter
 * names (trace_processor's "mem.*" process counters). */
static const char *proc_mem_name(uint32_t num)
{
    switch (num) {
    case 2: return "mem.virt";
    case 3: return "mem.rss";
    case 4: return "mem.rss.anon";
    case 5: return "mem.rss.file";
    case 6: return "mem.rss.shmem";
    case 7: return "mem.swap";
    case 8: return "mem.locked";
    case 9: return "mem.rss.watermark";
    case 13: return "chrome.private_footprint_kb";
    case 14: return "chrome.peak_resident_set_kb";
    case 16: return "mem.smaps.rss";
    case 17: return "mem.smaps.pss";
    case 18: return "mem.smaps.pss.anon";
    case 19: return "mem.smaps.pss.file";
    case 20: return "mem.smaps.pss.shmem";
    case 23: return "mem.smaps.swap.pss";
    case 24: return "mem.dmabuf_rss";
    default: return NULL;
    }
}

static int process_stats(pf_decoder *d, const unsigned char *m, size_t len, const pf_base *base)
{
    pf_reader r;
    pf_field f;
    int rc;
    d->sys->n_process_stats++;
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.num != 1 || f.wire != PF_WIRE_LEN)
            continue;
        pf_reader pr;
        pf_field g;
        int prc;
        int has_pid = 0;
        int64_t pid = 0;
        pf_reader_init(&pr, f.data, f.len);
        while ((prc = pf_next(&pr, &g)) == PF_OK)
            if (g.num == 1 && g.wire == PF_WIRE_VARINT)
                has_pid = 1, pid = (int64_t)(int32_t)g.v;
        if (prc == PF_BAD || !has_pid) {
            bad(d, base->offset, has_pid ? "process_stats process" : "process_stats process without a pid");
            continue;
        }
        pf_reader_init(&pr, f.data, f.len);
        while (pf_next(&pr, &g) == PF_OK) {
            if (g.wire != PF_WIRE_VARINT)
                continue;
            const char *name = NULL;
            int64_t v = 0;
            if ((name = proc_mem_name(g.num)) != NULL) {
                /* kB as bytes; the chrome_* ones stay as written */
                v = (g.num == 13 || g.num == 14) ? (int64_t)g.v : (int64_t)(g.v * 1024);
            } else if (g.num == 10) {
                name = "oom_score_adj", v = (int64_t)g.v;
            } else if (g.num == 21) {
                name = "runtime.user_mode", v = (int64_t)g.v;
            } else if (g.num == 22) {
                name = "runtime.kernel_mode", v = (int64_t)g.v;
            } else {
                continue;
            }
            pf_qitem *q = pf_sys_counter(d, base, name, 1, v, 0);
            if (!q)
                return -1;
            q->ev.flags |= TREAD_HAS_PID | TREAD_HAS_TRACK;
            q->ev.pid = q->ev.tid = pid;
            q->ev.track_kind = TREAD_TRACK_PROCESS;
        }
    }
    if (rc == PF_BAD)
        bad(d, base->offset, "process_stats");
    return 0;
}

/* ---- AndroidLogPacket ----------------------------------------------------- */

static int android_log(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len,
                       const pf_base *base)
{
    pf_reader r;
    pf_field f;
    int rc;
    pf_sys *y = d->sys;
    pf_sys_find_types(y);
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.num != 1 || f.wire != PF_WIRE_LEN)
            continue;
        pf_reader er;
        pf_field g;
        int erc;
        int64_t pid = 0, tid = 0, prio = 0;
        int has_pid = 0, has_tid = 0, has_ts = 0, has_prio = 0;
        uint64_t ts = 0;
        tread_str tag = {NULL, 0}, msg = {NULL, 0};
        pf_reader_init(&er, f.data, f.len);
        while ((erc = pf_next(&er, &g)) == PF_OK) {
            if (g.wire == PF_WIRE_VARINT) {
                switch (g.num) {
                case 2: has_pid = 1, pid = (int64_t)(int32_t)g.v; break;
                case 3: has_tid = 1, tid = (int64_t)(int32_t)g.v; break;
                case 5: has_ts = 1, ts = g.v; break;
                case 7: has_prio = 1, prio = (int64_t)g.v; break;
                }
            } else if (g.wire == PF_WIRE_LEN) {
                if (g.num == 6)
                    tag.ptr = (const char *)g.data, tag.len = g.len;
                else if (g.num == 8)
                    msg.ptr = (const char *)g.data, msg.len = g.len;
            }
        }
        if (erc == PF_BAD) {
            bad(d, base->offset, "android_log event");
            continue;
        }
        pf_qitem *q = pf_queue_event(d, base);
        if (!q)
            return -1;
        tread_event *ev = &q->ev;
        y->n_logs++;
        ev->kind = TREAD_EVENT_LOG;
        /* the message is what happened; the tag says who. LID_EVENTS
         * entries have no message: their tag is the event's name, their
         * values are in the args */
        ev->name = msg.len ? msg : tag;
        ev->cat = tag;
        if (has_prio) {
            ev->flags |= TREAD_HAS_VALUE | TREAD_VALUE_IS_INT;
            ev->value_int = prio;
            ev->value = (double)prio;
        }
        if (has_pid) {
            ev->flags |= TREAD_HAS_PID;
            ev->pid = ev->tid = pid;
        }
        if (has_tid) {
            ev->flags |= TREAD_HAS_TID;
            ev->tid = tid;
        }
        if (has_ts) /* CLOCK_REALTIME (perfetto_reference.txt, LogEvent) */
            pf_sys_set_ts(d, s, ev, 1, (int64_t)ts);
        else
            ev->flags &= ~(uint32_t)(TREAD_HAS_TS | TREAD_HAS_RAW_TS);
        if (y->t_log_event)
            ev->args = tread_perfetto_args(y->t_log_event, f.data, f.len);
    }
    if (rc == PF_BAD)
        bad(d, base->offset, "android_log");
    return 0;
}

/* ---- TrackEvent log_message ---------------------------------------------- */

/* InternedData fields of LogMessage's references (perfetto_fields.tsv). */
#define PF_INTERN_SOURCE_LOCATIONS 4
#define PF_INTERN_LOG_MESSAGE_BODY 20

int pf_log_message(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len, size_t main,
                   const pf_base *base)
{
    pf_reader r;
    pf_field f;
    int rc;
    uint64_t body_iid = 0, loc_iid = 0, prio = 0;
    int has_body = 0, has_loc = 0, has_prio = 0;
    if (!pf_sys_get(d, base->offset))
        return -1;
    pf_sys *y = d->sys;
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.wire != PF_WIRE_VARINT)
            continue;
        if (f.num == 1)
            has_loc = 1, loc_iid = f.v;
        else if (f.num == 2)
            has_body = 1, body_iid = f.v;
        else if (f.num == 3)
            has_prio = 1, prio = f.v;
    }
    if (rc == PF_BAD) {
        bad(d, base->offset, "track_event log_message");
        return 0;
    }
    pf_qitem *q = pf_queue_event(d, base);
    if (!q)
        return -1;
    const tread_event *me = &d->q[main].ev; /* (the queue may have moved) */
    tread_event *ev = &q->ev;
    y->n_logs++;
    ev->kind = TREAD_EVENT_LOG;
    ev->flags = me->flags & (TREAD_HAS_TS | TREAD_HAS_RAW_TS | TREAD_HAS_SEQ | TREAD_HAS_PID |
                             TREAD_HAS_TID | TREAD_HAS_TRACK | TREAD_THREAD_UNRESOLVED);
    ev->ts = me->ts;
    ev->raw_ts = me->raw_ts;
    ev->clock_id = me->clock_id;
    ev->pid = me->pid;
    ev->tid = me->tid;
    ev->track_uuid = me->track_uuid;
    ev->track_kind = me->track_kind;
    const pf_entry *e = has_body ? pf_seq_find(s, PF_INTERN_LOG_MESSAGE_BODY, body_iid) : NULL;
    if (e && pf_interned_str(e, &ev->name)) {
        q->nul |= PF_NUL_NAME;
    } else if (has_body) {
        ev->flags |= TREAD_NAME_UNRESOLVED;
        d->n_interning_misses++;
        tread__warn(d->p, TREAD_WARN_UNRESOLVED_REF, base->offset,
                    "log message body iid %" PRIu64 " was never interned", body_iid);
    }
    /* the source file says where it comes from, as a log tag does */
    e = has_loc ? pf_seq_find(s, PF_INTERN_SOURCE_LOCATIONS, loc_iid) : NULL;
    if (e && pf_interned_str(e, &ev->cat))
        q->nul |= PF_NUL_CAT;
    if (has_prio) {
        ev->flags |= TREAD_HAS_VALUE | TREAD_VALUE_IS_INT;
        ev->value_int = (int64_t)prio;
        ev->value = (double)prio;
    }
    pf_sys_find_types(y);
    if (y->t_log_message)
        ev->args = tread_perfetto_args(y->t_log_message, m, len);
    return 0;
}

/* ---- BatteryCounters ------------------------------------------------------ */

static int battery(pf_decoder *d, const unsigned char *m, size_t len, const pf_base *base)
{
    static const char *const names[] = {NULL, "charge_uah", "capacity_pct", "current_ua",
                                        "current.avg_ua", NULL, "energy_counter_uwh",
                                        "voltage_uv"};
    pf_reader r;
    pf_field f;
    int rc;
    tread_str bname = {NULL, 0};
    d->sys->n_battery++;
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK)
        if (f.num == 5 && f.wire == PF_WIRE_LEN)
            bname.ptr = (const char *)f.data, bname.len = f.len;
    if (rc == PF_BAD) {
        bad(d, base->offset, "battery");
        return 0;
    }
    pf_reader_init(&r, m, len);
    while (pf_next(&r, &f) == PF_OK) {
        if (f.num > 7 || !names[f.num])
            continue;
        char buf[300];
        int n;
        if (bname.ptr)
            n = snprintf(buf, sizeof buf, "batt.%.*s.%s", (int)(bname.len > 200 ? 200 : bname.len),
                         bname.ptr, names[f.num]);
        else
            n = snprintf(buf, sizeof buf, "batt.%s", names[f.num]);
        const char *name = pf_sys_intern(d, buf, (size_t)n, base->offset);
        if (!name)
            return -1;
        pf_qitem *q;
        if (f.num == 2 && f.wire == PF_WIRE_FIXED32)
            q = pf_sys_counter(d, base, name, 0, 0, (double)pf_float((uint32_t)f.v));
        else if (f.num != 2 && f.wire == PF_WIRE_VARINT)
            q = pf_sys_counter(d, base, name, 1, (int64_t)f.v, 0);
        else
            continue;
        if (!q)
            return -1;
    }
    return 0;
}

/* ---- PowerRails ----------------------------------------------------------- */

static pf_rail *rail_find(pf_sys *y, uint32_t index)
{
    for (size_t i = 0; i < y->rails_used; i++)
        if (y->rails[i].index == index)
            return &y->rails[i];
    return NULL;
}

static int power_rails(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len,
                       const pf_base *base)
{
    pf_sys *y = d->sys;
    pf_reader r;
    pf_field f;
    int rc;
    y->n_power_rails++;
    /* descriptors first: a packet may carry both, in any order */
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.num != 1 || f.wire != PF_WIRE_LEN)
            continue;
        pf_reader dr;
        pf_field g;
        uint32_t index = 0;
        tread_str rail = {"", 0};
        pf_reader_init(&dr, f.data, f.len);
        while (pf_next(&dr, &g) == PF_OK) {
            if (g.num == 1 && g.wire == PF_WIRE_VARINT)
                index = (uint32_t)g.v;
            else if (g.num == 2 && g.wire == PF_WIRE_LEN)
                rail.ptr = (const char *)g.data, rail.len = g.len;
        }
        const char *name = name3(d, "power.", rail, "_uws", base->offset);
        if (!name)
            return -1;
        pf_rail *pr = rail_find(y, index);
        if (!pr) {
            if (y->rails_used >= PF_SYS_MAX_RAILS) {
                bad(d, base->offset, "power rail descriptor beyond PF_SYS_MAX_RAILS");
                continue;
            }
            if (!y->rails) {
                if (pf_charge(d, PF_SYS_MAX_RAILS * sizeof *y->rails, base->offset))
                    return -1;
                y->rails = tread_malloc(&d->p->alloc, PF_SYS_MAX_RAILS * sizeof *y->rails);
                if (!y->rails) {
                    tread__fail(d->p, TREAD_ERROR_NOMEM, base->offset, "out of memory");
                    return -1;
                }
            }
            pr = &y->rails[y->rails_used++];
            pr->index = index;
        }
        pr->name = name;
        pr->len = strlen(name);
    }
    if (rc == PF_BAD) {
        bad(d, base->offset, "power_rails");
        return 0;
    }
    pf_reader_init(&r, m, len);
    while (pf_next(&r, &f) == PF_OK) {
        if (f.num != 2 || f.wire != PF_WIRE_LEN)
            continue;
        pf_reader er;
        pf_field g;
        uint32_t index = 0;
        uint64_t ts_ms = 0, energy = 0;
        int has_ts = 0;
        pf_reader_init(&er, f.data, f.len);
        while (pf_next(&er, &g) == PF_OK) {
            if (g.wire != PF_WIRE_VARINT)
                continue;
            if (g.num == 1)
                index = (uint32_t)g.v;
            else if (g.num == 2)
                ts_ms = g.v, has_ts = 1;
            else if (g.num == 3)
                energy = g.v;
        }
        const pf_rail *pr = rail_find(y, index);
        if (!pr) {
            y->n_unknown_rail++;
            tread__warn(d->p, TREAD_WARN_UNRESOLVED_REF, base->offset,
                        "power rail energy data for index %u, which no descriptor named: skipped",
                        (unsigned)index);
            continue;
        }
        pf_qitem *q = pf_sys_counter(d, base, pr->name, 1, (int64_t)energy, 0);
        if (!q)
            return -1;
        /* timestamp_ms: CLOCK_BOOTTIME in ms (perfetto_reference.txt) */
        if (has_ts && ts_ms <= (uint64_t)INT64_MAX / 1000000)
            pf_sys_set_ts(d, s, &q->ev, PF_CLOCK_BOOTTIME, (int64_t)(ts_ms * 1000000));
    }
    return 0;
}

/* ---- dispatch ------------------------------------------------------------- */

int pf_system_packet(pf_decoder *d, pf_seq *s, uint32_t num, const unsigned char *m,
                     size_t len, const pf_base *base)
{
    if (!pf_sys_get(d, base->offset))
        return -1;
    switch (num) {
    case PF_PKT_FTRACE_EVENTS: return pf_ftrace_bundle(d, s, m, len, base);
    case PF_PKT_SYS_STATS: return sys_stats(d, m, len, base);
    case PF_PKT_PROCESS_STATS: return process_stats(d, m, len, base);
    case PF_PKT_BATTERY: return battery(d, m, len, base);
    case PF_PKT_ANDROID_LOG: return android_log(d, s, m, len, base);
    case PF_PKT_POWER_RAILS: return power_rails(d, s, m, len, base);
    }
    return 0;
}

size_t pf_system_counters(const pf_decoder *d, tread_counter *out, size_t max, size_t n)
{
    static const pf_sys zero;
    const pf_sys *y = d->sys ? d->sys : &zero;
    n = tread__counter_put(out, max, n, "ftrace_bundles", y->n_bundles);
    n = tread__counter_put(out, max, n, "ftrace_events", y->n_ftrace_events);
    n = tread__counter_put(out, max, n, "ftrace_generic_events", y->n_generic);
    n = tread__counter_put(out, max, n, "ftrace_compact_sched_switch", y->n_compact_switch);
    n = tread__counter_put(out, max, n, "ftrace_compact_sched_waking", y->n_compact_waking);
    n = tread__counter_put(out, max, n, "ftrace_bundles_lost_events", y->n_lost_bundles);
    n = tread__counter_put(out, max, n, "ftrace_timestamps_raw_clock", y->n_ftrace_clock_raw);
    n = tread__counter_put(out, max, n, "sys_stats_packets", y->n_sys_stats);
    n = tread__counter_put(out, max, n, "process_stats_packets", y->n_process_stats);
    n = tread__counter_put(out, max, n, "android_log_events", y->n_logs);
    n = tread__counter_put(out, max, n, "battery_packets", y->n_battery);
    n = tread__counter_put(out, max, n, "power_rails_packets", y->n_power_rails);
    n = tread__counter_put(out, max, n, "power_rail_unknown_index", y->n_unknown_rail);
    n = tread__counter_put(out, max, n, "system_fields_not_decoded", y->n_bad);
    return n;
}
