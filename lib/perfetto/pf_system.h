/*
 * Perfetto system data sources into the event model: ftrace bundles
 * (pf_ftrace.c, through the ftrace mapping shared with the ftrace text
 * decoder, lib/ftrace/ftrace_map.h), and SysStats, ProcessStats,
 * ProcessTree parents, AndroidLogPacket, BatteryCounters and PowerRails
 * (pf_system.c). doc/formats/perfetto.md, "System data sources", has the
 * mapping field by field.
 *
 * The decoder calls pf_system_packet for a TracePacket whose data is one of
 * the fields pf_system_wants names; events are queued like every other
 * Perfetto event (pf_queue_event), so pause and resume need nothing here.
 */
#ifndef TREAD_PERFETTO_PF_SYSTEM_H
#define TREAD_PERFETTO_PF_SYSTEM_H

#include "perfetto/pf_context.h"
#include "perfetto/pf_seq.h"
#include "perfetto/pf_queue.h"

/* TracePacket fields read here. */
enum {
    PF_PKT_FTRACE_EVENTS = 1,
    PF_PKT_SYS_STATS = 7,
    PF_PKT_PROCESS_STATS = 9,
    PF_PKT_BATTERY = 38,
    PF_PKT_ANDROID_LOG = 39,
    PF_PKT_POWER_RAILS = 40
};

/* Named bounds of the state kept here (doc/formats/perfetto.md, Limits). */
#define PF_SYS_MAX_CPUS 4096        /* cpus whose last switched-in thread is
                                       kept for compact_sched */
#define PF_SYS_MAX_RAILS 1024       /* power rail descriptors kept */
#define PF_SYS_NAME_BLOCK 16384     /* counter-name arena block size */

/* 1 when process_packet should hand this TracePacket field to
 * pf_system_packet. */
static inline int pf_system_wants(uint32_t num)
{
    return num == PF_PKT_FTRACE_EVENTS || num == PF_PKT_SYS_STATS ||
           num == PF_PKT_PROCESS_STATS || num == PF_PKT_BATTERY ||
           num == PF_PKT_ANDROID_LOG || num == PF_PKT_POWER_RAILS;
}

/* The events of one such field (num, its message bytes). s is the packet's
 * sequence, base its common fields (ts from TracePacket.timestamp). 0, or
 * -1 after tread__fail. */
int pf_system_packet(pf_decoder *d, pf_seq *s, uint32_t num, const unsigned char *m,
                     size_t len, const pf_base *base);

/* A TrackEvent's log_message (m, len): a LOG event after the TrackEvent's
 * own event, the queue item at index main (same time, thread and track),
 * name = the interned body, cat = the interned source file, value = prio.
 * 0, or -1 after tread__fail. */
int pf_log_message(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len, size_t main,
                   const pf_base *base);

/* Frees what pf_system_packet kept (d->sys). */
void pf_system_free(pf_decoder *d);

/* Appends the format counters of the system data sources. */
size_t pf_system_counters(const pf_decoder *d, tread_counter *out, size_t max, size_t n);

/* ---- shared by pf_system.c and pf_ftrace.c ------------------------------ */

typedef struct pf_sys_name {
    uint64_t hash;
    const char *s;             /* NUL-terminated, in the arena */
    size_t len;
} pf_sys_name;

typedef struct pf_rail {
    uint32_t index;
    const char *name;          /* "power.<rail_name>_uws", in the arena */
    size_t len;
} pf_rail;

typedef struct pf_sys {
    /* counter names built from the trace (meminfo keys, rail names, ...),
     * kept once each in blocks that never move: events point at them */
    pf_sys_name *names;
    size_t names_size, names_used;
    pf_block *blocks;
    /* PowerRails descriptors: index -> counter name */
    pf_rail *rails;
    size_t rails_used;
    /* compact_sched: the thread each cpu last switched in (0: unknown) */
    int64_t *cpu_last;
    unsigned char *cpu_known;
    size_t ncpus;
    /* synthesized SchedSwitch/SchedWaking messages of compact_sched events
     * (their args), rebuilt per bundle; reserved once per bundle so that
     * queued events can point into it */
    tread_buf synth;
    /* message types of the schema, found once */
    int types_found;
    const tread_perfetto_msgtype *t_switch, *t_waking, *t_wakeup, *t_wakeup_new;
    const tread_perfetto_msgtype *t_cpufreq, *t_cpuidle, *t_newtask, *t_rename, *t_print;
    const tread_perfetto_msgtype *t_log_event, *t_ftrace_event, *t_log_message;
    /* generic ftrace events: FtraceEvent field number -> its name (the
     * schema's, else "ftrace_event_<n>" in the arena) and message type,
     * direct-mapped (num 0: empty) */
    struct pf_gen_name {
        uint32_t num;
        const char *name;
        size_t len;
        const tread_perfetto_msgtype *type;
    } gen_names[32];
    /* counters */
    uint64_t n_bundles, n_ftrace_events, n_compact_switch, n_compact_waking;
    uint64_t n_generic, n_lost_bundles, n_sys_stats, n_process_stats, n_logs;
    uint64_t n_battery, n_power_rails, n_bad, n_ftrace_clock_raw, n_unknown_rail;
} pf_sys;

/* d->sys, created on first use; NULL after tread__fail. */
pf_sys *pf_sys_get(pf_decoder *d, uint64_t off);

/* A counter name kept in the arena: s (len bytes) NUL-terminated there,
 * the same pointer for the same text. NULL after tread__fail. */
const char *pf_sys_intern(pf_decoder *d, const char *s, size_t len, uint64_t off);

/* The message types the events' args use (TREAD_ARGS_PROTO), found once. */
void pf_sys_find_types(pf_sys *y);

/* A queued event's timestamp: value on clock, moved to the trace clock
 * (TREAD_HAS_TS), or kept raw with a counted warning (TREAD_HAS_RAW_TS). */
void pf_sys_set_ts(pf_decoder *d, pf_seq *s, tread_event *ev, uint32_t clock, int64_t value);

/* A counter event: name = series = name (NUL-terminated, static or in the
 * arena), value as an integer or a double. */
pf_qitem *pf_sys_counter(pf_decoder *d, const pf_base *base, const char *name, int is_int,
                         int64_t iv, double dv);

/* pf_ftrace.c: one FtraceEventBundle. */
int pf_ftrace_bundle(pf_decoder *d, pf_seq *s, const unsigned char *m, size_t len,
                     const pf_base *base);

#endif
