/*
 * fxt_records: what the FXT decoder frames, for comparison with the
 * corpus manifest (tests/corpus/fxt_manifest.py). Prints one JSON object:
 * records by type, subtype and argument type, counted from the raw
 * fxt_record hook with this program's own reading of the header bits and
 * argument headers (not the decoder's), the providers, the warnings by
 * kind and the error.
 *
 * A record counts as framed unless a truncation warning names its offset
 * (a large record is reported when its header part has arrived, before its
 * payload: the manifest counts only records present in full).
 *
 * Usage: fxt_records [--sniff] FILE...   one JSON object per line, per file
 *                                       (default: the format forced to FXT)
 *        fxt_records --counts FILE...    per file, a "== FILE" line and what
 *                                       tests/corpus/corpus_counts prints
 *                                       (sniffed): the goldens' text
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tread.h>
#include <tread/fxt.h>

#define MAX_KEYS 256

typedef struct tally {
    char key[MAX_KEYS][32];
    uint64_t n[MAX_KEYS];
    int count;
} tally;

static void add(tally *t, const char *key, uint64_t n)
{
    for (int i = 0; i < t->count; i++)
        if (strcmp(t->key[i], key) == 0) {
            t->n[i] += n;
            return;
        }
    if (t->count < MAX_KEYS) {
        snprintf(t->key[t->count], sizeof t->key[0], "%s", key);
        t->n[t->count++] = n;
    }
}

static void merge(tally *into, const tally *from)
{
    for (int i = 0; i < from->count; i++)
        add(into, from->key[i], from->n[i]);
}

typedef struct state {
    tally types, subtypes, args, warnings;
    tally pending_types, pending_subtypes, pending_args; /* the last large record */
    int pending;
    uint64_t pending_offset;
    uint64_t records, pending_records;
    uint32_t provider_ids[64];
    char provider_names[64][300];
    int nproviders;
    uint64_t args_offset_mismatches;
} state;

static const char *const type_names[16] = {
    "metadata", "initialization", "string", "thread", "event", "blob", "userspace_object",
    "kernel_object", "scheduling", "log", "unknown_10", "unknown_11", "unknown_12",
    "unknown_13", "unknown_14", "large"};

static uint64_t bits(uint64_t w, unsigned lo, unsigned hi)
{
    return (w >> lo) & (hi - lo == 63 ? ~UINT64_C(0) : (UINT64_C(1) << (hi - lo + 1)) - 1);
}

static size_t sref_words(unsigned ref) { return ref & 0x8000u ? ((ref & 0x7fffu) + 7) / 8 : 0; }

/* Where the arguments start (in words) and how many, by the format
 * document; 0 when the record type has none. */
static size_t args_at(const tread_fxt_record *r, unsigned *nargs)
{
    uint64_t h = r->header, fw;
    *nargs = 0;
    switch (r->type) {
    case TREAD_FXT_EVENT:
        *nargs = (unsigned)bits(h, 20, 23);
        return 2 + (bits(h, 24, 31) == 0 ? 2 : 0) + sref_words((unsigned)bits(h, 32, 47)) +
               sref_words((unsigned)bits(h, 48, 63));
    case TREAD_FXT_USERSPACE_OBJECT:
        *nargs = (unsigned)bits(h, 40, 43);
        return 2 + (bits(h, 16, 23) == 0 ? 1 : 0) + sref_words((unsigned)bits(h, 24, 39));
    case TREAD_FXT_KERNEL_OBJECT:
        *nargs = (unsigned)bits(h, 40, 43);
        return 2 + sref_words((unsigned)bits(h, 24, 39));
    case TREAD_FXT_SCHEDULING:
        if (bits(h, 60, 63) == 1 || bits(h, 60, 63) == 2) {
            *nargs = (unsigned)bits(h, 16, 19);
            return bits(h, 60, 63) == 1 ? 4 : 3;
        }
        return 0;
    case TREAD_FXT_LARGE:
        if (bits(h, 36, 39) != 0 || bits(h, 40, 43) != 0 || r->len < 16)
            return 0;
        fw = tread_fxt_word(r, 1);
        *nargs = (unsigned)bits(fw, 32, 35);
        return 2 + sref_words((unsigned)bits(fw, 0, 15)) + sref_words((unsigned)bits(fw, 16, 31)) +
               1 + (bits(fw, 36, 43) == 0 ? 2 : 0);
    default:
        return 0;
    }
}

static int on_record(void *user, const tread_fxt_record *r)
{
    state *s = user;
    char key[32];
    uint64_t h = r->header;
    if (s->pending) { /* the large record before this one was whole */
        merge(&s->types, &s->pending_types);
        merge(&s->subtypes, &s->pending_subtypes);
        merge(&s->args, &s->pending_args);
        s->records += s->pending_records;
        s->pending = 0;
    }
    int large = r->type == TREAD_FXT_LARGE;
    tally *types = large ? &s->pending_types : &s->types;
    tally *subtypes = large ? &s->pending_subtypes : &s->subtypes;
    tally *args = large ? &s->pending_args : &s->args;
    if (large) {
        memset(&s->pending_types, 0, sizeof s->pending_types);
        memset(&s->pending_subtypes, 0, sizeof s->pending_subtypes);
        memset(&s->pending_args, 0, sizeof s->pending_args);
        s->pending = 1;
        s->pending_offset = r->offset;
        s->pending_records = 1;
    } else {
        s->records++;
    }
    add(types, type_names[r->type & 15], 1);
    key[0] = 0;
    switch (r->type) {
    case TREAD_FXT_METADATA:
        snprintf(key, sizeof key, "meta%u", (unsigned)bits(h, 16, 19));
        break;
    case TREAD_FXT_EVENT:
        snprintf(key, sizeof key, "event%u", (unsigned)bits(h, 16, 19));
        break;
    case TREAD_FXT_BLOB:
        snprintf(key, sizeof key, "blob_type%u", (unsigned)bits(h, 48, 55));
        break;
    case TREAD_FXT_KERNEL_OBJECT:
        snprintf(key, sizeof key, "kobj_type%u", (unsigned)bits(h, 16, 23));
        break;
    case TREAD_FXT_SCHEDULING:
        snprintf(key, sizeof key, "sched%u", (unsigned)bits(h, 60, 63));
        break;
    case TREAD_FXT_LARGE:
        snprintf(key, sizeof key, "large%u_fmt%u", (unsigned)bits(h, 36, 39),
                 (unsigned)bits(h, 40, 43));
        break;
    default:
        break;
    }
    if (key[0])
        add(subtypes, key, 1);
    /* arguments: each header read counts, as the checker counts them,
     * up to the first that does not fit */
    unsigned nargs;
    size_t w = args_at(r, &nargs);
    if (nargs && r->args_offset && r->args_offset != w * 8)
        s->args_offset_mismatches++;
    for (unsigned i = 0; i < nargs && (w + 1) * 8 <= r->len; i++) {
        uint64_t ah = tread_fxt_word(r, w);
        snprintf(key, sizeof key, "%u", (unsigned)(ah & 15));
        add(args, key, 1);
        uint64_t size = bits(ah, 4, 15);
        if (size == 0 || (w + size) * 8 > r->len)
            break;
        w += size;
    }
    if (r->has_provider) {
        int i;
        for (i = 0; i < s->nproviders && s->provider_ids[i] != r->provider_id; i++)
            ;
        if (i == s->nproviders && i < 64)
            s->provider_ids[s->nproviders++] = r->provider_id;
        if (i < 64)
            snprintf(s->provider_names[i], sizeof s->provider_names[i], "%.*s",
                     (int)r->provider_name.len, r->provider_name.ptr);
    }
    return 0;
}

static int on_warning(void *user, const tread_warning *w)
{
    state *s = user;
    add(&s->warnings, tread_warning_name(w->kind), 1);
    if (w->kind == TREAD_WARN_TRUNCATED_EVENT && s->pending && w->offset == s->pending_offset)
        s->pending = 0; /* cut short: not framed */
    return 0;
}

static void print_json_str(const char *p, size_t n)
{
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void print_tally(const char *name, const tally *t)
{
    printf(", \"%s\": {", name);
    for (int i = 0; i < t->count; i++)
        printf("%s\"%s\": %" PRIu64, i ? ", " : "", t->key[i], t->n[i]);
    printf("}");
}

static uint64_t counter(tread_parser *p, const char *name)
{
    tread_counter c[64];
    size_t n = tread_get_format_counters(p, c, 64);
    for (size_t i = 0; i < n && i < 64; i++)
        if (strcmp(c[i].name, name) == 0)
            return c[i].value;
    return 0;
}

/* What corpus_counts prints, for the goldens (fxt_corpus.sh). */
static void print_counts(tread_parser *p, tread_status st)
{
    tread_stats s;
    tread_get_stats(p, &s);
    printf("format %s\ncompression %s\n", tread_format_name(s.format),
           tread_compression_name(s.compression));
    printf("bytes_decoded %" PRIu64 "\nrecords %" PRIu64 "\nevents %" PRIu64 "\n", s.bytes_decoded,
           s.records, s.events);
    for (int k = 0; k < TREAD_EVENT_KIND_COUNT_; k++)
        if (s.events_by_kind[k])
            printf("kind %s %" PRIu64 "\n", tread_event_kind_name((tread_event_kind)k),
                   s.events_by_kind[k]);
    for (int k = 0; k < TREAD_WARN_KIND_COUNT_; k++)
        if (s.warnings_by_kind[k])
            printf("warning %s %" PRIu64 "\n", tread_warning_name((tread_warning_kind)k),
                   s.warnings_by_kind[k]);
    if (st == TREAD_STATUS_ERROR)
        printf("error %s at %" PRIu64 ": %s\n", tread_error_name(tread_get_error(p)),
               tread_get_error_offset(p), tread_get_error_message(p));
}

static int one_file(const char *path, int sniff, int counts)
{
    static state s;
    memset(&s, 0, sizeof s);
    tread_callbacks cb = {.fxt_record = on_record, .warning = on_warning};
    tread_parser *p = tread_parser_create(NULL);
    if (!p || (!sniff && tread_config(p, TREAD_OPT_FORMAT, TREAD_FORMAT_FXT) != 0))
        return 1;
    tread_set_callbacks(p, &cb, &s);
    tread_status st = tread_parse_path(p, path);
    if (counts) {
        printf("== %s\n", path);
        print_counts(p, st);
        tread_parser_free(p);
        return 0;
    }
    if (s.pending) {
        merge(&s.types, &s.pending_types);
        merge(&s.subtypes, &s.pending_subtypes);
        merge(&s.args, &s.pending_args);
        s.records += s.pending_records;
    }
    tread_stats stats;
    tread_get_stats(p, &stats);
    printf("{\"file\": ");
    print_json_str(path, strlen(path));
    printf(", \"format\": \"%s\", \"records_framed\": %" PRIu64 ", \"events\": %" PRIu64,
           tread_format_name(stats.format), s.records, stats.events);
    print_tally("record_types", &s.types);
    print_tally("subtypes", &s.subtypes);
    print_tally("arg_types", &s.args);
    print_tally("warnings", &s.warnings);
    printf(", \"providers\": {");
    for (int i = 0; i < s.nproviders; i++) {
        printf("%s\"%" PRIu32 "\": ", i ? ", " : "", s.provider_ids[i]);
        print_json_str(s.provider_names[i], strlen(s.provider_names[i]));
    }
    printf("}, \"provider_section_switches\": %" PRIu64 ", \"index0_records_ignored\": %" PRIu64
           ", \"args_offset_mismatches\": %" PRIu64,
           counter(p, "provider_sections"), counter(p, "index0_records_ignored"),
           s.args_offset_mismatches);
    if (st == TREAD_STATUS_ERROR)
        printf(", \"error\": \"%s\", \"error_offset\": %" PRIu64, tread_error_name(tread_get_error(p)),
               tread_get_error_offset(p));
    else
        printf(", \"error\": null");
    printf("}\n");
    tread_parser_free(p);
    return 0;
}

int main(int argc, char **argv)
{
    int i = 1, sniff = 0, counts = 0;
    if (i < argc && strcmp(argv[i], "--sniff") == 0)
        sniff = 1, i++;
    else if (i < argc && strcmp(argv[i], "--counts") == 0)
        counts = 1, sniff = 1, i++;
    if (i >= argc) {
        fprintf(stderr, "usage: fxt_records [--sniff | --counts] FILE...\n");
        return 2;
    }
    int rc = 0;
    for (; i < argc; i++)
        rc |= one_file(argv[i], sniff, counts);
    return rc;
}
