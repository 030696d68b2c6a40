/* split_pf_drive MAX_BYTES FILE OUTPREFIX: split_perfetto through the real
 * split_pieces (files OUTPREFIX-NNNNN.pftrace, each listed on standard
 * output when complete), as `tread split` drives them; then the pieces are
 * read back from disk and checked against FILE by split_pf_verify. For the
 * end-to-end test (split_pf_drive.sh). Exit 0, or 1 with the reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tread.h>
#include <tread/perfetto.h>

#include "event_dump.h"
#include "split_pf_check.h"
#include "split_pieces.h"

typedef struct run {
    split_perfetto *s;
    int failed;
} run;

static int on_packet(void *user, const tread_perfetto_packet *pk)
{
    run *r = user;
    if (!r->failed && split_perfetto_packet(r->s, pk))
        r->failed = 1;
    return r->failed; /* stop at the first error */
}

static int on_event(void *user, const tread_event *ev)
{
    run *r = user;
    if (!r->failed && split_perfetto_event(r->s, ev))
        r->failed = 1;
    return r->failed;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: split_pf_drive MAX_BYTES FILE OUTPREFIX\n");
        return 2;
    }
    uint64_t max = strtoull(argv[1], NULL, 10);
    split_pieces_config cfg = {argv[3], "pftrace", max, UINT64_MAX};
    split_pieces *sp;
    char err[4096];
    if (split_pieces_new(&sp, &cfg, err, sizeof err)) {
        fprintf(stderr, "split_pf_drive: %s\n", err);
        return 1;
    }
    run r = {split_perfetto_new(sp), 0};
    if (!r.s)
        return 1;
    tread_parser *p = tread_parser_create(NULL);
    tread_callbacks cb = {.event = on_event, .perfetto_packet = on_packet};
    tread_set_callbacks(p, &cb, &r);
    tread_status st = tread_parse_path(p, argv[2]);
    tread_parser_free(p);
    if (st == TREAD_STATUS_ERROR || r.failed || split_perfetto_finish(r.s)) {
        fprintf(stderr, "split_pf_drive: %s\n", r.failed || st != TREAD_STATUS_ERROR
                                                     ? split_perfetto_error(r.s)
                                                     : "the input does not parse");
        return 1;
    }
    split_perfetto_print_warnings(r.s, stderr);
    split_perfetto_print_losses(r.s, stderr);
    split_perfetto_stats sst = *split_perfetto_get_stats(r.s);
    split_perfetto_free(r.s);
    uint64_t n = split_pieces_count(sp);
    pieces_mem pm = {calloc(n ? n : 1, sizeof(mem_piece)), 0, n};
    for (uint64_t i = 0; i < n; i++) {
        char path[4096];
        split_pieces_path(sp, i, path, sizeof path);
        mem_piece *m = &pm.piece[pm.n++];
        m->data = dump_read_file(path, &m->len);
        if (!m->data) {
            fprintf(stderr, "split_pf_drive: cannot read %s\n", path);
            return 1;
        }
        /* a piece over the limit must be one the writer declared (it
         * holds one packet: split_pf_verify checks) */
        m->oversize = m->len > max;
    }
    split_pieces_free(sp);
    size_t len;
    unsigned char *in = dump_read_file(argv[2], &len);
    int rc = !in || split_pf_verify(in, len, &pm, max, &sst, err, sizeof err);
    if (rc)
        fprintf(stderr, "split_pf_drive: %s\n", in ? err : "cannot read the input");
    free(in);
    pieces_mem_free(&pm);
    return rc;
}
