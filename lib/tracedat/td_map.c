/* One ring-buffer record -> one tread_event, through the ftrace mapping
 * the text and Perfetto readers share (lib/ftrace/ftrace_map.h). Mapped
 * events keep the kernel's bare name (as in the text); every other event
 * is a generic instant named "system:event". */
#include <stdio.h>
#include "core/args.h"
#include "core/decoder.h"
#include "tracedat/td_dec.h"
#include "ftrace/ftrace_map.h"

__extension__ typedef unsigned __int128 td_u128;

extern const tread_args_codec tread__tracedat_args_codec;

static int64_t to_ns(const td_dec *d, uint64_t ts)
{
    if (d->tsc2nsec) {
        td_u128 x = (td_u128)ts * d->tsc_mult;
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

/* An address as report shows it: kallsyms' symbol (with +0xoff for
 * TD_SYM_OFF) or 0x%llx; into d->namebuf when it is not a bare symbol. */
static tread_str sym_str(td_dec *d, uint64_t addr, int with_off)
{
    tread_str s;
    uint64_t base = 0;
    const char *nm = d->ksyms.n ? td_syms_find(&d->ksyms, addr, &base) : NULL;
    if (nm) {
        d->c.syms_resolved++;
        if (!with_off) {
            s.ptr = nm;
            s.len = strlen(nm);
            return s;
        }
    } else {
        d->c.syms_unresolved++;
    }
    int n = td_sym_text(&d->ksyms, addr, with_off, d->namebuf, sizeof d->namebuf);
    s.ptr = d->namebuf;
    s.len = n < 0 ? 0 : (size_t)n >= sizeof d->namebuf ? sizeof d->namebuf - 1 : (size_t)n;
    return s;
}

static int put_key(tread_buf *b, const char *k, size_t n) { return args_put_str(b, TOK_KEY, k, n); }

/* The record's fields as tokens, the symbol fields as their names: what
 * the lazy codec gives, with %ps/%pS fields resolved. 0, or -1. */
static int sym_args(td_dec *d, const td_format *f, const td_record *r, tread_args *out)
{
    tread_args la = {0};
    tread_args_iter it;
    tread_arg a;
    la.data = r->data;
    la.len = r->len;
    la.encoding = TREAD_ARGS_TRACEDAT;
    la.ctx = f;
    memset(&it, 0, sizeof it);
    it.ctx = f;
    tread__tracedat_args_codec.init(&it, &la);
    d->targs.len = 0;
    uint32_t i = 0;
    while (tread__tracedat_args_codec.next(&it, &a)) {
        while (i < f->nfields && (f->fields[i].common || f->fields[i].name != a.key.ptr))
            i++;
        if (put_key(&d->targs, a.key.ptr, a.key.len) != 0)
            return -1;
        int rc;
        if (i < f->nfields && f->fields[i].sym && (a.type == TREAD_ARG_INT || a.type == TREAD_ARG_UINT)) {
            tread_str s = sym_str(d, a.type == TREAD_ARG_INT ? (uint64_t)a.v.i : a.v.u,
                                  f->fields[i].sym == TD_SYM_OFF);
            rc = args_put_str(&d->targs, TOK_STR, s.ptr, s.len);
        } else if (a.type == TREAD_ARG_INT) {
            rc = args_put_u64(&d->targs, TOK_INT, (uint64_t)a.v.i);
        } else if (a.type == TREAD_ARG_UINT) {
            rc = args_put_u64(&d->targs, TOK_UINT, a.v.u);
        } else {
            rc = args_put_str(&d->targs, a.type == TREAD_ARG_STRING ? TOK_STR : TOK_BYTES, a.v.s.ptr,
                              a.v.s.len);
        }
        if (rc != 0)
            return -1;
    }
    out->data = d->targs.data;
    out->len = d->targs.len;
    out->encoding = TREAD_ARGS_TOKENS;
    out->ctx = NULL;
    return 0;
}

/* ftrace:bprint: ip, the format and the text. 0, or -1 (warned). */
static int bprint_args(td_dec *d, const td_format *f, const td_record *r, uint64_t off,
                       tread_args *out)
{
    int64_t ip, fa;
    const unsigned char *buf;
    size_t n;
    const char *why = "a field lies outside the record";
    if (td_field_int(f, f->f_a, r->data, r->len, &ip) != 0 ||
        td_field_int(f, f->f_b, r->data, r->len, &fa) != 0 ||
        td_field_bytes(f, f->f_c, r->data, r->len, &buf, &n) != 0)
        goto bad;
    const char *fmt = d->printk.n ? td_syms_exact(&d->printk, (uint64_t)fa) : NULL;
    if (!fmt) {
        why = d->pk_loc.state == 2 ? "its format's address is not in the printk formats"
                                   : "the file has no printk formats";
        goto bad;
    }
    d->targs.len = 0;
    tread_str s = sym_str(d, (uint64_t)ip, 0);
    size_t flen = strlen(fmt);
    if (put_key(&d->targs, "ip", 2) || args_put_str(&d->targs, TOK_STR, s.ptr, s.len) ||
        put_key(&d->targs, "fmt", 3) || args_put_str(&d->targs, TOK_STR, fmt, flen) ||
        put_key(&d->targs, "buf", 3))
        return -1;
    /* the text is written in place of the token's payload */
    size_t at = d->targs.len;
    if (args_put_str(&d->targs, TOK_STR, "", 0) != 0)
        return -1;
    d->targs.len = at + 5;
    if (td_bprint_format(fmt, flen, buf, n, d->be, d->long_size, &d->ksyms, &d->targs, &why) != 0)
        goto bad;
    uint32_t tl = (uint32_t)(d->targs.len - at - 5);
    memcpy(d->targs.data + at + 1, &tl, 4);
    if (tread_buf_append(&d->targs, "", 1) != 0)
        return -1;
    d->c.bprint_formatted++;
    out->data = d->targs.data;
    out->len = d->targs.len;
    out->encoding = TREAD_ARGS_TOKENS;
    out->ctx = NULL;
    return 0;
bad:
    d->c.bprint_bad++;
    tread__warn(d->p, TREAD_WARN_BAD_FIELD, off,
                "ftrace:bprint: not formatted (%s): its raw arguments are given", why);
    return -1;
}

/* Function tracer events: ftrace:function an instant named by its
 * function, its caller the arg "parent" (as the ftrace text decoder reads
 * "func <-parent"); funcgraph_entry/exit slices begun and ended, named by
 * theirs. 1 when mapped. */
static int map_function(td_dec *d, const td_format *f, tread_event *ev, const td_record *r)
{
    int64_t ip, pip;
    if (td_field_int(f, f->f_a, r->data, r->len, &ip) != 0)
        return 0;
    if (f->map == TD_MAP_FUNCTION) {
        if (td_field_int(f, f->f_b, r->data, r->len, &pip) != 0)
            return 0;
        tread_str ps = sym_str(d, (uint64_t)pip, 0);
        d->targs.len = 0;
        if (put_key(&d->targs, "parent", 6) || args_put_str(&d->targs, TOK_STR, ps.ptr, ps.len))
            return 0;
        ev->name = sym_str(d, (uint64_t)ip, 0);
        ev->args.data = d->targs.data;
        ev->args.len = d->targs.len;
        ev->args.encoding = TREAD_ARGS_TOKENS;
        ev->args.ctx = NULL;
        ev->kind = TREAD_EVENT_INSTANT;
        ev->scope = TREAD_SCOPE_THREAD;
        ev->cat.ptr = "function";
        ev->cat.len = 8;
        d->c.function_events++;
        return 1;
    }
    if (d->ksyms.n && sym_args(d, f, r, &ev->args) != 0)
        return 0;
    ev->name = sym_str(d, (uint64_t)ip, 0);
    ev->cat.ptr = "function_graph";
    ev->cat.len = 14;
    ev->kind = f->map == TD_MAP_GRAPH_ENTRY ? TREAD_EVENT_SLICE_BEGIN : TREAD_EVENT_SLICE_END;
    int64_t ct, rt;
    if (f->map == TD_MAP_GRAPH_EXIT && f->f_b >= 0 && f->f_c >= 0 &&
        td_field_int(f, f->f_b, r->data, r->len, &ct) == 0 &&
        td_field_int(f, f->f_c, r->data, r->len, &rt) == 0 && (uint64_t)rt >= (uint64_t)ct &&
        (uint64_t)rt - (uint64_t)ct <= (uint64_t)INT64_MAX) {
        ev->dur = (int64_t)((uint64_t)rt - (uint64_t)ct);
        ev->flags |= TREAD_HAS_DUR;
    }
    d->c.graph_events++;
    return 1;
}

int td_emit_record(td_dec *d, const td_cpu *cp, const td_record *r, uint64_t off)
{
    uint32_t cpu = cp->cpu;
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
    if ((f->nsym || f->map >= TD_MAP_FUNCTION) && d->ks_loc.state == 1)
        td_syms_load(d, 1);
    if (f->map == TD_MAP_BPRINT && d->pk_loc.state == 1)
        td_syms_load(d, 0);
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
    if (f->map >= TD_MAP_FUNCTION && f->map != TD_MAP_BPRINT) {
        tread__ftrace_event_init(&ev, &c, bare);
        tread__ftrace_map_generic(&ev, &c);
        if (map_function(d, f, &ev, r)) {
            d->c.events_mapped++;
            goto out;
        }
    } else if (f->map != TD_MAP_GENERIC && f->map != TD_MAP_BPRINT) {
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
        if (f->map == TD_MAP_BPRINT && bprint_args(d, f, r, off, &ev.args) == 0)
            goto out;
        if (f->nsym && d->ksyms.n && sym_args(d, f, r, &ev.args) != 0)
            ev.args = c.args;
    }
out:
    if (cp->buffer < d->nbuffers && d->buf_name[cp->buffer][0]) {
        ev.provider_id = 0; /* the name says which; the text has no index */
        ev.provider_name.ptr = d->buf_name[cp->buffer];
        ev.provider_name.len = strlen(d->buf_name[cp->buffer]);
        ev.flags |= TREAD_HAS_PROVIDER;
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
