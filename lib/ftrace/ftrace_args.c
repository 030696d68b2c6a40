/* TREAD_ARGS_FTRACE: an ftrace event payload read lazily as key=value
 * fields (ftrace_kv.h); a payload of another shape is one STRING "text".
 * A function tracer line's args are its caller: one STRING "parent".
 * trace-cmd report's sched payloads (ftrace_report.h) are read again at
 * each step and given under the kernel's field names. */
#include <string.h>
#include "core/decoder.h"
#include "ftrace/ftrace_args.h"
#include "ftrace/ftrace_kv.h"
#include "ftrace/ftrace_report.h"

const int tread__ftrace_ctx_function = 1;
const int tread__ftrace_ctx_report_switch = 2;
const int tread__ftrace_ctx_report_wakeup = 3;

enum { M_FIELDS = 0, M_TEXT, M_PARENT, M_DONE, M_SWITCH, M_WAKEUP };

static void fa_init(tread_args_iter *it, const tread_args *a)
{
    it->p = a->data;
    it->end = a->data;
    if (!a->data || a->len == 0) {
        it->state[0] = M_DONE; /* (no pointer arithmetic on NULL) */
        return;
    }
    const char *s = (const char *)a->data, *end = s + a->len;
    it->end = a->data + a->len;
    it->state[1] = 0;
    if (a->ctx == &tread__ftrace_ctx_function)
        it->state[0] = M_PARENT;
    else if (a->ctx == &tread__ftrace_ctx_report_switch)
        it->state[0] = M_SWITCH;
    else if (a->ctx == &tread__ftrace_ctx_report_wakeup)
        it->state[0] = M_WAKEUP;
    else
        it->state[0] = ftrace_kv_shape(s, end) ? M_FIELDS : M_TEXT;
}

static void put_string(tread_arg *out, const char *key, size_t key_len,
                       const char *v, size_t n)
{
    memset(out, 0, sizeof *out);
    out->type = TREAD_ARG_STRING;
    out->key.ptr = key;
    out->key.len = key_len;
    out->v.s.ptr = v;
    out->v.s.len = n;
}

static void put_num(tread_arg *out, const char *key, const ftrace_report_num *n)
{
    memset(out, 0, sizeof *out);
    out->type = TREAD_ARG_INT;
    out->key.ptr = key;
    out->key.len = strlen(key);
    out->v.i = n->v;
    out->text = n->text;
}

/* Field k (counted in state[1]) of a report payload, skipping absent
 * ones. The decoder parsed the payload before attaching this ctx, so a
 * failed parse here only ends the iteration. */
static int report_next(tread_args_iter *it, tread_arg *out, const char *s, size_t n)
{
    ftrace_report_switch sw;
    ftrace_report_wakeup wk;
    int is_switch = it->state[0] == M_SWITCH;
    if (is_switch ? ftrace_report_parse_switch(s, n, &sw) != 0
                  : ftrace_report_parse_wakeup(s, n, &wk) != 0) {
        it->state[0] = M_DONE;
        return 0;
    }
    for (;;) {
        uint64_t k = it->state[1]++;
        if (is_switch) {
            switch (k) {
            case 0: put_string(out, "prev_comm", 9, sw.prev_comm.ptr, sw.prev_comm.len); return 1;
            case 1: put_num(out, "prev_pid", &sw.prev_pid); return 1;
            case 2: if (!sw.prev_prio.has) continue; put_num(out, "prev_prio", &sw.prev_prio); return 1;
            case 3: if (!sw.has_prev_state) continue;
                    put_string(out, "prev_state", 10, sw.prev_state.ptr, sw.prev_state.len); return 1;
            case 4: put_string(out, "next_comm", 9, sw.next_comm.ptr, sw.next_comm.len); return 1;
            case 5: put_num(out, "next_pid", &sw.next_pid); return 1;
            case 6: if (!sw.next_prio.has) continue; put_num(out, "next_prio", &sw.next_prio); return 1;
            default: break;
            }
        } else {
            switch (k) {
            case 0: put_string(out, "comm", 4, wk.comm.ptr, wk.comm.len); return 1;
            case 1: put_num(out, "pid", &wk.pid); return 1;
            case 2: if (!wk.prio.has) continue; put_num(out, "prio", &wk.prio); return 1;
            case 3: if (!wk.success.has) continue; put_num(out, "success", &wk.success); return 1;
            case 4: if (!wk.target_cpu.has) continue; put_num(out, "target_cpu", &wk.target_cpu); return 1;
            default: break;
            }
        }
        it->state[0] = M_DONE;
        return 0;
    }
}

static int fa_next(tread_args_iter *it, tread_arg *out)
{
    const char *s = (const char *)it->p, *end = (const char *)it->end;
    switch (it->state[0]) {
    case M_FIELDS: {
        ftrace_kv kv;
        if (!ftrace_kv_next(&s, end, &kv)) {
            it->state[0] = M_DONE;
            return 0;
        }
        it->p = (const unsigned char *)s;
        int64_t i;
        if (kv.val_len && ftrace_parse_int(kv.val, kv.val_len, &i) == 0) {
            memset(out, 0, sizeof *out);
            out->type = TREAD_ARG_INT;
            out->key.ptr = kv.key;
            out->key.len = kv.key_len;
            out->v.i = i;
            out->text.ptr = kv.val;
            out->text.len = kv.val_len;
        } else {
            put_string(out, kv.key, kv.key_len, kv.val, kv.val_len);
        }
        return 1;
    }
    case M_TEXT:
        it->state[0] = M_DONE;
        put_string(out, "text", 4, s, (size_t)(end - s));
        return 1;
    case M_PARENT:
        it->state[0] = M_DONE;
        put_string(out, "parent", 6, s, (size_t)(end - s));
        return 1;
    case M_SWITCH:
    case M_WAKEUP:
        return report_next(it, out, s, (size_t)(end - s));
    default:
        return 0;
    }
}

static void fa_skip(tread_args_iter *it)
{
    (void)it; /* flat: no containers */
}

const tread_args_codec tread__ftrace_args_codec = {fa_init, fa_next, fa_skip};
