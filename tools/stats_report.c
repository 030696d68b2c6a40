/* stats_report: see stats_report.h. */
#include "stats_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "json_write.h"
#include "stats_rank.h"

/* ---- text ---------------------------------------------------------------- */

/* Names go to a terminal: control characters would garble it. */
static void write_text_name(out_buf *o, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        out_buf_putc(o, c < 0x20 || c == 0x7f ? '?' : (char)c);
    }
}

static void write_size(out_buf *o, uint64_t bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    out_buf_printf(o, "%" PRIu64, bytes);
    if (bytes < 1024)
        return;
    double v = (double)bytes / 1024.0;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        u++;
    }
    out_buf_printf(o, " (%.1f %s)", v, units[u]);
}

/* ns in the largest unit that keeps the number at 1 or more. */
static void format_duration(char *buf, size_t size, int64_t ns)
{
    double v = (double)ns;
    if (v < 0)
        v = -v;
    if (v >= 1e9)
        snprintf(buf, size, "%.3f s", (double)ns / 1e9);
    else if (v >= 1e6)
        snprintf(buf, size, "%.3f ms", (double)ns / 1e6);
    else if (v >= 1e3)
        snprintf(buf, size, "%.3f us", (double)ns / 1e3);
    else
        snprintf(buf, size, "%" PRId64 " ns", ns);
}

static void text_header(out_buf *o, const stats_report *r)
{
    const tread_stats *st = r->st;
    out_buf_puts(o, "file:           ");
    write_text_name(o, r->path, strlen(r->path));
    if (r->in->failed)
        out_buf_printf(o, "\nPARTIAL:        reading stopped at an error at byte %" PRIu64
                          ":\n                this report covers the input before it only",
                       r->in->error_offset);
    out_buf_printf(o, "\nformat:         %s\n", tread_format_name(st->format));
    out_buf_printf(o, "compression:    %s\n",
                   tread_compression_name(st->compression));
    out_buf_puts(o, "bytes in:       ");
    write_size(o, st->bytes_in);
    out_buf_puts(o, "\nbytes decoded:  ");
    write_size(o, st->bytes_decoded);
    out_buf_printf(o, "\nrecords:        %" PRIu64 "\n", st->records);
    out_buf_printf(o, "events:         %" PRIu64 "\n", st->events);
    for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++)
        if (st->events_by_kind[k])
            out_buf_printf(o, "  %-22s %" PRIu64 "\n",
                           tread_event_kind_name((tread_event_kind)k),
                           st->events_by_kind[k]);
}

static void text_body(out_buf *o, const stats_report *r)
{
    const stats_collector *c = r->c;
    out_buf_puts(o, "time range:     ");
    if (c->has_time) {
        char span[64];
        /* Saturating: the ends may be far apart in a damaged trace. */
        int64_t d = c->min_ts < 0 && c->max_end > INT64_MAX + c->min_ts
                        ? INT64_MAX : c->max_end - c->min_ts;
        format_duration(span, sizeof span, d);
        out_buf_printf(o, "%" PRId64 " .. %" PRId64 " ns (span %s)\n",
                       c->min_ts, c->max_end, span);
    } else {
        out_buf_puts(o, "none (no timed events)\n");
    }
    out_buf_printf(o, "processes:      %" PRIu32 "%s\n", c->processes.n_used,
                   c->processes.capped ? " (table full: more not counted)"
                                       : "");
    out_buf_printf(o, "threads:        %" PRIu32 "%s\n", c->threads.n_seen,
                   c->threads.capped ? " (table full: more not counted)"
                                     : "");
    out_buf_printf(o, "names:          %" PRIu32 " distinct",
                   name_table_count(&c->names));
    if (c->names.capped)
        out_buf_printf(o, " (table full: %" PRIu64
                          " more events counted as (other))",
                       c->names.entries[NAME_OTHER].count);
    out_buf_printf(o, "\nslices (B/E):   %" PRIu64 " matched, %" PRIu64
                      " unmatched E, %" PRIu64 " unclosed B, %" PRIu64
                      " past depth limit, %" PRIu64 " untracked\n",
                   c->slices_matched, c->unmatched_end, c->unclosed_begin,
                   c->depth_overflow, c->untracked);
    out_buf_printf(o, "warnings:       %" PRIu64 "\n", r->st->warnings);
    for (int k = 0; k < TREAD_WARN_KIND_COUNT_; k++)
        if (r->st->warnings_by_kind[k])
            out_buf_printf(o, "  %-22s %" PRIu64 "\n",
                           tread_warning_name((tread_warning_kind)k),
                           r->st->warnings_by_kind[k]);
    if (r->n_counters) {
        out_buf_printf(o, "%s facts:\n", tread_format_name(r->st->format));
        for (size_t i = 0; i < r->n_counters; i++)
            out_buf_printf(o, "  %-38s %" PRIu64 "\n", r->counters[i].name,
                           r->counters[i].value);
    }
    if (c->n_providers) {
        out_buf_printf(o, "providers:      %" PRIu32 "%s\n", c->n_providers,
                       c->providers_capped ? " (table full: more not counted)" : "");
        for (uint32_t i = 0; i < c->n_providers; i++) {
            const provider_entry *e = &c->providers[i];
            out_buf_printf(o, "  %10" PRIu32 " %12" PRIu64 "  ", e->id, e->events);
            write_text_name(o, e->name, e->name_len);
            out_buf_putc(o, '\n');
        }
    }
}

static void text_names(out_buf *o, const stats_collector *c,
                       const uint32_t *ids, size_t n, int by_duration)
{
    if (n == 0) {
        out_buf_puts(o, "  (none)\n");
        return;
    }
    out_buf_puts(o, by_duration ? "  total duration        count  name\n"
                                : "         count  total duration  name\n");
    for (size_t i = 0; i < n; i++) {
        const name_entry *e = &c->names.entries[ids[i]];
        size_t len;
        const char *s = name_table_str(&c->names, ids[i], &len);
        char dur[64];
        format_duration(dur, sizeof dur, e->total_dur);
        if (by_duration)
            out_buf_printf(o, "  %14s %12" PRIu64 "  ", dur, e->count);
        else
            out_buf_printf(o, "  %12" PRIu64 "  %14s  ", e->count, dur);
        write_text_name(o, s, len);
        out_buf_putc(o, '\n');
    }
}

static void text_processes(out_buf *o, const stats_collector *c,
                           const uint32_t *slots, size_t n)
{
    if (n == 0) {
        out_buf_puts(o, "  (none)\n");
        return;
    }
    out_buf_puts(o, "           pid       events  threads  name\n");
    for (size_t i = 0; i < n; i++) {
        const process_entry *p = &c->processes.slots[slots[i]];
        out_buf_printf(o, "  %12" PRId64 " %12" PRIu64 " %8" PRIu32 "  ",
                       p->pid, p->events, p->threads);
        if (p->has_label)
            write_text_name(o, process_label(&c->processes, p),
                            p->label_len);
        out_buf_putc(o, '\n');
    }
}

int stats_report_text(out_buf *o, const stats_report *r)
{
    stats_ranking rank;
    if (stats_rank(&rank, r->c, r->top) != 0)
        return -1;
    text_header(o, r);
    text_body(o, r);
    out_buf_printf(o, "\ntop %zu names by count:\n", r->top);
    text_names(o, r->c, rank.by_count, rank.n_by_count, 0);
    out_buf_printf(o, "\ntop %zu names by total duration:\n", r->top);
    text_names(o, r->c, rank.by_duration, rank.n_by_duration, 1);
    out_buf_printf(o, "\ntop %zu processes by events:\n", r->top);
    text_processes(o, r->c, rank.processes, rank.n_processes);
    if (r->in->failed) {
        out_buf_printf(o, "\nerror:          %s at byte %" PRIu64 ": ",
                       r->in->error_name, r->in->error_offset);
        write_text_name(o, r->in->error_message,
                        strlen(r->in->error_message));
        out_buf_putc(o, '\n');
    }
    stats_ranking_free(&rank);
    return 0;
}

/* ---- JSON ---------------------------------------------------------------- */

static void key(out_buf *o, const char *k)
{
    json_write_cstring(o, k);
    out_buf_putc(o, ':');
}

static void json_u64_member(out_buf *o, const char *k, uint64_t v)
{
    key(o, k);
    json_write_u64(o, v);
}

static const char *event_kind_name(int k)
{
    return tread_event_kind_name((tread_event_kind)k);
}

static const char *warning_kind_name(int k)
{
    return tread_warning_name((tread_warning_kind)k);
}

/* "NAME":{"kind":count,...}, every kind (zeros too), without a comma
 * after: events and warnings by kind, of one file and of the total. */
static void json_counts(out_buf *o, const char *name, const uint64_t *v, int n,
                        const char *(*kind_name)(int))
{
    key(o, name);
    out_buf_putc(o, '{');
    for (int k = 0; k < n; k++) {
        if (k)
            out_buf_putc(o, ',');
        json_u64_member(o, kind_name(k), v[k]);
    }
    out_buf_putc(o, '}');
}

static void json_names(out_buf *o, const stats_collector *c,
                       const uint32_t *ids, size_t n)
{
    out_buf_putc(o, '[');
    for (size_t i = 0; i < n; i++) {
        const name_entry *e = &c->names.entries[ids[i]];
        size_t len;
        const char *s = name_table_str(&c->names, ids[i], &len);
        if (i)
            out_buf_putc(o, ',');
        out_buf_puts(o, "{\"name\":");
        json_write_string(o, s, len);
        out_buf_puts(o, ",\"count\":");
        json_write_u64(o, e->count);
        out_buf_puts(o, ",\"total_dur_ns\":");
        json_write_i64(o, e->total_dur);
        if (ids[i] == NAME_OTHER)
            out_buf_puts(o, ",\"other\":true");
        out_buf_putc(o, '}');
    }
    out_buf_putc(o, ']');
}

static void json_processes(out_buf *o, const stats_collector *c,
                           const uint32_t *slots, size_t n)
{
    out_buf_putc(o, '[');
    for (size_t i = 0; i < n; i++) {
        const process_entry *p = &c->processes.slots[slots[i]];
        if (i)
            out_buf_putc(o, ',');
        out_buf_puts(o, "{\"pid\":");
        json_write_i64(o, p->pid);
        out_buf_puts(o, ",\"name\":");
        if (p->has_label)
            json_write_string(o, process_label(&c->processes, p),
                              p->label_len);
        else
            out_buf_puts(o, "null");
        out_buf_puts(o, ",\"events\":");
        json_write_u64(o, p->events);
        out_buf_puts(o, ",\"threads\":");
        json_write_u64(o, p->threads);
        out_buf_putc(o, '}');
    }
    out_buf_putc(o, ']');
}

static void json_header(out_buf *o, const stats_report *r)
{
    const tread_stats *st = r->st;
    out_buf_putc(o, '{');
    key(o, "file");
    json_write_cstring(o, r->path);
    out_buf_putc(o, ',');
    /* partial: the figures cover the input before "error" only */
    out_buf_puts(o, r->in->failed ? "\"partial\":true," : "\"partial\":false,");
    key(o, "format");
    json_write_cstring(o, tread_format_name(st->format));
    out_buf_putc(o, ',');
    key(o, "compression");
    json_write_cstring(o, tread_compression_name(st->compression));
    out_buf_putc(o, ',');
    json_u64_member(o, "bytes_in", st->bytes_in);
    out_buf_putc(o, ',');
    json_u64_member(o, "bytes_decoded", st->bytes_decoded);
    out_buf_putc(o, ',');
    json_u64_member(o, "records", st->records);
    out_buf_putc(o, ',');
    json_u64_member(o, "events", st->events);
    out_buf_putc(o, ',');
    json_counts(o, "events_by_kind", st->events_by_kind, TREAD_EVENT_KIND_COUNT_,
                event_kind_name);
    out_buf_puts(o, ",");
}

static void json_body(out_buf *o, const stats_report *r)
{
    const stats_collector *c = r->c;
    key(o, "time_range");
    if (c->has_time) {
        out_buf_puts(o, "{\"min_ts_ns\":");
        json_write_i64(o, c->min_ts);
        out_buf_puts(o, ",\"max_end_ns\":");
        json_write_i64(o, c->max_end);
        out_buf_puts(o, "},");
    } else {
        out_buf_puts(o, "null,");
    }
    json_u64_member(o, "processes", c->processes.n_used);
    out_buf_puts(o, c->processes.capped ? ",\"processes_capped\":true,"
                                        : ",\"processes_capped\":false,");
    json_u64_member(o, "threads", c->threads.n_seen);
    out_buf_puts(o, c->threads.capped ? ",\"threads_capped\":true,"
                                      : ",\"threads_capped\":false,");
    key(o, "names");
    out_buf_putc(o, '{');
    json_u64_member(o, "distinct", name_table_count(&c->names));
    out_buf_puts(o, c->names.capped ? ",\"capped\":true,"
                                    : ",\"capped\":false,");
    json_u64_member(o, "other_events", c->names.entries[NAME_OTHER].count);
    out_buf_puts(o, "},");
    key(o, "slices");
    out_buf_putc(o, '{');
    json_u64_member(o, "matched", c->slices_matched);
    out_buf_putc(o, ',');
    json_u64_member(o, "unmatched_end", c->unmatched_end);
    out_buf_putc(o, ',');
    json_u64_member(o, "unclosed_begin", c->unclosed_begin);
    out_buf_putc(o, ',');
    json_u64_member(o, "depth_overflow", c->depth_overflow);
    out_buf_putc(o, ',');
    json_u64_member(o, "untracked", c->untracked);
    out_buf_puts(o, "},");
    json_u64_member(o, "warnings", r->st->warnings);
    out_buf_putc(o, ',');
    json_counts(o, "warnings_by_kind", r->st->warnings_by_kind, TREAD_WARN_KIND_COUNT_,
                warning_kind_name);
    out_buf_puts(o, ",");
    key(o, "format_counters");
    out_buf_putc(o, '{');
    for (size_t i = 0; i < r->n_counters; i++) {
        if (i)
            out_buf_putc(o, ',');
        json_u64_member(o, r->counters[i].name, r->counters[i].value);
    }
    out_buf_puts(o, "},");
    key(o, "providers");
    out_buf_putc(o, '[');
    for (uint32_t i = 0; i < c->n_providers; i++) {
        const provider_entry *e = &c->providers[i];
        if (i)
            out_buf_putc(o, ',');
        out_buf_puts(o, "{\"id\":");
        json_write_u64(o, e->id);
        out_buf_puts(o, ",\"name\":");
        if (e->name_len)
            json_write_string(o, e->name, e->name_len);
        else
            out_buf_puts(o, "null");
        out_buf_puts(o, ",\"events\":");
        json_write_u64(o, e->events);
        out_buf_putc(o, '}');
    }
    out_buf_puts(o, "],");
}

static void json_error(out_buf *o, const cli_input *in)
{
    if (!in->failed || !in->error_name) {
        out_buf_puts(o, "null");
        return;
    }
    out_buf_puts(o, "{\"name\":");
    json_write_cstring(o, in->error_name);
    out_buf_puts(o, ",\"offset\":");
    json_write_u64(o, in->error_offset);
    out_buf_puts(o, ",\"message\":");
    json_write_cstring(o, in->error_message);
    out_buf_putc(o, '}');
}

int stats_report_json(out_buf *o, const stats_report *r)
{
    stats_ranking rank;
    if (stats_rank(&rank, r->c, r->top) != 0)
        return -1;
    json_header(o, r);
    json_body(o, r);
    key(o, "top_by_count");
    json_names(o, r->c, rank.by_count, rank.n_by_count);
    out_buf_putc(o, ',');
    key(o, "top_by_duration");
    json_names(o, r->c, rank.by_duration, rank.n_by_duration);
    out_buf_putc(o, ',');
    key(o, "top_processes");
    json_processes(o, r->c, rank.processes, rank.n_processes);
    out_buf_putc(o, ',');
    key(o, "error");
    json_error(o, r->in);
    out_buf_puts(o, "}\n");
    stats_ranking_free(&rank);
    return 0;
}

void stats_report_json_error(out_buf *o, const char *path, const cli_input *in)
{
    out_buf_putc(o, '{');
    key(o, "file");
    json_write_cstring(o, path);
    out_buf_putc(o, ',');
    key(o, "error");
    json_error(o, in);
    out_buf_puts(o, "}\n");
}

/* ---- several files ------------------------------------------------------- */

void stats_total_add(stats_total *t, const tread_stats *st, int failed)
{
    t->files++;
    t->failed += failed != 0;
    t->bytes_in += st->bytes_in;
    t->bytes_decoded += st->bytes_decoded;
    t->records += st->records;
    t->events += st->events;
    t->warnings += st->warnings;
    for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++)
        t->events_by_kind[k] += st->events_by_kind[k];
    for (int k = 0; k < TREAD_WARN_KIND_COUNT_; k++)
        t->warnings_by_kind[k] += st->warnings_by_kind[k];
}

void stats_report_total_text(out_buf *o, const stats_total *t)
{
    out_buf_printf(o, "total:          %" PRIu64 " files, %" PRIu64 " with an error\n",
                   t->files, t->failed);
    out_buf_puts(o, "bytes in:       ");
    write_size(o, t->bytes_in);
    out_buf_puts(o, "\nbytes decoded:  ");
    write_size(o, t->bytes_decoded);
    out_buf_printf(o, "\nrecords:        %" PRIu64 "\n", t->records);
    out_buf_printf(o, "events:         %" PRIu64 "\n", t->events);
    for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++)
        if (t->events_by_kind[k])
            out_buf_printf(o, "  %-22s %" PRIu64 "\n",
                           tread_event_kind_name((tread_event_kind)k), t->events_by_kind[k]);
    out_buf_printf(o, "warnings:       %" PRIu64 "\n", t->warnings);
    for (int k = 0; k < TREAD_WARN_KIND_COUNT_; k++)
        if (t->warnings_by_kind[k])
            out_buf_printf(o, "  %-22s %" PRIu64 "\n",
                           tread_warning_name((tread_warning_kind)k), t->warnings_by_kind[k]);
}

void stats_report_total_json(out_buf *o, const stats_total *t)
{
    out_buf_puts(o, "{\"total\":{");
    json_u64_member(o, "files", t->files);
    out_buf_putc(o, ',');
    json_u64_member(o, "failed", t->failed);
    out_buf_putc(o, ',');
    json_u64_member(o, "bytes_in", t->bytes_in);
    out_buf_putc(o, ',');
    json_u64_member(o, "bytes_decoded", t->bytes_decoded);
    out_buf_putc(o, ',');
    json_u64_member(o, "records", t->records);
    out_buf_putc(o, ',');
    json_u64_member(o, "events", t->events);
    out_buf_putc(o, ',');
    json_counts(o, "events_by_kind", t->events_by_kind, TREAD_EVENT_KIND_COUNT_,
                event_kind_name);
    out_buf_puts(o, ",");
    json_u64_member(o, "warnings", t->warnings);
    out_buf_putc(o, ',');
    json_counts(o, "warnings_by_kind", t->warnings_by_kind, TREAD_WARN_KIND_COUNT_,
                warning_kind_name);
    out_buf_puts(o, "}}\n");
}
