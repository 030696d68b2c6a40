/*
 * The ftrace event mapping, shared by the ftrace text decoder (lib/ftrace/)
 * and the Perfetto FtraceEventBundle decoder (lib/perfetto/pf_ftrace.c).
 *
 * Inputs are TYPED (numbers already parsed, strings as (ptr,len)), so both
 * callers use it the same way:
 *
 *   tread_ftrace_common c = {...};         // ts, cpu, task, args, offset
 *   tread_event ev;
 *   tread__ftrace_event_init(&ev, &c, name);
 *   if (tread__ftrace_map_sched_switch(&ev, &c, &sw) == TREAD_FTRACE_MAPPED)
 *       stop = tread__emit_inline(p, &ev);
 *
 * Every map function fills AT MOST ONE event, so a caller's pause/resume
 * needs no state of its own here. Nothing here allocates or keeps state:
 * strings in the event point at the caller's strings (the event name, the
 * print text, the comms), and the args are the caller's (c->args: its own
 * lazy encoding of the event's fields, TREAD_ARGS_FTRACE for the text
 * decoder, the protobuf's for Perfetto), attached unchanged.
 *
 * How each maps (doc/formats/ftrace.md has the full table):
 *
 *   common        ts (ns, TREAD_HAS_TS), cpu (TREAD_HAS_CPU), tid = the
 *                 task (ftrace "pid", TREAD_HAS_TID), pid = its tgid when
 *                 known (TREAD_HAS_PID; else no pid), cat "ftrace",
 *                 name = the event name, offset, args = c->args.
 *   sched_switch  TREAD_EVENT_CONTEXT_SWITCH on the cpu; tid = prev_pid (the
 *                 thread switched out, as FXT does); the thread switched in
 *                 is in the args (next_pid, next_comm, next_prio; both
 *                 callers use the kernel's field names as arg keys).
 *   sched_wakeup, sched_waking, sched_wakeup_new
 *                 TREAD_EVENT_WAKEUP; tid = the woken thread (pid field),
 *                 cpu = the cpu the event was recorded on; target_cpu in
 *                 the args.
 *   cpu_frequency TREAD_EVENT_COUNTER name "cpufreq", series "cpufreq",
 *                 cpu = cpu_id (TREAD_HAS_CPU), value = state (kHz,
 *                 TREAD_VALUE_IS_INT); no pid/tid: a counter per cpu, as
 *                 trace_processor's "cpufreq" track with its cpu.
 *   cpu_idle      the same, name/series "cpuidle"; state kept as given
 *                 (4294967295 = leaving idle, as trace_processor stores it).
 *   task_newtask  TREAD_EVENT_METADATA TREAD_META_THREAD_NAME: tid = the new
 *                 pid, meta_str = comm.
 *   task_rename   the same with tid = pid, meta_str = newcomm.
 *   print / tracing_mark_write / "0" (trace_marker writes): the atrace
 *                 payload (below); text that is not atrace is a generic
 *                 event (TREAD_FTRACE_NOT_ATRACE: the caller maps it with
 *                 tread__ftrace_map_generic).
 *   anything else tread__ftrace_map_generic: TREAD_EVENT_INSTANT, thread
 *                 scope, name = event name, cat "ftrace", args = c->args.
 *
 * atrace payloads (the text written to trace_marker; trailing "\n", NUL
 * bytes and a literal two-character "\n" are ignored):
 *
 *   B|tgid|name[|args[|category]]  TREAD_EVENT_SLICE_BEGIN on the thread:
 *                 pid = tgid, tid = the task, name = field 3 (catapult's
 *                 split; trace_processor takes the whole rest as the name),
 *                 cat = field 5 when given. An empty name is kept empty.
 *   E[|tgid[|args]]  TREAD_EVENT_SLICE_END on the thread.
 *   C|tgid|name|value[|category]  TREAD_EVENT_COUNTER: pid = tgid (a
 *                 process counter, no tid), name = series = the name, value
 *                 (int64 with TREAD_VALUE_IS_INT, else a decimal number;
 *                 anything else is TREAD_FTRACE_MALFORMED).
 *   S|tgid|name|cookie / F|tgid|name|cookie  TREAD_EVENT_ASYNC_BEGIN / END:
 *                 pid = tgid, name, id = cookie text, id_num = cookie
 *                 (TREAD_HAS_ID | TREAD_HAS_ID_NUM | TREAD_ID_LOCAL): async
 *                 slices are matched by (pid, name, cookie).
 *   I|tgid|name   TREAD_EVENT_INSTANT, process scope, pid = tgid.
 *   N|tgid|track|name  TREAD_EVENT_INSTANT, process scope, on the named
 *                 track: id_scope = track.
 *   G|tgid|track|name|cookie  TREAD_EVENT_ASYNC_BEGIN on the named track
 *                 (id_scope = track), id = cookie.
 *   H|tgid|track|[name|]cookie  TREAD_EVENT_ASYNC_END likewise.
 *   trace_event_clock_sync: parent_ts=S / realtime_ts=MS / name=ID
 *                 TREAD_EVENT_CLOCK_SYNC, name "trace_event_clock_sync",
 *                 series = the key, value = the number (when numeric).
 *   Every atrace event has phase = the letter (0 for clock sync) and
 *   cat "atrace" unless a category field says otherwise.
 */
#ifndef TREAD_FTRACE_MAP_H
#define TREAD_FTRACE_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <tread.h>

/* What a map function did. */
enum {
    TREAD_FTRACE_MAPPED = 1,     /* *ev is ready: emit it */
    TREAD_FTRACE_NONE = 0,       /* nothing to emit */
    TREAD_FTRACE_NOT_ATRACE = -1,/* print text is not atrace: map generic */
    TREAD_FTRACE_MALFORMED = -2  /* atrace-shaped but unusable: the caller
                                    warns (TREAD_WARN_BAD_FIELD with the
                                    offset) and maps it generic */
};

/* tread_ftrace_common.flags */
#define TREAD_FTRACE_HAS_TGID (1u << 0) /* tgid is known */
#define TREAD_FTRACE_HAS_CPU  (1u << 1) /* cpu is known */

/* What every ftrace event has. */
typedef struct tread_ftrace_common {
    int64_t ts;          /* nanoseconds */
    int64_t cpu;         /* the cpu whose buffer held the event */
    int64_t tid;         /* the task that was running (ftrace "pid") */
    int64_t tgid;        /* its process, with TREAD_FTRACE_HAS_TGID */
    uint32_t flags;      /* TREAD_FTRACE_HAS_* */
    tread_str comm;      /* the task's comm, when the caller has it */
    tread_args args;     /* the event's fields, the caller's encoding */
    uint64_t offset;     /* byte offset of the event in the input */
} tread_ftrace_common;

/* sched_switch. prev_state: the number (has_prev_state_num) and/or the
 * text ("R+", "S", "D|K"), whatever the source has. */
typedef struct tread_ftrace_sched_switch {
    tread_str prev_comm;
    int64_t prev_pid;
    int64_t prev_prio;
    int64_t prev_state;
    int has_prev_state_num;
    tread_str prev_state_text;
    tread_str next_comm;
    int64_t next_pid;
    int64_t next_prio;
} tread_ftrace_sched_switch;

/* sched_wakeup, sched_waking, sched_wakeup_new. */
typedef struct tread_ftrace_sched_wakeup {
    tread_str comm;
    int64_t pid;
    int64_t prio;
    int64_t target_cpu;  /* -1 when absent */
} tread_ftrace_sched_wakeup;

/* cpu_frequency and cpu_idle: state (kHz / idle state) on cpu_id. */
typedef struct tread_ftrace_cpu_state {
    uint64_t state;
    int64_t cpu_id;
} tread_ftrace_cpu_state;

/* task_newtask. */
typedef struct tread_ftrace_task_newtask {
    int64_t pid;
    tread_str comm;
    uint64_t clone_flags;
} tread_ftrace_task_newtask;

/* task_rename. */
typedef struct tread_ftrace_task_rename {
    int64_t pid;
    tread_str oldcomm;
    tread_str newcomm;
} tread_ftrace_task_rename;

/* A parsed atrace payload (fields point into the text given). */
typedef struct tread_atrace {
    int phase;           /* 'B','E','C','S','F','I','N','G','H'; 0 for
                            trace_event_clock_sync */
    int has_tgid;
    int64_t tgid;
    tread_str name;
    tread_str track;     /* N, G, H */
    tread_str category;  /* B, C: the optional trailing field */
    tread_str args;      /* B, E: the optional "k=v;k=v" field */
    tread_str value;     /* C: the value text; S/F/G/H: the cookie text;
                            clock sync: the number */
    tread_str key;       /* clock sync: parent_ts / realtime_ts / name */
    int64_t num;         /* C: integer value; S/F/G/H: cookie */
    int num_is_int;
    double dnum;         /* C / clock sync: the value as a double */
} tread_atrace;

/* Resets *ev and fills the common fields (see the table above). name is
 * the event name as the source spells it. */
void tread__ftrace_event_init(tread_event *ev, const tread_ftrace_common *c,
                              tread_str name);

int tread__ftrace_map_sched_switch(tread_event *ev, const tread_ftrace_common *c,
                                   const tread_ftrace_sched_switch *s);
int tread__ftrace_map_sched_wakeup(tread_event *ev, const tread_ftrace_common *c,
                                   const tread_ftrace_sched_wakeup *w);
int tread__ftrace_map_cpu_frequency(tread_event *ev, const tread_ftrace_common *c,
                                    const tread_ftrace_cpu_state *f);
int tread__ftrace_map_cpu_idle(tread_event *ev, const tread_ftrace_common *c,
                               const tread_ftrace_cpu_state *f);
int tread__ftrace_map_task_newtask(tread_event *ev, const tread_ftrace_common *c,
                                   const tread_ftrace_task_newtask *t);
int tread__ftrace_map_task_rename(tread_event *ev, const tread_ftrace_common *c,
                                  const tread_ftrace_task_rename *t);

/* Parses an atrace payload. Returns TREAD_FTRACE_MAPPED with *out filled,
 * TREAD_FTRACE_NOT_ATRACE, or TREAD_FTRACE_MALFORMED (a known letter with
 * missing or bad fields). */
int tread__atrace_parse(const char *text, size_t len, tread_atrace *out);

/* Maps a parsed atrace payload onto *ev (initialised by
 * tread__ftrace_event_init). Returns TREAD_FTRACE_MAPPED. Without a
 * category field, ev->cat is a static NUL-terminated "atrace". */
int tread__ftrace_map_atrace(tread_event *ev, const tread_ftrace_common *c,
                             const tread_atrace *a);

/* print / tracing_mark_write / "0": parse and map in one call. Returns
 * TREAD_FTRACE_MAPPED, TREAD_FTRACE_NOT_ATRACE or TREAD_FTRACE_MALFORMED
 * (then *ev is as tread__ftrace_event_init left it). */
int tread__ftrace_map_print(tread_event *ev, const tread_ftrace_common *c,
                            const char *buf, size_t len);

/* Any other event: an instant on the thread, name as given, cat "ftrace".
 * Returns TREAD_FTRACE_MAPPED. */
int tread__ftrace_map_generic(tread_event *ev, const tread_ftrace_common *c);

/* 1 when name is an event name whose payload is a trace_marker write
 * ("print", "tracing_mark_write", "0"). */
int tread__ftrace_is_marker_event(const char *name, size_t len);

#endif
