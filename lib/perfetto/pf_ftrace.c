/*
 * FtraceEventBundle (TracePacket.ftrace_events) into the event model,
 * through the ftrace mapping shared with the ftrace text decoder
 * (lib/ftrace/ftrace_map.h): this file only reads the protobuf fields into
 * the mapping's typed inputs. Each event's args are its own message
 * (SchedSwitchFtraceEvent, ...) read through the schema (TREAD_ARGS_PROTO);
 * an ftrace event the mapping does not name is a generic event named by its
 * FtraceEvent field name (found through the schema too).
 *
 * compact_sched arrays become the same events as their full forms: the
 * thread switched out is the one the cpu last switched in (kept per cpu
 * across bundles), and each event's args are a SchedSwitchFtraceEvent /
 * SchedWakingFtraceEvent message synthesized from the arrays.
 *
 * Timestamps are on the bundle's ftrace_clock: boot (unspecified) is
 * BUILTIN_CLOCK_BOOTTIME, mono_raw BUILTIN_CLOCK_MONOTONIC_RAW, global and
 * local are moved onto boottime by the bundle's (ftrace_timestamp,
 * boot_timestamp) pair; without one they stay raw (clock_id 0).
 */
#include "perfetto/pf_system.h"
#include "perfetto/pf_seq.h"
#include "perfetto/pf_queue.h"
#include "perfetto/pf_clock.h"
#include "ftrace/ftrace_map.h"
#include "perfetto/pf_walk.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* FtraceEvent fields (perfetto_fields.tsv). */
enum {
    FE_TIMESTAMP = 1,
    FE_PID = 2,
    FE_PRINT = 3,
    FE_SCHED_SWITCH = 4,
    FE_COMMON_FLAGS = 5,
    FE_CPU_FREQUENCY = 11,
    FE_CPU_IDLE = 13,
    FE_SCHED_WAKEUP = 17,
    FE_SCHED_WAKING = 20,
    FE_SCHED_WAKEUP_NEW = 114,
    FE_TASK_NEWTASK = 235,
    FE_TASK_RENAME = 236
};

/* Longest comm copied into a synthesized compact_sched message (the
 * kernel's TASK_COMM_LEN is 16; longer intern_table strings are cut). */
#define PF_FTRACE_MAX_SYNTH_COMM 64

#define LIT(s) ((tread_str){s, sizeof s - 1})

typedef struct fclock {
    uint32_t clock;  /* the builtin clock the values are on */
    int64_t shift;   /* added first (global/local -> boottime) */
    int raw;         /* no way onto a known clock: kept raw, clock_id 0 */
} fclock;

/* The timestamp of a queued event. */
static void set_ts(pf_decoder *d, pf_seq *s, const fclock *ck, tread_event *ev, int has_ts,
                   uint64_t ts)
{
    if (!has_ts) {
        ev->flags &= ~(uint32_t)(TREAD_HAS_TS | TREAD_HAS_RAW_TS);
        return;
    }
    if (ck->raw) {
        d->sys->n_ftrace_clock_raw++;
        ev->flags &= ~(uint32_t)TREAD_HAS_TS;
        ev->flags |= TREAD_HAS_RAW_TS;
        ev->ts = 0;
        ev->raw_ts = (int64_t)ts;
        ev->clock_id = 0;
        return;
    }
    pf_sys_set_ts(d, s, ev, ck->clock, pf_wrap_add((int64_t)ts, ck->shift));
}

/* After a map function filled q->ev: what every Perfetto event has. The
 * counter's value text is dropped (the value is in value / value_int): it
 * would point into the packet, which a pause relocates, and queue slots
 * do not reset it. */
static void finish_event(pf_qitem *q, const pf_base *base)
{
    tread_event *ev = &q->ev;
    ev->value_text.ptr = NULL;
    ev->value_text.len = 0;
    ev->flags |= TREAD_HAS_SEQ;
    ev->seq_id = base->seq_id;
    ev->raw = base->raw;
    ev->offset = base->offset;
}

static int64_t sx32(uint64_t v) { return (int64_t)(int32_t)(uint32_t)v; }

/* ---- one FtraceEvent ------------------------------------------------------ */

/* The name and args type of a generic event: FtraceEvent field num as the
 * schema names it (what a walk of the FtraceEvent reports: its fields are
 * all scalars or messages, so nothing before num can stop the walk), else
 * "ftrace_event_<num>". Cached: a trace has few kinds. NULL after
 * tread__fail. */
static const struct pf_gen_name *gen_name(pf_decoder *d, uint32_t num, uint64_t off)
{
    pf_sys *y = d->sys;
    struct pf_gen_name *g = &y->gen_names[num & 31];
    if (PF_LIKELY(g->num == num))
        return g;
    const char *name = NULL;
    const tread_perfetto_msgtype *type = NULL;
    size_t n;
    if (pf_walk_message_field(y->t_ftrace_event, num, &name, &type)) {
        n = strlen(name);
    } else {
        char nb[40];
        n = (size_t)snprintf(nb, sizeof nb, "ftrace_event_%u", (unsigned)num);
        name = pf_sys_intern(d, nb, n, off);
        if (!name)
            return NULL;
        type = NULL;
    }
    g->num = num;
    g->name = name;
    g->len = n;
    g->type = type;
    return g;
}

static int ftrace_event(pf_decoder *d, pf_seq *s, const fclock *ck, int has_cpu, uint64_t cpu,
                        const unsigned char *m, size_t len, const pf_base *base)
{
    pf_sys *y = d->sys;
    pf_reader r;
    pf_field f;
    int rc;
    int has_ts = 0, has_pid = 0;
    uint64_t ts = 0, pid = 0;
    uint32_t num = 0;
    const unsigned char *em = NULL;
    size_t elen = 0;
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.wire == PF_WIRE_VARINT) {
            if (f.num == FE_TIMESTAMP)
                has_ts = 1, ts = f.v;
            else if (f.num == FE_PID)
                has_pid = 1, pid = f.v;
        } else if (f.wire == PF_WIRE_LEN && f.num != FE_COMMON_FLAGS) {
            num = f.num, em = f.data, elen = f.len; /* the event oneof */
        }
    }
    if (rc == PF_BAD) {
        y->n_bad++;
        tread__warn(d->p, TREAD_WARN_BAD_RECORD, base->offset,
                    "an ftrace event does not decode: skipped");
        return 0;
    }
    if (!em)
        return 0; /* no event in it (an event type this producer left empty) */
    y->n_ftrace_events++;

    tread_ftrace_common c;
    memset(&c, 0, sizeof c);
    c.tid = (int64_t)(uint32_t)pid;
    (void)has_pid;
    if (has_cpu) {
        c.flags |= TREAD_FTRACE_HAS_CPU;
        c.cpu = (int64_t)cpu;
    }
    c.offset = base->offset;

    /* (every case below starts with tread__ftrace_event_init, which resets
     * the whole event) */
    pf_qitem *q = pf_queue_slot(d, base->offset);
    if (!q)
        return -1;
    tread_event *ev = &q->ev;
    pf_reader er;
    pf_field g;
    int mapped = TREAD_FTRACE_NONE;
    const tread_perfetto_msgtype *t = NULL;
    unsigned nul = PF_NUL_NAME | PF_NUL_CAT; /* static name, cat "ftrace" */
    pf_reader_init(&er, em, elen);
    switch (num) {
    case FE_SCHED_SWITCH: {
        tread_ftrace_sched_switch sw;
        memset(&sw, 0, sizeof sw);
        while (pf_next(&er, &g) == PF_OK) {
            if (g.wire == PF_WIRE_LEN) {
                if (g.num == 1)
                    sw.prev_comm.ptr = (const char *)g.data, sw.prev_comm.len = g.len;
                else if (g.num == 5)
                    sw.next_comm.ptr = (const char *)g.data, sw.next_comm.len = g.len;
            } else if (g.wire == PF_WIRE_VARINT) {
                switch (g.num) {
                case 2: sw.prev_pid = sx32(g.v); break;
                case 3: sw.prev_prio = sx32(g.v); break;
                case 4: sw.prev_state = (int64_t)g.v, sw.has_prev_state_num = 1; break;
                case 6: sw.next_pid = sx32(g.v); break;
                case 7: sw.next_prio = sx32(g.v); break;
                }
            }
        }
        t = y->t_switch;
        c.args = t ? tread_perfetto_args(t, em, elen) : c.args;
        tread__ftrace_event_init(ev, &c, LIT("sched_switch"));
        mapped = tread__ftrace_map_sched_switch(ev, &c, &sw);
        /* the cpu remembers who runs on it, for compact_sched bundles */
        if (has_cpu && cpu < y->ncpus) {
            y->cpu_last[cpu] = sw.next_pid;
            y->cpu_known[cpu] = 1;
        }
        break;
    }
    case FE_SCHED_WAKING:
    case FE_SCHED_WAKEUP:
    case FE_SCHED_WAKEUP_NEW: {
        tread_ftrace_sched_wakeup w;
        memset(&w, 0, sizeof w);
        w.target_cpu = -1;
        while (pf_next(&er, &g) == PF_OK) {
            if (g.wire == PF_WIRE_LEN && g.num == 1)
                w.comm.ptr = (const char *)g.data, w.comm.len = g.len;
            else if (g.wire == PF_WIRE_VARINT && g.num == 2)
                w.pid = sx32(g.v);
            else if (g.wire == PF_WIRE_VARINT && g.num == 3)
                w.prio = sx32(g.v);
            else if (g.wire == PF_WIRE_VARINT && g.num == 5)
                w.target_cpu = sx32(g.v);
        }
        t = num == FE_SCHED_WAKING ? y->t_waking
            : num == FE_SCHED_WAKEUP ? y->t_wakeup : y->t_wakeup_new;
        c.args = t ? tread_perfetto_args(t, em, elen) : c.args;
        tread__ftrace_event_init(ev, &c, num == FE_SCHED_WAKING ? LIT("sched_waking")
                                         : num == FE_SCHED_WAKEUP ? LIT("sched_wakeup")
                                                                  : LIT("sched_wakeup_new"));
        mapped = tread__ftrace_map_sched_wakeup(ev, &c, &w);
        break;
    }
    case FE_CPU_FREQUENCY:
    case FE_CPU_IDLE: {
        tread_ftrace_cpu_state cs;
        memset(&cs, 0, sizeof cs);
        while (pf_next(&er, &g) == PF_OK) {
            if (g.wire == PF_WIRE_VARINT && g.num == 1)
                cs.state = (uint32_t)g.v;
            else if (g.wire == PF_WIRE_VARINT && g.num == 2)
                cs.cpu_id = (int64_t)(uint32_t)g.v;
        }
        t = num == FE_CPU_FREQUENCY ? y->t_cpufreq : y->t_cpuidle;
        c.args = t ? tread_perfetto_args(t, em, elen) : c.args;
        if (num == FE_CPU_FREQUENCY) {
            tread__ftrace_event_init(ev, &c, LIT("cpu_frequency"));
            mapped = tread__ftrace_map_cpu_frequency(ev, &c, &cs);
        } else {
            tread__ftrace_event_init(ev, &c, LIT("cpu_idle"));
            mapped = tread__ftrace_map_cpu_idle(ev, &c, &cs);
        }
        nul |= PF_NUL_SERIES;
        break;
    }
    case FE_TASK_NEWTASK: {
        tread_ftrace_task_newtask tn;
        memset(&tn, 0, sizeof tn);
        while (pf_next(&er, &g) == PF_OK) {
            if (g.wire == PF_WIRE_VARINT && g.num == 1)
                tn.pid = sx32(g.v);
            else if (g.wire == PF_WIRE_LEN && g.num == 2)
                tn.comm.ptr = (const char *)g.data, tn.comm.len = g.len;
            else if (g.wire == PF_WIRE_VARINT && g.num == 3)
                tn.clone_flags = g.v;
        }
        t = y->t_newtask;
        c.args = t ? tread_perfetto_args(t, em, elen) : c.args;
        tread__ftrace_event_init(ev, &c, LIT("task_newtask"));
        mapped = tread__ftrace_map_task_newtask(ev, &c, &tn);
        break;
    }
    case FE_TASK_RENAME: {
        tread_ftrace_task_rename tr;
        memset(&tr, 0, sizeof tr);
        while (pf_next(&er, &g) == PF_OK) {
            if (g.wire == PF_WIRE_VARINT && g.num == 1)
                tr.pid = sx32(g.v);
            else if (g.wire == PF_WIRE_LEN && g.num == 2)
                tr.oldcomm.ptr = (const char *)g.data, tr.oldcomm.len = g.len;
            else if (g.wire == PF_WIRE_LEN && g.num == 3)
                tr.newcomm.ptr = (const char *)g.data, tr.newcomm.len = g.len;
        }
        t = y->t_rename;
        c.args = t ? tread_perfetto_args(t, em, elen) : c.args;
        tread__ftrace_event_init(ev, &c, LIT("task_rename"));
        mapped = tread__ftrace_map_task_rename(ev, &c, &tr);
        break;
    }
    case FE_PRINT: {
        tread_str buf = {"", 0};
        while (pf_next(&er, &g) == PF_OK)
            if (g.wire == PF_WIRE_LEN && g.num == 2)
                buf.ptr = (const char *)g.data, buf.len = g.len;
        t = y->t_print;
        c.args = t ? tread_perfetto_args(t, em, elen) : c.args;
        tread__ftrace_event_init(ev, &c, LIT("print"));
        tread_atrace a;
        mapped = tread__atrace_parse(buf.ptr, buf.len, &a);
        if (mapped == TREAD_FTRACE_MAPPED) {
            mapped = tread__ftrace_map_atrace(ev, &c, &a);
            /* names and cookies point into the packet; the category too
             * unless it is the mapping's static "atrace" */
            nul = a.category.len ? 0 : PF_NUL_CAT;
        } else {
            if (mapped == TREAD_FTRACE_MALFORMED)
                tread__warn(d->p, TREAD_WARN_BAD_FIELD, base->offset,
                            "ftrace print \"%.*s\" looks like atrace but does not parse: "
                            "kept as a generic print event",
                            (int)(buf.len > 64 ? 64 : buf.len), buf.ptr);
            tread__ftrace_event_init(ev, &c, LIT("print"));
            mapped = tread__ftrace_map_generic(ev, &c);
            y->n_generic++;
        }
        break;
    }
    default: {
        /* named by its FtraceEvent field, args through the schema */
        const struct pf_gen_name *gn = gen_name(d, num, base->offset);
        if (!gn)
            return -1;
        tread_str name = {gn->name, gn->len};
        if (gn->type)
            c.args = tread_perfetto_args(gn->type, em, elen);
        tread__ftrace_event_init(ev, &c, name);
        mapped = tread__ftrace_map_generic(ev, &c);
        y->n_generic++;
        break;
    }
    }
    if (mapped != TREAD_FTRACE_MAPPED) {
        d->q_len--; /* nothing to emit: give the slot back */
        return 0;
    }
    q->nul |= nul;
    finish_event(q, base);
    set_ts(d, s, ck, ev, has_ts, ts);
    return 0;
}

/* ---- compact_sched -------------------------------------------------------- */

/* A packed repeated varint array of compact_sched. */
typedef struct arr {
    pf_reader r;
    int present, bad;
} arr;

static void arr_set(arr *a, const pf_field *f)
{
    if (a->present || f->wire != PF_WIRE_LEN) {
        a->bad = 1; /* written unpacked or split: not what producers write */
        return;
    }
    a->present = 1;
    pf_reader_init(&a->r, f->data, f->len);
}

static uint64_t arr_next(arr *a, int *ok)
{
    uint64_t v = 0;
    if (!a->present)
        return 0;
    int rc = pf_packed_varint(&a->r, &v);
    if (rc != PF_OK) {
        *ok = 0;
        return 0;
    }
    return v;
}

static size_t arr_count(const unsigned char *p, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += !(p[i] & 0x80);
    return c;
}

static void put_varint(tread_buf *b, uint64_t v)
{
    unsigned char *o = b->data + b->len;
    while (v >= 0x80) {
        *o++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *o++ = (unsigned char)v;
    b->len = (size_t)(o - b->data);
}

static void put_field_varint(tread_buf *b, uint32_t num, uint64_t v)
{
    put_varint(b, (uint64_t)num << 3);
    put_varint(b, v);
}

static void put_field_str(tread_buf *b, uint32_t num, tread_str s)
{
    size_t n = s.len > PF_FTRACE_MAX_SYNTH_COMM ? PF_FTRACE_MAX_SYNTH_COMM : s.len;
    put_varint(b, ((uint64_t)num << 3) | PF_WIRE_LEN);
    put_varint(b, n);
    if (n)
        memcpy(b->data + b->len, s.ptr, n);
    b->len += n;
}

/* Room for one synthesized message: five varint fields and a comm. */
#define SYNTH_MAX (6 * 11 + 2 * 11 + PF_FTRACE_MAX_SYNTH_COMM)

static int compact_sched(pf_decoder *d, pf_seq *s, const fclock *ck, int has_cpu, uint64_t cpu,
                         const unsigned char *m, size_t len, const pf_base *base)
{
    pf_sys *y = d->sys;
    arr a[13];
    memset(a, 0, sizeof a);
    size_t ncomm = 0;
    pf_reader r;
    pf_field f;
    int rc;
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.num == 5)
            ncomm += f.wire == PF_WIRE_LEN;
        else if (f.num >= 1 && f.num <= 12)
            arr_set(&a[f.num], &f);
    }
    int badarr = 0;
    for (int i = 1; i <= 12; i++)
        badarr |= a[i].bad;
    if (rc == PF_BAD || badarr) {
        y->n_bad++;
        tread__warn(d->p, TREAD_WARN_BAD_RECORD, base->offset,
                    "compact_sched does not decode (or has unpacked arrays): skipped");
        return 0;
    }
    size_t nsw = a[1].present ? arr_count(a[1].r.p, (size_t)(a[1].r.end - a[1].r.p)) : 0;
    size_t nwk = a[7].present ? arr_count(a[7].r.p, (size_t)(a[7].r.end - a[7].r.p)) : 0;
    if (!nsw && !nwk)
        return 0;
    /* the comm table, as pointers into the packet: at most one entry per
     * two bytes of the packet */
    const tread_alloc *al = &d->p->alloc;
    tread_str *comms = NULL;
    if (ncomm) {
        comms = tread_malloc(al, ncomm * sizeof *comms);
        if (!comms)
            return tread__fail(d->p, TREAD_ERROR_NOMEM, base->offset, "out of memory"), -1;
        size_t i = 0;
        pf_reader_init(&r, m, len);
        while (pf_next(&r, &f) == PF_OK)
            if (f.num == 5 && f.wire == PF_WIRE_LEN)
                comms[i].ptr = (const char *)f.data, comms[i++].len = f.len;
    }
    /* every synthesized message of the bundle in one reservation: the
     * queued events point into it until the packet is delivered */
    y->synth.len = 0;
    int grc = tread_buf_reserve(&y->synth, (nsw + nwk) * SYNTH_MAX);
    if (grc) {
        tread_free(al, comms);
        if (grc == -1)
            return tread__fail(d->p, TREAD_ERROR_NOMEM, base->offset, "out of memory"), -1;
        return tread__fail(d->p, TREAD_ERROR_LIMIT_EVENT, base->offset,
                           "compact_sched of %zu events is too large to expand", nsw + nwk),
               -1;
    }
    uint64_t sw_ts = 0, wk_ts = 0;
    size_t isw = 0, iwk = 0;
    int ok = 1, e = 0;
    /* the next of each kind, in time order across the two */
    int have_sw = 0, have_wk = 0;
    while (ok && !e && (isw < nsw || iwk < nwk || have_sw || have_wk)) {
        if (!have_sw && isw < nsw) {
            sw_ts += arr_next(&a[1], &ok);
            have_sw = 1;
        }
        if (!have_wk && iwk < nwk) {
            wk_ts += arr_next(&a[7], &ok);
            have_wk = 1;
        }
        if (!ok)
            break;
        int take_sw = have_sw && (!have_wk || sw_ts <= wk_ts);
        tread_ftrace_common c;
        memset(&c, 0, sizeof c);
        if (has_cpu) {
            c.flags |= TREAD_FTRACE_HAS_CPU;
            c.cpu = (int64_t)cpu;
        }
        c.offset = base->offset;
        tread_buf *b = &y->synth;
        const unsigned char *msg = b->data + b->len;
        pf_qitem *q = pf_queue_slot(d, base->offset); /* (reset by the init below) */
        if (!q) {
            e = 1;
            break;
        }
        tread_event *ev = &q->ev;
        if (take_sw) {
            have_sw = 0;
            isw++;
            y->n_compact_switch++;
            tread_ftrace_sched_switch sw;
            memset(&sw, 0, sizeof sw);
            sw.prev_state = (int64_t)arr_next(&a[2], &ok);
            sw.has_prev_state_num = a[2].present;
            sw.next_pid = sx32(arr_next(&a[3], &ok));
            sw.next_prio = sx32(arr_next(&a[4], &ok));
            uint64_t ci = arr_next(&a[6], &ok);
            if (a[6].present && ci < ncomm)
                sw.next_comm = comms[ci];
            int known = has_cpu && cpu < y->ncpus && y->cpu_known[cpu];
            if (known) {
                sw.prev_pid = y->cpu_last[cpu];
                put_field_varint(b, 2, (uint64_t)sw.prev_pid);
            }
            if (a[2].present)
                put_field_varint(b, 4, (uint64_t)sw.prev_state);
            if (sw.next_comm.ptr)
                put_field_str(b, 5, sw.next_comm);
            put_field_varint(b, 6, (uint64_t)sw.next_pid);
            if (a[4].present)
                put_field_varint(b, 7, (uint64_t)sw.next_prio);
            if (y->t_switch)
                c.args = tread_perfetto_args(y->t_switch, msg, (size_t)(b->data + b->len - msg));
            tread__ftrace_event_init(ev, &c, LIT("sched_switch"));
            (void)tread__ftrace_map_sched_switch(ev, &c, &sw);
            if (!known) { /* who was switched out is not known */
                ev->flags &= ~(uint32_t)(TREAD_HAS_TID | TREAD_HAS_PID);
                ev->tid = ev->pid = 0;
            }
            if (has_cpu && cpu < y->ncpus) {
                y->cpu_last[cpu] = sw.next_pid;
                y->cpu_known[cpu] = 1;
            }
            set_ts(d, s, ck, ev, 1, sw_ts);
        } else {
            have_wk = 0;
            iwk++;
            y->n_compact_waking++;
            tread_ftrace_sched_wakeup w;
            memset(&w, 0, sizeof w);
            w.pid = sx32(arr_next(&a[8], &ok));
            w.target_cpu = a[9].present ? sx32(arr_next(&a[9], &ok)) : -1;
            w.prio = sx32(arr_next(&a[10], &ok));
            uint64_t ci = arr_next(&a[11], &ok);
            (void)arr_next(&a[12], &ok); /* common_flags: not mapped */
            if (a[11].present && ci < ncomm)
                w.comm = comms[ci];
            if (w.comm.ptr)
                put_field_str(b, 1, w.comm);
            put_field_varint(b, 2, (uint64_t)w.pid);
            if (a[10].present)
                put_field_varint(b, 3, (uint64_t)w.prio);
            if (a[9].present)
                put_field_varint(b, 5, (uint64_t)w.target_cpu);
            if (y->t_waking)
                c.args = tread_perfetto_args(y->t_waking, msg, (size_t)(b->data + b->len - msg));
            tread__ftrace_event_init(ev, &c, LIT("sched_waking"));
            (void)tread__ftrace_map_sched_wakeup(ev, &c, &w);
            set_ts(d, s, ck, ev, 1, wk_ts);
        }
        q->nul |= PF_NUL_NAME | PF_NUL_CAT;
        finish_event(q, base);
    }
    tread_free(al, comms);
    if (e)
        return -1;
    if (!ok) {
        y->n_bad++;
        tread__warn(d->p, TREAD_WARN_BAD_RECORD, base->offset,
                    "compact_sched arrays are shorter than their timestamps: the rest is skipped");
    }
    return 0;
}

/* ---- the bundle ----------------------------------------------------------- */

int pf_ftrace_bundle(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len,
                     const pf_base *base)
{
    pf_sys *y = d->sys;
    pf_reader r;
    pf_field f;
    int rc;
    int has_cpu = 0, lost = 0, has_fts = 0, has_bts = 0;
    uint64_t cpu = 0, clk = 0;
    int64_t fts = 0, bts = 0;
    pf_sys_find_types(y);
    y->n_bundles++;
    pf_reader_init(&r, m, len);
    while ((rc = pf_next(&r, &f)) == PF_OK) {
        if (f.wire != PF_WIRE_VARINT)
            continue;
        switch (f.num) {
        case 1: has_cpu = 1, cpu = (uint32_t)f.v; break;
        case 3: lost = f.v != 0; break;
        case 5: clk = f.v; break;
        case 6: has_fts = 1, fts = (int64_t)f.v; break;
        case 7: has_bts = 1, bts = (int64_t)f.v; break;
        }
    }
    if (rc == PF_BAD) {
        y->n_bad++;
        tread__warn(d->p, TREAD_WARN_BAD_RECORD, base->offset,
                    "ftrace_events bundle does not decode: skipped");
        return 0;
    }
    if (lost) {
        y->n_lost_bundles++;
        tread__warn(d->p, TREAD_WARN_DATA_LOSS, base->offset,
                    "ftrace lost events on cpu %" PRIu64 " before this bundle", cpu);
    }
    /* FtraceClock: 0 unspecified (boot), 1 unknown, 2 global, 3 local,
     * 4 mono_raw */
    fclock ck = {PF_CLOCK_BOOTTIME, 0, 0};
    if (clk == 4) {
        ck.clock = 5; /* BUILTIN_CLOCK_MONOTONIC_RAW */
    } else if (clk != 0) {
        if (has_fts && has_bts) {
            ck.shift = (int64_t)((uint64_t)bts - (uint64_t)fts);
        } else {
            ck.raw = 1;
            tread__warn(d->p, TREAD_WARN_CLOCK, base->offset,
                        "ftrace bundle on ftrace clock %" PRIu64
                        " without a (ftrace_timestamp, boot_timestamp) pair: timestamps kept raw",
                        clk);
        }
    }
    /* the per-cpu thread for compact_sched is kept for full sched_switch
     * events too: make room for this cpu once */
    if (has_cpu && cpu >= y->ncpus && cpu < PF_SYS_MAX_CPUS) {
        size_t n = (size_t)cpu + 1 < 64 ? 64 : (size_t)cpu + 1;
        int64_t *last = tread_realloc(&d->p->alloc, y->cpu_last, n * sizeof *last);
        if (last)
            y->cpu_last = last;
        unsigned char *known = last ? tread_realloc(&d->p->alloc, y->cpu_known, n) : NULL;
        if (!known)
            return tread__fail(d->p, TREAD_ERROR_NOMEM, base->offset, "out of memory"), -1;
        y->cpu_known = known;
        memset(known + y->ncpus, 0, n - y->ncpus);
        y->ncpus = n;
    }
    int ncompact = 0;
    pf_reader_init(&r, m, len);
    while (pf_next(&r, &f) == PF_OK) {
        if (f.wire != PF_WIRE_LEN)
            continue;
        int e = 0;
        if (f.num == 2) {
            e = ftrace_event(d, s, &ck, has_cpu, cpu, f.data, f.len, base);
        } else if (f.num == 4 && ncompact++ == 0) {
            e = compact_sched(d, s, &ck, has_cpu, cpu, f.data, f.len, base);
        } else if (f.num == 4) {
            /* (its synthesized args live in one buffer per bundle) */
            y->n_bad++;
            tread__warn(d->p, TREAD_WARN_BAD_RECORD, base->offset,
                        "a second compact_sched in one ftrace bundle: skipped");
        }
        if (e)
            return -1;
    }
    return 0;
}
