#include "json/json_filter.h"
#include "json/json_sysstr.h"

#include <string.h>

enum { F_VALUE = 0, F_STRING, F_STRING_ESC, F_SLASH, F_LINE_COMMENT,
       F_BLOCK_COMMENT, F_BLOCK_STAR, F_WORD,
       F_SYS,      /* inside a streamed systemTraceEvents string */
       F_SYS_END   /* its closing quote was read; the sub-trace is finishing */
};

static const char sys_key[] = "systemTraceEvents";
#define SYS_KEY_LEN (sizeof sys_key - 1)

/* Did the string that just closed at d[q] read "systemTraceEvents"? Its
 * start may be held from earlier chunks. */
static int string_is_sys_key(const json_filter *f, const unsigned char *d, size_t q, uint64_t off)
{
    if (f->run != SYS_KEY_LEN)
        return 0;
    if (f->held.len) {
        size_t h = f->held.len - 1; /* held bytes after the quote */
        return h <= SYS_KEY_LEN && q == SYS_KEY_LEN - h &&
               memcmp(f->held.data + 1, sys_key, h) == 0 && memcmp(d, sys_key + h, q) == 0;
    }
    return f->run_off >= off && memcmp(d + (f->run_off - off) + 1, sys_key, SYS_KEY_LEN) == 0;
}

enum { CL_PLAIN = 0, CL_NUM, CL_MINUS, CL_LETTER, CL_QUOTE, CL_SLASH, CL_COMMA };

/* CL_* of every byte: digits . + are CL_NUM, - CL_MINUS, letters
 * CL_LETTER, then " / , ; everything else CL_PLAIN. */
static const unsigned char byte_class[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 1, 6, 2, 1, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0,
    0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 0,
    0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static int is_letter(unsigned char c) { return byte_class[c] == CL_LETTER; }

void json_filter_init(json_filter *f, tread_parser *p, json_sink_fn sink,
                      json_special_fn on_special, void *ctx)
{
    memset(f, 0, sizeof *f);
    f->p = p;
    f->sink = sink;
    f->on_special = on_special;
    f->ctx = ctx;
    f->lenient = p->lenient;
    f->max_token = p->max_string_bytes;
    f->bom_pos = p->lenient ? 0 : -1;
    tread_buf_init(&f->held, &p->alloc, p->max_string_bytes + 64);
}

void json_filter_free(json_filter *f) { tread_buf_free(&f->held); }


static void reset_value_state(json_filter *f)
{
    f->key_pending = 0;
    f->state = F_VALUE;
    f->in_number = 0;
    f->run = 0;
    f->comma_held = 0;
    f->word_len = 0;
}

/* A held token that ended goes to yajl in one piece. yajl may stop in it
 * (it can complete a value before it, as in "1\"x\""): the rest is then
 * scanned again on resume (rescan), from the value state. */
static int emit_held(json_filter *f)
{
    if (!f->held.len)
        return 0;
    size_t taken = 0, len = f->held.len;
    int rc = f->sink(f->ctx, f->held.data, len, f->held_off, 1, &taken);
    if (rc == 1) {
        memmove(f->held.data, f->held.data + taken, len - taken);
        f->held.len = len - taken;
        f->held_off += taken;
        f->rescan = f->held.len > 0;
        return 1;
    }
    f->held.len = 0;
    return rc;
}

/* Synthetic text for yajl; on a pause, what yajl did not take is replayed
 * on the next call. */
static int emit_synthetic(json_filter *f, const void *s, size_t n, uint64_t off)
{
    size_t taken = 0;
    int rc = f->sink(f->ctx, s, n, off, 1, &taken);
    if (rc == 1 && taken < n) {
        memcpy(f->replay, (const unsigned char *)s + taken, n - taken);
        f->replay_len = n - taken;
        f->replay_off = off + taken; /* a word passed on as it is: its rest */
    }
    return rc;
}

static int too_long(json_filter *f)
{
    f->state = F_VALUE;
    tread__fail(f->p, TREAD_ERROR_LIMIT_STRING, f->run_off,
                "string or number longer than the limit of %llu bytes (TREAD_OPT_MAX_STRING_BYTES)",
                (unsigned long long)f->max_token);
    return -1;
}

/* The bare words the filter knows: JSON's literals and, in lenient mode,
 * the special numbers (which may carry a '-'). */
static const struct {
    const char *text;
    int kind; /* 0 for the literals */
} known_words[] = {
    {"true", 0}, {"false", 0}, {"null", 0},
    {"NaN", JSON_SPECIAL_NAN}, {"nan", JSON_SPECIAL_NAN}, {"NAN", JSON_SPECIAL_NAN},
    {"Infinity", JSON_SPECIAL_POS_INF}, {"infinity", JSON_SPECIAL_POS_INF},
    {"inf", JSON_SPECIAL_POS_INF}, {"Inf", JSON_SPECIAL_POS_INF}, {"INF", JSON_SPECIAL_POS_INF},
};

/* Which known word w[0..n) is, or -1; *prefix tells whether it also
 * begins a longer one ("inf" of "infinity"). A '-' counts only before the
 * special numbers. */
static int lookup_word(const unsigned char *w, size_t n, int *prefix)
{
    size_t neg = n > 0 && w[0] == '-';
    int found = -1;
    *prefix = 0;
    for (size_t i = 0; i < sizeof known_words / sizeof known_words[0]; i++) {
        size_t k = known_words[i].kind ? neg : 0, m = n - k, wl = strlen(known_words[i].text);
        if (m > wl || memcmp(w + k, known_words[i].text, m) != 0)
            continue;
        if (m == wl)
            found = (int)i;
        else
            *prefix = 1;
    }
    return found;
}

/* A bare word ended: pass it on, or turn a special value into "0". */
static int resolve_word(json_filter *f)
{
    unsigned char w[sizeof f->word];
    size_t n = f->word_len;
    memcpy(w, f->word, n);
    f->word_len = 0;
    f->state = F_VALUE;
    int prefix, i = lookup_word(w, n, &prefix);
    int kind = i >= 0 ? known_words[i].kind : 0;
    if (kind == JSON_SPECIAL_POS_INF && w[0] == '-')
        kind = JSON_SPECIAL_NEG_INF;
    if (!kind)
        return emit_synthetic(f, w, n, f->word_off); /* true/false/null, or an error for yajl */
    tread__warn(f->p, TREAD_WARN_NONSTANDARD_JSON, f->word_off,
                "non-standard number %.*s accepted", (int)n, (const char *)w);
    f->on_special(f->ctx, kind, (const char *)w, n, f->word_off);
    return emit_synthetic(f, "0", 1, f->word_off);
}

int json_filter_feed(json_filter *f, const unsigned char *d, size_t n,
                     uint64_t off, size_t *consumed)
{
    static const unsigned char bom[3] = {0xef, 0xbb, 0xbf};
    size_t i = 0, start = 0;
    int rc;
    *consumed = 0;

/* Pass d[start..end) to yajl. */
#define FLUSH(end)                                                              \
    do {                                                                        \
        size_t end_ = (end);                                                    \
        if (end_ > start) {                                                     \
            size_t tk_ = 0;                                                     \
            rc = f->sink(f->ctx, d + start, end_ - start, off + start, 0, &tk_);\
            if (rc) {                                                           \
                if (rc == 1) {                                                  \
                    *consumed = start + tk_;                                    \
                    reset_value_state(f);                                       \
                }                                                               \
                return rc;                                                      \
            }                                                                   \
        }                                                                       \
        start = end_;                                                           \
    } while (0)
/* A held token ended before d[end]: yajl gets it, then d[start..end). */
#define FLUSH_HELD(end)                                                         \
    do {                                                                        \
        f->held_tok_off = f->held_off;                                          \
        f->held_rest_off = off + start;                                         \
        if ((rc = emit_held(f)) != 0) {                                         \
            if (rc == 1) {                                                      \
                *consumed = 0; /* stopped before this chunk */                  \
                reset_value_state(f);                                           \
            }                                                                   \
            return rc;                                                          \
        }                                                                       \
        FLUSH(end);                                                             \
    } while (0)
/* Emit synthetic text standing before d[i], in the value state. */
#define SYNTH(s, len, o)                                                        \
    do {                                                                        \
        f->state = F_VALUE;                                                     \
        rc = emit_synthetic(f, (s), (len), (o));                                \
        if (rc) {                                                               \
            if (rc == 1)                                                        \
                *consumed = i;                                                  \
            return rc;                                                          \
        }                                                                       \
    } while (0)

    if (f->replay_len) {
        unsigned char tmp[sizeof f->replay];
        size_t len = f->replay_len;
        memcpy(tmp, f->replay, len);
        f->replay_len = 0;
        SYNTH(tmp, len, f->replay_off);
    }

    if (f->state == F_SYS_END) {
        /* the sub-trace paused while finishing: finish it, then yajl
         * gets the null that stands for the string */
        rc = f->stream(f->ctx, JSON_STREAM_END, off);
        if (rc)
            return rc;
        f->sub = NULL;
        SYNTH("null", 4, f->run_off);
    }

    if (f->rescan) {
        /* bytes of a held token after a stop inside it: scan them again */
        tread_buf again = f->held;
        uint64_t again_off = f->held_off;
        size_t c;
        f->rescan = 0;
        tread_buf_init(&f->held, again.a, again.limit);
        rc = json_filter_feed(f, again.data, again.len, again_off, &c);
        tread_buf_free(&again);
        if (rc)
            return rc == 1 ? (*consumed = 0, 1) : rc;
    }

    if (f->bom_pos >= 0) {
        while (i < n && f->bom_pos < 3 && d[i] == bom[f->bom_pos]) {
            f->bom_pos++;
            i++;
        }
        if (f->bom_pos == 3) {
            tread__warn(f->p, TREAD_WARN_NONSTANDARD_JSON, 0, "UTF-8 byte-order mark skipped");
            f->bom_pos = -1;
            start = i;
        } else if (i == n) {
            *consumed = n;
            return 0;
        } else {
            int held = f->bom_pos;
            f->bom_pos = -1;
            if (held)
                SYNTH(bom, (size_t)held, 0);
        }
    }

    while (i < n) {
        switch (f->state) {
        case F_VALUE: {
            if (f->key_pending) {
                /* "systemTraceEvents" ended: is a string value next? */
                size_t j = i;
                while (j < n && (json_is_ws(d[j]) || d[j] == ':'))
                    j++;
                if (j == n) {
                    i = j;
                    break;
                }
                if (d[j] == '"') {
                    /* yajl reads up to the quote, so that the decoder
                     * knows where the key stands */
                    FLUSH(j);
                    f->key_pending = 0;
                    if (f->stream(f->ctx, JSON_STREAM_ASK, off + j)) {
                        f->state = F_SYS;
                        f->esc = 0;
                        f->hi_surrogate = 0;
                        f->run_off = off + j;
                        i = j + 1;
                        start = i;
                        break;
                    }
                    if (f->p->range_done) { /* the string begins the next range */
                        *consumed = j;
                        return 1;
                    }
                } else if (d[j] != '/') {
                    f->key_pending = 0;
                }
            }
            if (f->comma_held) {
                while (i < n && json_is_ws(d[i]))
                    i++;
                start = i;
                if (i == n)
                    break;
                if (d[i] == '/') {
                    f->word_off = off + i; /* where the '/' stood */
                    f->state = F_SLASH;
                    i++;
                    start = i;
                    break;
                }
                f->comma_held = 0;
                if (d[i] == ']' || d[i] == '}')
                    tread__warn(f->p, TREAD_WARN_NONSTANDARD_JSON, f->comma_off,
                                "trailing comma before '%c' dropped", d[i]);
                else
                    SYNTH(",", 1, f->comma_off);
            }
            for (; i < n; i++) {
                unsigned cls = byte_class[d[i]];
                if (cls == CL_PLAIN) {
                    if (f->in_number && f->held.len) {
                        f->in_number = 0;
                        break; /* a held number ends here: flush below */
                    }
                    f->in_number = 0;
                    continue;
                }
                /* a number goes on with digits . + and, inside it, e/E and a
                 * '-' right after e/E (elsewhere '-' may start -Infinity) */
                if (cls == CL_NUM ||
                    (f->in_number && (d[i] == 'e' || d[i] == 'E' ||
                                      (cls == CL_MINUS && f->num_exp)))) {
                    f->num_exp = d[i] == 'e' || d[i] == 'E';
                    if (!f->in_number) {
                        f->in_number = 1;
                        f->run = 0;
                        f->run_off = off + i;
                    }
                    if (++f->run > f->max_token) {
                        if (f->run_off >= off)
                            FLUSH((size_t)(f->run_off - off));
                        return too_long(f);
                    }
                    continue;
                }
                break;
            }
            if (i == n)
                break;
            unsigned char c = d[i];
            f->in_number = 0;
            if (f->held.len) {
                FLUSH_HELD(i); /* the held number ended at d[i] */
                break;
            }
            switch (byte_class[c]) {
            case CL_QUOTE:
                f->state = F_STRING;
                f->run = 0;
                f->run_off = off + i;
                i++;
                break;
            case CL_SLASH:
                FLUSH(i);
                f->word_off = off + i; /* where the '/' stood */
                f->state = F_SLASH;
                i++;
                start = i;
                break;
            case CL_COMMA: {
                if (!f->lenient) {
                    i++;
                    break;
                }
                size_t j = i + 1;
                while (j < n && json_is_ws(d[j]))
                    j++;
                if (j < n && (d[j] == ']' || d[j] == '}')) {
                    /* the blanks after it go too, as they do after a comma
                     * held across chunks (comma_held above): yajl saw them
                     * one way and not the other, and a lexical error
                     * before them moved with the chunking (fuzz_json,
                     * fuzz/seeds/json/regress_trailing_comma_blanks) */
                    FLUSH(i);
                    tread__warn(f->p, TREAD_WARN_NONSTANDARD_JSON, off + i,
                                "trailing comma before '%c' dropped", d[j]);
                    i = j;
                    start = i;
                } else if (j == n || d[j] == '/') {
                    FLUSH(i);
                    f->comma_held = 1;
                    f->comma_off = off + i;
                    i++;
                    start = i;
                } else {
                    i++;
                }
                break;
            }
            case CL_MINUS:
                if (f->lenient && (i + 1 == n || is_letter(d[i + 1]))) {
                    FLUSH(i);
                    f->state = F_WORD;
                    f->word_len = 0;
                    f->word_off = off + i;
                } else {
                    f->in_number = 1;
                    f->num_exp = 0;
                    f->run = 1;
                    f->run_off = off + i;
                    i++;
                }
                break;
            default: /* CL_LETTER */
                if (!f->lenient) {
                    i++;
                    break;
                }
                /* in place only when the byte after it shows the word
                 * ends here; otherwise the word path decides, so that
                 * "nullnan" reads the same at any chunking */
                if (((c == 't' && memcmp(d + i, "true", n - i < 4 ? n - i : 4) == 0) ||
                     (c == 'n' && memcmp(d + i, "null", n - i < 4 ? n - i : 4) == 0)) &&
                    n - i > 4 && !is_letter(d[i + 4])) {
                    i += 4;
                    break;
                }
                if (c == 'f' && n - i > 5 && memcmp(d + i, "false", 5) == 0 &&
                    !is_letter(d[i + 5])) {
                    i += 5;
                    break;
                }
                FLUSH(i);
                f->state = F_WORD;
                f->word_len = 0;
                f->word_off = off + i;
                break;
            }
            break;
        }
        case F_STRING: {
            const unsigned char *s = d + i;
            const unsigned char *q = memchr(s, '"', n - i);
            const unsigned char *e = q ? q : d + n;
            const unsigned char *b = memchr(s, '\\', (size_t)(e - s));
            if (b) {
                f->run += (uint64_t)(b - s) + 1;
                i = (size_t)(b - d) + 1;
                f->state = F_STRING_ESC;
            } else if (q) {
                f->run += (uint64_t)(q - s);
                i = (size_t)(q - d) + 1;
                f->state = F_VALUE;
                if (f->stream && f->run == SYS_KEY_LEN)
                    f->key_pending = string_is_sys_key(f, d, (size_t)(q - d), off);
            } else {
                f->run += (uint64_t)(n - i);
                i = n;
            }
            /* the limit first: yajl never sees an over-long token */
            if (f->run > f->max_token) {
                if (f->run_off >= off)
                    FLUSH((size_t)(f->run_off - off));
                return too_long(f);
            }
            if (f->state == F_VALUE && f->held.len)
                FLUSH_HELD(i); /* the held string ends here: yajl gets it now */
            break;
        }
        case F_STRING_ESC:
            i++;
            f->run++;
            f->state = F_STRING;
            break;
        case F_SLASH:
            if (d[i] == '/' || d[i] == '*') {
                /* JSON has no comments: an error in strict mode, counted as
                 * non-standard JSON in lenient mode */
                if (!f->lenient) {
                    tread__fail(f->p, TREAD_ERROR_SYNTAX, f->word_off,
                                "comment in strict mode (JSON has no comments)");
                    return -1;
                }
                tread__warn(f->p, TREAD_WARN_NONSTANDARD_JSON, f->word_off,
                            "%s comment accepted", d[i] == '/' ? "//" : "/*");
            }
            if (d[i] == '/') {
                f->state = F_LINE_COMMENT;
            } else if (d[i] == '*') {
                f->state = F_BLOCK_COMMENT;
            } else {
                start = i;
                SYNTH("/", 1, f->word_off); /* not a comment: yajl reports it */
                break;
            }
            i++;
            start = i;
            break;
        case F_LINE_COMMENT: {
            const unsigned char *q = memchr(d + i, '\n', n - i);
            i = q ? (size_t)(q - d) : n;
            if (q)
                f->state = F_VALUE;
            start = i;
            break;
        }
        case F_BLOCK_COMMENT: {
            const unsigned char *q = memchr(d + i, '*', n - i);
            i = q ? (size_t)(q - d) + 1 : n;
            if (q)
                f->state = F_BLOCK_STAR;
            start = i;
            break;
        }
        case F_BLOCK_STAR:
            if (d[i] == '/')
                f->state = F_VALUE;
            else if (d[i] != '*')
                f->state = F_BLOCK_COMMENT;
            i++;
            start = i;
            break;
        case F_SYS: {
            int sr = json_sysstr_scan(f, d, n, &i, off);
            start = i;
            if (sr == SYSSTR_ERROR)
                return -1;
            if (sr == SYSSTR_PAUSED) {
                f->stream(f->ctx, JSON_STREAM_PAUSED, off + i);
                *consumed = i;
                return 1;
            }
            if (sr == SYSSTR_CLOSED) {
                f->state = F_SYS_END;
                rc = f->stream(f->ctx, JSON_STREAM_END, off + i);
                if (rc) {
                    if (rc == 1)
                        *consumed = i;
                    return rc;
                }
                f->sub = NULL;
                SYNTH("null", 4, f->run_off);
            }
            break;
        }
        case F_WORD:
            while (i < n && (is_letter(d[i]) || (f->word_len == 0 && d[i] == '-'))) {
                if (f->word_len < sizeof f->word)
                    f->word[f->word_len++] = d[i];
                i++;
            }
            start = i;
            if (i == n)
                break;
            if (f->word_len == 1 && f->word[0] == '-') {
                /* "-" then a digit split across chunks: a plain number,
                 * held from its '-' like any number cut by a chunk */
                f->word_len = 0;
                f->state = F_VALUE;
                f->in_number = 1;
                f->num_exp = 0;
                f->run = 1;
                f->run_off = f->word_off;
                f->held_off = f->word_off;
                if (tread_buf_append(&f->held, "-", 1)) {
                    tread__fail(f->p, TREAD_ERROR_NOMEM, f->word_off, "out of memory");
                    return -1;
                }
                break;
            }
            rc = resolve_word(f);
            if (rc) {
                if (rc == 1)
                    *consumed = i;
                return rc;
            }
            break;
        }
    }
    if (f->state == F_STRING || f->state == F_STRING_ESC || f->in_number) {
        /* the chunk ends inside a token: pass what precedes it, hold it */
        size_t tok = f->run_off >= off + start ? (size_t)(f->run_off - off) : start;
        FLUSH(tok);
        if (f->held.len == 0)
            f->held_off = off + tok;
        if (tread_buf_append(&f->held, d + tok, n - tok)) {
            tread__fail(f->p, TREAD_ERROR_NOMEM, off + tok, "out of memory");
            return -1;
        }
    } else {
        FLUSH(n);
    }
    *consumed = n;
    return 0;
#undef FLUSH
#undef FLUSH_HELD
#undef SYNTH
}

int json_filter_mid_token(const json_filter *f)
{
    return f->cut_token || f->state == F_STRING || f->state == F_STRING_ESC || f->in_number ||
           f->state == F_SYS || f->state == F_SYS_END;
}

int json_filter_idle(const json_filter *f)
{
    return f->state == F_VALUE && !f->in_number && !f->comma_held && !f->held.len &&
           !f->rescan && !f->replay_len && f->bom_pos < 0 && !f->cut_token;
}

int json_filter_finish(json_filter *f, uint64_t off)
{
    size_t taken;
    (void)taken;
    if (f->state == F_SYS || f->state == F_SYS_END) {
        /* the input ends inside the streamed string: what came of it is
         * decoded, the decoder reports the truncation */
        if (f->state == F_SYS && json_sysstr_close(f, off) == TREAD_STATUS_ERROR)
            return -1;
        int rc = f->stream(f->ctx, f->state == F_SYS ? JSON_STREAM_TRUNC : JSON_STREAM_END, off);
        if (rc)
            return rc;
        f->sub = NULL;
        f->state = F_VALUE;
        f->cut_token = 1;
        return 0;
    }
    if (f->replay_len) {
        unsigned char tmp[sizeof f->replay];
        size_t len = f->replay_len;
        memcpy(tmp, f->replay, len);
        f->replay_len = 0;
        int rc = emit_synthetic(f, tmp, len, f->replay_off);
        if (rc)
            return rc;
    }
    if (f->bom_pos > 0 && f->bom_pos < 3) {
        static const unsigned char bom[3] = {0xef, 0xbb, 0xbf};
        int held = f->bom_pos;
        f->bom_pos = -1;
        return emit_synthetic(f, bom, (size_t)held, 0);
    }
    if (f->state == F_WORD && f->word_len) {
        int prefix;
        lookup_word(f->word, f->word_len, &prefix);
        if (prefix) {
            f->cut_token = 1; /* "tr", "Infin", "-": the input stops inside it */
            f->word_len = 0;
            f->state = F_VALUE;
            return 0;
        }
        return resolve_word(f); /* a whole word, or junk for yajl to report */
    }
    if (f->comma_held) {
        /* a comma at the very end: nothing follows it */
        f->comma_held = 0;
        tread__warn(f->p, TREAD_WARN_NONSTANDARD_JSON, f->comma_off,
                    "trailing comma at the end of input dropped");
    }
    (void)off;
    return 0;
}
