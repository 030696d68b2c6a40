/*
 * Prints the reflective walk of a Perfetto trace (a perfetto.protos.Trace,
 * uncompressed) one step a line, for tests/corpus/perfetto_walk_parity.py:
 *   DEPTH KIND NUMBER REPEATED NAME VALUE      (tab-separated)
 * KIND: F value, B/E message begin/end, U unknown field (also an enum
 * number the enum lacks, as protobuf keeps it). VALUE is written as
 * `protoc --decode` writes it: integers in decimal, floats in the
 * shortest of %.6g/%.15g that reads back (else %.9g/%.17g), strings and
 * bytes C-escaped in quotes (octal for bytes outside 0x20..0x7e).
 * Public API only. usage: perfetto_walk_dump TRACE [TYPE]
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tread/perfetto.h>

static void put_escaped(FILE *o, const unsigned char *p, size_t n)
{
    fputc('"', o);
    for (size_t i = 0; i < n; i++) {
        unsigned c = p[i];
        switch (c) {
        case '\n': fputs("\\n", o); break;
        case '\r': fputs("\\r", o); break;
        case '\t': fputs("\\t", o); break;
        case '"': fputs("\\\"", o); break;
        case '\'': fputs("\\'", o); break;
        case '\\': fputs("\\\\", o); break;
        default:
            if (c < 0x20 || c >= 0x7f)
                fprintf(o, "\\%03o", c);
            else
                fputc((int)c, o);
        }
    }
    fputc('"', o);
}

static void put_double(FILE *o, double d, int is_float)
{
    char buf[64];
    if (isnan(d)) {
        fputs("nan", o);
        return;
    }
    if (isinf(d)) {
        fputs(d < 0 ? "-inf" : "inf", o);
        return;
    }
    if (is_float) {
        snprintf(buf, sizeof buf, "%.*g", FLT_DIG, d);
        if ((float)strtod(buf, NULL) != (float)d)
            snprintf(buf, sizeof buf, "%.*g", FLT_DIG + 3, d);
    } else {
        snprintf(buf, sizeof buf, "%.*g", DBL_DIG, d);
        if (strtod(buf, NULL) != d)
            snprintf(buf, sizeof buf, "%.*g", DBL_DIG + 2, d);
    }
    fputs(buf, o);
}

static int on_field(void *user, const tread_perfetto_field *f)
{
    FILE *o = user;
    char kind = f->step == TREAD_PF_FIELD ? 'F' : f->step == TREAD_PF_MESSAGE_BEGIN ? 'B'
              : f->step == TREAD_PF_MESSAGE_END ? 'E' : 'U';
    if (f->step == TREAD_PF_FIELD && f->type == TREAD_PF_TYPE_ENUM && !f->enum_name)
        kind = 'U';
    fprintf(o, "%d\t%c\t%" PRIu32 "\t%d\t%s\t", f->depth, kind, f->number, f->repeated,
            f->name ? f->name : "");
    if (kind == 'F') {
        switch (f->type) {
        case TREAD_PF_TYPE_INT32: case TREAD_PF_TYPE_SINT32: case TREAD_PF_TYPE_SFIXED32:
        case TREAD_PF_TYPE_INT64: case TREAD_PF_TYPE_SINT64: case TREAD_PF_TYPE_SFIXED64:
            fprintf(o, "%" PRId64, f->v.i);
            break;
        case TREAD_PF_TYPE_UINT32: case TREAD_PF_TYPE_FIXED32:
        case TREAD_PF_TYPE_UINT64: case TREAD_PF_TYPE_FIXED64:
            fprintf(o, "%" PRIu64, f->v.u);
            break;
        case TREAD_PF_TYPE_FLOAT: case TREAD_PF_TYPE_DOUBLE:
            put_double(o, f->v.d, f->type == TREAD_PF_TYPE_FLOAT);
            break;
        case TREAD_PF_TYPE_BOOL:
            fputs(f->v.b ? "true" : "false", o);
            break;
        case TREAD_PF_TYPE_ENUM:
            fputs(f->enum_name, o);
            break;
        default: /* string, bytes */
            put_escaped(o, f->data, f->len);
            break;
        }
    }
    fputc('\n', o);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s TRACE [TYPE]\n", argv[0]);
        return 2;
    }
    const char *tname = argc > 2 ? argv[2] : "perfetto.protos.Trace";
    const tread_perfetto_msgtype *t = tread_perfetto_msgtype_find(tname);
    if (!t) {
        fprintf(stderr, "no message type %s\n", tname);
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in) {
        perror(argv[1]);
        return 2;
    }
    size_t cap = 1 << 20, len = 0, n;
    unsigned char *buf = malloc(cap);
    while (buf && (n = fread(buf + len, 1, cap - len, in)) > 0) {
        len += n;
        if (len == cap) {
            unsigned char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(in);
    if (!buf) {
        fprintf(stderr, "out of memory\n");
        return 2;
    }
    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    tread_perfetto_walk_result res;
    int rc = tread_perfetto_walk(t, buf, len, 0, on_field, stdout, &res);
    fflush(stdout);
    free(buf);
    if (rc < 0) {
        fprintf(stderr, "%s: walk failed at offset %" PRIu64 ": %s\n", argv[1], res.offset,
                res.message);
        return 1;
    }
    return 0;
}
