/* One ring-buffer record -> one tread_event, through the ftrace mapping
 * the text and Perfetto readers share (lib/ftrace/ftrace_map.h). Mapped
 * events keep the kernel's bare name (as in the text); every other event
 * is a generic instant named "system:event". */
#include <stdio.h>
#include "tracedat/td_dec.h"
#include "ftrace/ftrace_map.h"

static int64_t to_ns(const td_dec *d, uint64_t ts)
{
    if (d->tsc2nsec) {
        unsigned __int128 x = (unsigned __int128)ts * d->tsc_mult;
        ts = (uint64_t)(x >> d->tsc_shift) + d->tsc_offset;
    }
    return (int64_t)ts + d->ts_offset;
}

static int map_known(td_dec *d, const td_format *f, tread_event *ev, const tread_ftrace_common *c,
                     const td_record *r)
{
    const unsigned char *rec = r->data;
    size_t len = r->len;
    switch (f->map) {
    case TD_MAP_SWITCH: {
        tread_ftrace_sched_switch s;
        memset(&s, 0, sizeof s);
        if (td_field_int(f, f->f_pid, rec, len, &s.prev_pid) != 0)
            return TREAD_FTRACE_MALFORMED;
        return tread__ftrace_map_sched_switch(ev, c, &s);
    }
    case TD_MAP_WAKEUP: {
        tread_ftrace_sched_wakeup w;
        memset(&w, 0, sizeof w);
        w.target_cpu = -1;
        if (td_field_int(f, f->f_pid, rec, len, &w.pid) != 0)
            return TREAD_FTRACE_MALFORMED;
        return tread__ftrace_map_sched_wakeup(ev, c, &w);
    }
    case TD_MAP_CPU_FREQ:
    case TD_MAP_CPU_IDLE: {
        tread_ftrace_cpu_state s;
        int64_t st;
        if (td_field_int(f, f->f_a, rec, len, &st) != 0 ||
            td_field_int(f, f->f_b, rec, len, &s.cpu_id) != 0)
            return TREAD_FTRACE_MALFORMED;
        /* state is a u32 in the kernel: 4294967295 = leaving idle */
        s.state = f->fields[f->f_a].size == 4 ? (uint32_t)st : (uint64_t)st;
        return f->map == TD_MAP_CPU_FREQ ? tread__ftrace_map_cpu_frequency(ev, c, &s)
                                         : tread__ftrace_map_cpu_idle(ev, c, &s);
    }
    case TD_MAP_NEWTASK: {
        tread_ftrace_task_newtask t;
        memset(&t, 0, sizeof t);
        if (td_field_int(f, f->f_pid, rec, len, &t.pid) != 0 ||
            (f->f_a >= 0 && td_field_str(f, f->f_a, rec, len, &t.comm) != 0))
            return TREAD_FTRACE_MALFORMED;
        return tread__ftrace_map_task_newtask(ev, c, &t);
    }
    case TD_MAP_RENAME: {
        tread_ftrace_task_rename t;
        memset(&t, 0, sizeof t);
        if (td_field_int(f, f->f_pid, rec, len, &t.pid) != 0 ||
            td_field_str(f, f->f_b, rec, len, &t.newcomm) != 0)
            return TREAD_FTRACE_MALFORMED;
        if (f->f_a >= 0)
            (void)td_field_str(f, f->f_a, rec, len, &t.oldcomm);
        return tread__ftrace_map_task_rename(ev, c, &t);
    }
    case TD_MAP_PRINT: {
        tread_str s;
        if (td_field_str(f, f->f_a, rec, len, &s) != 0)
            return TREAD_FTRACE_MALFORMED;
        int m = tread__ftrace_map_print(ev, c, s.ptr, s.len);
        if (m == TREAD_FTRACE_NOT_ATRACE)
            d->c.marker_text++;
        else if (m == TREAD_FTRACE_MALFORMED)
            d->c.atrace_malformed++;
        return m;
    }
    default:
        return TREAD_FTRACE_NONE;
    }
}

int td_emit_record(td_dec *d, uint32_t cpu, const td_record *r, uint64_t off)
{
    d->c.records++;
    if (r->len < 2) {
        d->c.bad_records++;
        tread__warn(d->p, TREAD_WARN_BAD_RECORD, off, "cpu %u: a record of %zu bytes", cpu, r->len);
        return 0;
    }
    uint32_t id = td_u16(d->be, r->data);
    const td_format *f = td_formats_get(&d->formats, id);
    if (!f) {
        d->c.unknown_ids++;
        tread__warn(d->p, TREAD_WARN_UNKNOWN_RECORD, off,
                    "cpu %u: an event of type %u, which no format describes: skipped", cpu, id);
        return 0;
    }
    tread_ftrace_common c;
    tread_event ev;
    memset(&c, 0, sizeof c);
    c.ts = to_ns(d, r->ts);
    c.cpu = cpu;
    c.flags = TREAD_FTRACE_HAS_CPU;
    if (f->f_cpid >= 0)
        (void)td_field_int(f, f->f_cpid, r->data, r->len, &c.tid);
    c.args.data = r->data;
    c.args.len = r->len;
    c.args.encoding = TREAD_ARGS_TRACEDAT;
    c.args.ctx = f;
    c.offset = off;
    tread_str bare = {f->name, f->name_len};
    int m = TREAD_FTRACE_NONE;
    if (f->map != TD_MAP_GENERIC) {
        tread__ftrace_event_init(&ev, &c, bare);
        m = map_known(d, f, &ev, &c, r);
        if (m == TREAD_FTRACE_MALFORMED) {
            tread__warn(d->p, TREAD_WARN_BAD_FIELD, off,
                        "%s: a field the event needs lies outside the record or does not "
                        "decode: delivered as a generic event",
                        f->full);
        }
    }
    if (m == TREAD_FTRACE_MAPPED) {
        d->c.events_mapped++;
    } else {
        /* print text that is not atrace keeps its bare name, as the text has it */
        tread_str full = {f->full, f->full_len};
        tread__ftrace_event_init(&ev, &c, f->map == TD_MAP_PRINT ? bare : full);
        tread__ftrace_map_generic(&ev, &c);
        d->c.events_generic++;
    }
    d->last_ts = (uint64_t)c.ts;
    return tread__emit_inline(d->p, &ev);
}

void td_page_lost(td_dec *d, td_cpu *c, uint64_t off)
{
    d->c.lost_pages++;
    c->lost_pages++;
    if (c->pg.lost) {
        d->c.lost_events += c->pg.lost;
        c->lost_events += c->pg.lost;
        tread__warn(d->p, TREAD_WARN_DATA_LOSS, off, "cpu %u lost %llu events", c->cpu,
                    (unsigned long long)c->pg.lost);
    } else {
        tread__warn(d->p, TREAD_WARN_DATA_LOSS, off,
                    "cpu %u lost events before this page (how many was not stored)", c->cpu);
    }
}
