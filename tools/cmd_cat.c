/* tread cat: every event that passes the filters (event_filter.h) as one
 * NDJSON line on standard output, whole or its --fields; with --packets,
 * every Perfetto TracePacket instead, through the schema's reflective walk
 * (doc/cli-ndjson.md, "tread cat --packets"). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tread/perfetto.h>

#include "cli_input.h"
#include "commands.h"
#include "event_filter.h"
#include "json_write.h"
#include "ndjson_fields.h"
#include "ndjson_writer.h"

typedef struct cat_state {
    out_buf *out;
    ndjson_writer writer;
    const event_filter *filter;
    const ndjson_fields *out_fields; /* NULL: whole lines */
    uint64_t written, limit;     /* limit 0: no --limit */
    int nomem;
    /* --packets: one message's fields at a time, nested ones after their
     * parent's (a stack: each level truncates back to where it began) */
    tread_perfetto_field *fields;
    size_t nfields, cap;
    uint64_t packets, bad_packets;
    const tread_perfetto_msgtype *packet_type;
    diag *diag;
} cat_state;

/* ------------------------------------------------------------------------ */
/* --packets                                                                */

static int collect_field(void *user, const tread_perfetto_field *f)
{
    cat_state *st = user;
    if (f->step == TREAD_PF_MESSAGE_END)
        return 0;
    if (st->nfields == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 256;
        tread_perfetto_field *nf = realloc(st->fields, cap * sizeof *nf);
        if (!nf) {
            st->nomem = 1;
            return 2;
        }
        st->fields = nf;
        st->cap = cap;
    }
    st->fields[st->nfields++] = *f;
    /* a nested message is printed by its own walk, after its parent's
     * fields are all known */
    return f->step == TREAD_PF_MESSAGE_BEGIN ? TREAD_PF_WALK_SKIP : 0;
}

static int ignore_field(void *user, const tread_perfetto_field *f)
{
    (void)user;
    (void)f;
    return 0;
}

static int unknown_of(const tread_perfetto_field *f)
{
    return f->step == TREAD_PF_UNKNOWN ||
           (f->type == TREAD_PF_TYPE_ENUM && f->step == TREAD_PF_FIELD && !f->enum_name);
}

/* Sorts a level's fields by (number, unknown last, wire order). */
static int by_number(const void *a, const void *b)
{
    const tread_perfetto_field *x = a, *y = b;
    if (x->number != y->number)
        return x->number < y->number ? -1 : 1;
    if (unknown_of(x) != unknown_of(y))
        return unknown_of(x) - unknown_of(y);
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int print_message(cat_state *st, const tread_perfetto_msgtype *t,
                         const unsigned char *data, size_t len, int depth);

static int print_value(cat_state *st, const tread_perfetto_field *f, int depth)
{
    out_buf *o = st->out;
    if (f->step == TREAD_PF_MESSAGE_BEGIN)
        return print_message(st, f->msgtype, f->data, f->len, depth + 1);
    if (f->step == TREAD_PF_UNKNOWN) {
        if (f->wire_type == 2 || f->wire_type == 3)
            json_write_base64(o, f->data, f->len);
        else
            json_write_u64(o, f->v.u);
        return 0;
    }
    switch (f->type) {
    case TREAD_PF_TYPE_UINT32: case TREAD_PF_TYPE_FIXED32:
    case TREAD_PF_TYPE_UINT64: case TREAD_PF_TYPE_FIXED64:
        json_write_u64(o, f->v.u);
        break;
    case TREAD_PF_TYPE_FLOAT: case TREAD_PF_TYPE_DOUBLE:
        json_write_double(o, f->v.d, NULL, 0);
        break;
    case TREAD_PF_TYPE_BOOL:
        out_buf_puts(o, f->v.b ? "true" : "false");
        break;
    case TREAD_PF_TYPE_ENUM:
        if (f->enum_name)
            json_write_cstring(o, f->enum_name);
        else
            json_write_i64(o, f->v.i);
        break;
    case TREAD_PF_TYPE_STRING:
        json_write_string(o, (const char *)f->data, f->len);
        break;
    case TREAD_PF_TYPE_BYTES:
        json_write_base64(o, f->data, f->len);
        break;
    default:
        json_write_i64(o, f->v.i);
        break;
    }
    return 0;
}

/* One message as a JSON object: fields by number, a repeated field (or an
 * unknown number seen more than once) as an array, a non-repeated field
 * seen more than once with its last value (protobuf's rule). */
static int print_message(cat_state *st, const tread_perfetto_msgtype *t,
                         const unsigned char *data, size_t len, int depth)
{
    size_t base = st->nfields;
    if (depth > TREAD_PF_WALK_DEFAULT_MAX_DEPTH)
        return -1; /* cannot happen: the packet was walked whole first */
    if (tread_perfetto_walk(t, data, len, 0, collect_field, st, NULL) != 0)
        return -1;
    size_t end = st->nfields;
    qsort(st->fields + base, end - base, sizeof *st->fields, by_number);
    out_buf *o = st->out;
    out_buf_putc(o, '{');
    int rc = 0;
    for (size_t i = base; i < end && rc == 0;) {
        /* entries are copied out: nested levels may move st->fields */
        tread_perfetto_field f = st->fields[i];
        int unk = unknown_of(&f);
        size_t j = i + 1;
        while (j < end && st->fields[j].number == f.number && unknown_of(&st->fields[j]) == unk)
            j++;
        if (i != base)
            out_buf_putc(o, ',');
        if (unk || !f.name) {
            char key[16];
            snprintf(key, sizeof key, "%" PRIu32, f.number);
            json_write_cstring(o, key);
        } else {
            json_write_cstring(o, f.name);
        }
        out_buf_putc(o, ':');
        if (f.repeated || (unk && j - i > 1)) {
            out_buf_putc(o, '[');
            for (size_t k = i; k < j && rc == 0; k++) {
                tread_perfetto_field e = st->fields[k];
                if (k != i)
                    out_buf_putc(o, ',');
                rc = print_value(st, &e, depth);
            }
            out_buf_putc(o, ']');
        } else {
            tread_perfetto_field last = st->fields[j - 1];
            rc = print_value(st, &last, depth);
        }
        i = j;
    }
    out_buf_putc(o, '}');
    st->nfields = base;
    return rc;
}

static int on_packet(void *user, const tread_perfetto_packet *pk)
{
    cat_state *st = user;
    tread_perfetto_walk_result res;
    st->packets++;
    /* walked whole first, so a malformed packet prints nothing */
    if (tread_perfetto_walk(st->packet_type, pk->data, pk->len, 0, ignore_field, NULL, &res) != 0) {
        char msg[160];
        tread_warning w;
        st->bad_packets++;
        snprintf(msg, sizeof msg, "packet not printed: its byte %" PRIu64 ": %s", res.offset,
                 res.message);
        w.kind = TREAD_WARN_BAD_RECORD;
        w.offset = pk->offset;
        w.message = msg;
        diag_warning_cb(st->diag, &w);
        return st->out->failed;
    }
    if (print_message(st, st->packet_type, pk->data, pk->len, 0) != 0)
        st->nomem = 1;
    out_buf_putc(st->out, '\n');
    return st->out->failed || st->nomem;
}

static int skip_event(void *user, const tread_event *ev)
{
    cat_state *st = user;
    (void)ev;
    return st->out->failed || st->nomem;
}

/* ------------------------------------------------------------------------ */

static int on_event(void *user, const tread_event *ev)
{
    cat_state *st = user;
    if (!event_filter_pass(st->filter, ev))
        return 0;
    if ((st->out_fields ? ndjson_write_fields(&st->writer, st->out_fields, ev)
                    : ndjson_write_event(&st->writer, ev)) != 0)
        st->nomem = 1;
    st->written++;
    /* Stop early once output is gone (e.g. a full disk): no point in
     * reading the rest of a large file. --limit stops the same way. */
    return st->out->failed || st->nomem || (st->limit && st->written >= st->limit);
}

int cmd_cat(const cli_options *opt)
{
    cat_state st;
    cli_input in;
    out_buf *out = malloc(sizeof *out); /* 64 KiB: not on the stack */
    if (!out) {
        fprintf(stderr, "tread: error: %s: out of memory\n",
                tread_error_name(TREAD_ERROR_NOMEM));
        return EXIT_INPUT_ERROR;
    }
    out_buf_init(out, stdout);
    memset(&st, 0, sizeof st);
    st.out = out;
    st.diag = &in.diag;
    st.packet_type = tread_perfetto_msgtype_find("perfetto.protos.TracePacket");
    st.filter = &opt->filter;
    st.out_fields = opt->has_fields ? &opt->fields : NULL;
    st.limit = opt->limit > 0 ? (uint64_t)opt->limit : 0;
    ndjson_writer_init(&st.writer, out);

    /* A bar would mix with the lines if both go to the terminal. */
    int rc = opt->packets
                 ? cli_input_run_packets(&in, opt, !isatty(STDOUT_FILENO), skip_event,
                                         on_packet, &st)
                 : cli_input_run(&in, opt, !isatty(STDOUT_FILENO), on_event, &st);
    if (out_buf_flush(out) != 0) {
        diag_error(&in.diag, "cannot write to standard output: %s",
                   strerror(out->err));
        rc = EXIT_INPUT_ERROR;
    } else if (st.nomem) {
        diag_error(&in.diag, "%s: out of memory while writing args",
                   tread_error_name(TREAD_ERROR_NOMEM));
        rc = EXIT_INPUT_ERROR;
    }
    if (in.parser) {
        tread_stats s;
        tread_get_stats(in.parser, &s);
        if (opt->packets && rc == 0 && s.format != TREAD_FORMAT_PERFETTO) {
            diag_error(&in.diag, "--packets: %s is not a Perfetto trace (%s)", opt->path,
                       tread_format_name(s.format));
            rc = EXIT_INPUT_ERROR;
        }
        diag_warning_summary(&in.diag, s.warnings + st.bad_packets);
        if (rc == 0)
            rc = cli_strict_count(&in.diag, opt, st.bad_packets);
    }
    free(st.fields);
    ndjson_writer_free(&st.writer);
    cli_input_done(&in);
    free(out);
    return rc;
}
