#include "systrace/sys_decoder.h"
#include "systrace/sys_sub.h"
#include "systrace/sys_pdump.h"

#include <string.h>
#include <zlib.h>

enum { M_START = 0, M_PRE, M_AFTER, M_CTRACE, M_HTML, M_TAG, M_SCRIPT, M_BLOCK_END, M_CLOSE_GT };

enum {
    K_NONE = 0,
    K_SKIP,      /* a script that is not trace data */
    K_DETECT,    /* trace-data: text, or base64? (first bytes decide) */
    K_DETECT_JS, /* a plain script: the linuxPerfData string? */
    K_TEXT,      /* verbatim text */
    K_B64,       /* base64 of zlib, gzip or plain data */
    K_ZLIB,      /* ctrace: zlib data */
    K_JSPRE,     /* before linuxPerfData's opening quote */
    K_JSSTR,     /* inside the linuxPerfData string */
    K_PDUMP,     /* a PROCESS DUMP block (sys_pdump.h) */
    K_CGROUP     /* a CGROUP DUMP block: counted, skipped */
};

#define DET_MAX 128      /* bytes looked at to tell text from base64 */
#define DET_DECIDE 64    /* non-blank bytes enough to decide */
#define ZIN_SIZE 4096

static const char end_tag[] = "</script";
#define END_TAG_LEN 8

typedef struct sys_decoder {
    tread_parser *p;
    int mode;
    uint64_t pre_len;
    int pre_match;
    char tag[SYS_MAX_TAG_BYTES];
    size_t tag_len;
    uint64_t tag_off;

    int kind;
    uint64_t block_off;
    const char *what;
    unsigned char det[DET_MAX];
    size_t det_len, det_nonws;
    uint64_t det_off;            /* input offset of det[0] */
    size_t end_match;            /* bytes of "</script" matched */
    unsigned char pend[END_TAG_LEN + 1]; /* a false "</script" start: content */
    size_t pend_len, pend_pos;
    uint64_t pend_off;           /* input offset of pend[0] */
    int sub_on;
    sys_sub sub;
    int pdump_on;
    sys_pdump pdump;
    sys_pdump_counts pdump_counts;
    sys_counts counts;           /* of the blocks' finished sub-traces */

    /* base64 and inflate */
    unsigned b64_acc;
    int b64_bits;
    int b64_pad;                 /* '=' seen: the data ended */
    unsigned char zin[ZIN_SIZE]; /* decoded, not yet inflated */
    size_t zin_pos, zin_len;
    z_stream z;
    int z_on, z_checked, z_raw, z_end, z_more_out, z_warned;
    int js_esc, js_done;
    uint64_t out;                /* decoded bytes of this block so far: a
                                    transformed block's sub-trace offsets are
                                    the block's offset plus this */

    uint64_t n_blocks, n_data_blocks, inflated;
    int trailing_reported;
    int cut_warned;              /* the block cut by the end of input: said */
    int finished;
} sys_decoder;

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }
static int is_blank(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

/* ---- blocks ------------------------------------------------------------ */

static tread_status start_block(sys_decoder *sd, int kind, const char *what, uint64_t off)
{
    sd->kind = kind;
    sd->what = what;
    sd->block_off = off;
    sd->det_len = sd->det_nonws = 0;
    sd->end_match = 0;
    sd->pend_len = sd->pend_pos = 0;
    sd->b64_acc = 0;
    sd->b64_bits = 0;
    sd->b64_pad = 0;
    sd->zin_pos = sd->zin_len = 0;
    sd->z_checked = sd->z_raw = sd->z_end = sd->z_more_out = sd->z_warned = 0;
    sd->js_esc = sd->js_done = 0;
    sd->out = 0;
    sd->n_blocks++;
    if (kind == K_SKIP)
        return TREAD_STATUS_OK;
    /* a block whose bytes the sniffer does not know is one
     * unknown_record (sys_sub.c), not ftrace lines not understood */
    if (sys_sub_init(&sd->sub, sd->p, TREAD_FORMAT_UNKNOWN, what, off, &sd->counts))
        return TREAD_STATUS_ERROR;
    sd->sub_on = 1;
    return TREAD_STATUS_OK;
}

/* Decoded (base64) or raw (ctrace) bytes waiting in zin go through
 * inflate, or straight on when they are not compressed, into the
 * sub-trace. Stops when zin is drained or the sub-trace paused. */
static tread_status pump(sys_decoder *sd, int final)
{
    sys_sub *s = &sd->sub;
    if (!sd->z_checked) {
        size_t n = sd->zin_len - sd->zin_pos;
        if (n < 2 && !final)
            return TREAD_STATUS_OK;
        if (n == 0)
            return TREAD_STATUS_OK;
        const unsigned char *b = sd->zin + sd->zin_pos;
        int gz = n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
        int zl = n >= 2 && (b[0] & 0x0f) == 8 && ((b[0] << 8) | b[1]) % 31 == 0;
        sd->z_checked = 1;
        if (gz || zl) {
            memset(&sd->z, 0, sizeof sd->z);
            if (inflateInit2(&sd->z, 15 + 32) != Z_OK)
                return tread__fail(sd->p, TREAD_ERROR_NOMEM, sd->block_off, "out of memory");
            sd->z_on = 1;
        } else {
            sd->z_raw = 1;
        }
    }
    if (sd->z_raw) {
        size_t c = 0;
        tread_status st = sys_sub_pass(s, sd->zin + sd->zin_pos, sd->zin_len - sd->zin_pos,
                                       sd->block_off + sd->out, &c);
        sd->zin_pos += c;
        sd->out += c;
        return st;
    }
    for (;;) {
        if (sd->z_end) {
            if (sd->zin_pos < sd->zin_len && !sd->trailing_reported) {
                sd->trailing_reported = 1;
                /* exact for ctrace (zin holds the input as is) */
                uint64_t at = sd->kind == K_ZLIB ? sd->block_off + sd->z.total_in : sd->block_off;
                tread__warn(sd->p, TREAD_WARN_TRAILING_DATA, at,
                            "bytes after the end of the compressed data in the %s ignored",
                            sd->what);
            }
            sd->zin_pos = sd->zin_len;
            return TREAD_STATUS_OK;
        }
        if (sd->zin_pos == sd->zin_len && !sd->z_more_out)
            return TREAD_STATUS_OK;
        size_t room;
        unsigned char *w = sys_sub_room(s, &room);
        if (room == 0) {
            tread_status st = sys_sub_flush(s, 0);
            if (st != TREAD_STATUS_OK)
                return st;
            continue;
        }
        sd->z.next_in = sd->zin + sd->zin_pos;
        sd->z.avail_in = (uInt)(sd->zin_len - sd->zin_pos);
        sd->z.next_out = w;
        sd->z.avail_out = (uInt)room;
        int zr = inflate(&sd->z, Z_NO_FLUSH);
        size_t used = (size_t)(sd->z.next_in - (sd->zin + sd->zin_pos));
        size_t made = room - sd->z.avail_out;
        sd->zin_pos += used;
        sd->inflated += made;
        if (made)
            sys_sub_commit(s, made, sd->block_off + sd->out);
        sd->out += made;
        sd->z_more_out = sd->z.avail_out == 0;
        if (zr == Z_STREAM_END) {
            sd->z_end = 1;
            continue;
        }
        if (zr == Z_MEM_ERROR)
            return tread__fail(sd->p, TREAD_ERROR_NOMEM, sd->block_off, "out of memory");
        if (zr != Z_OK && zr != Z_BUF_ERROR) {
            tread__warn(sd->p, TREAD_WARN_BAD_RECORD, sd->block_off,
                        "the compressed data of the %s at byte %llu is corrupt (%s): the rest of it is skipped",
                        sd->what, (unsigned long long)sd->block_off,
                        sd->z.msg ? sd->z.msg : "inflate failed");
            sd->z_end = 1;
            sd->z_warned = 1;
            sd->zin_pos = sd->zin_len;
            sd->trailing_reported = 1; /* one warning for this block */
            return TREAD_STATUS_OK;
        }
        if (!used && !made)
            return TREAD_STATUS_OK; /* needs more input */
    }
}

/* Base64 text: decodes d[*i..n) into zin while it has room. */
static void b64_fill(sys_decoder *sd, const unsigned char *d, size_t n, size_t *i)
{
    while (*i < n && sd->zin_len < ZIN_SIZE) {
        unsigned char ch = d[(*i)++];
        int v = b64_value(ch);
        if (v < 0) {
            if (ch == '=')
                sd->b64_pad = 1;
            continue; /* blanks, line breaks, padding */
        }
        if (sd->b64_pad)
            continue; /* after the padding: concatenated data is not read */
        sd->b64_acc = (sd->b64_acc << 6 | (unsigned)v) & 0xffffff;
        sd->b64_bits += 6;
        if (sd->b64_bits >= 8) {
            sd->b64_bits -= 8;
            sd->zin[sd->zin_len++] = (unsigned char)(sd->b64_acc >> sd->b64_bits);
        }
    }
}

/* ctrace: copies raw zlib bytes d[*i..n) into zin while it has room. */
static void zlib_fill(sys_decoder *sd, const unsigned char *d, size_t n, size_t *i)
{
    size_t k = ZIN_SIZE - sd->zin_len < n - *i ? ZIN_SIZE - sd->zin_len : n - *i;
    memcpy(sd->zin + sd->zin_len, d + *i, k);
    sd->zin_len += k;
    *i += k;
}

/* Content d[0..n) for zin: pumps what zin holds, refills it with fill,
 * until all of d is taken (or the nested decoder stops). */
static tread_status zin_content(sys_decoder *sd, const unsigned char *d, size_t n, size_t *c,
                                void (*fill)(sys_decoder *, const unsigned char *, size_t,
                                             size_t *))
{
    size_t i = 0;
    for (;;) {
        tread_status st = pump(sd, 0);
        if (st != TREAD_STATUS_OK) {
            *c = i;
            return st;
        }
        if (i == n)
            break;
        if (sd->zin_pos == sd->zin_len)
            sd->zin_pos = sd->zin_len = 0;
        fill(sd, d, n, &i);
    }
    *c = n;
    return TREAD_STATUS_OK;
}

/* The linuxPerfData JS string: \n is a newline, a backslash before a line
 * break continues the line, other escapes stand for their character. */
static tread_status js_content(sys_decoder *sd, const unsigned char *d, size_t n, size_t *c)
{
    sys_sub *s = &sd->sub;
    size_t i = 0;
    while (i < n && !sd->js_done) {
        size_t room;
        unsigned char *w = sys_sub_room(s, &room);
        if (room == 0) {
            tread_status st = sys_sub_flush(s, 0);
            if (st != TREAD_STATUS_OK) {
                *c = i;
                return st;
            }
            continue;
        }
        unsigned char ch = d[i++];
        if (sd->js_esc) {
            sd->js_esc = 0;
            if (ch == '\n' || ch == '\r')
                continue;
            w[0] = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch == 'r' ? '\r' : ch;
            sys_sub_commit(s, 1, sd->block_off + sd->out++);
        } else if (ch == '\\') {
            sd->js_esc = 1;
        } else if (ch == '"') {
            sd->js_done = 1; /* the rest ("; and the like) is not data */
        } else {
            w[0] = ch;
            sys_sub_commit(s, 1, sd->block_off + sd->out++);
        }
    }
    *c = n;
    return TREAD_STATUS_OK;
}

static tread_status content(sys_decoder *sd, const unsigned char *d, size_t n, uint64_t off,
                            size_t *c);

static int starts_line(const unsigned char *d, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n >= k && memcmp(d, lit, k) == 0 && (n == k || d[k] == '\n' || d[k] == '\r');
}

/* K_PDUMP, K_CGROUP or 0: a trace-data block whose first line (after
 * blank lines) is catapult's agent title: "PROCESS DUMP" or "CGROUP
 * DUMP", which an older cgroup agent put after an empty "# tracer:" line
 * (to be taken for a trace). */
static int dump_block(const unsigned char *d, size_t n)
{
    size_t i = 0;
    while (i < n && is_blank(d[i]))
        i++;
    d += i;
    n -= i;
    if (starts_line(d, n, "PROCESS DUMP"))
        return K_PDUMP;
    if (starts_line(d, n, "CGROUP DUMP"))
        return K_CGROUP;
    if (n > 9 && memcmp(d, "# tracer:", 9) == 0) {
        const unsigned char *nl = memchr(d, '\n', n);
        if (nl && starts_line(nl + 1, n - (size_t)(nl + 1 - d), "CGROUP DUMP"))
            return K_CGROUP;
    }
    return 0;
}

/* The first bytes of a block decide what it holds; they are then read
 * as that. */
static tread_status decide(sys_decoder *sd, int final)
{
    int dump = sd->kind == K_DETECT ? dump_block(sd->det, sd->det_len) : 0;
    if (dump) {
        /* a ps listing's first bytes are base64 characters too */
        sd->kind = dump;
        sd->what = dump == K_PDUMP ? "PROCESS DUMP block" : "CGROUP DUMP block";
        if (sd->sub_on) {
            sys_sub_free(&sd->sub);
            sd->sub_on = 0;
        }
        sys_pdump_init(&sd->pdump, sd->p, dump == K_CGROUP, &sd->pdump_counts);
        sd->pdump_on = 1;
        sd->n_data_blocks++;
        /* its reader keeps them, and a pause among them */
        sys_pdump_hold(&sd->pdump, sd->det, sd->det_len, sd->det_off);
        sd->det_len = 0;
        return TREAD_STATUS_OK;
    } else if (sd->kind == K_DETECT) {
        size_t k = 0, ok = 1;
        for (size_t i = 0; i < sd->det_len; i++) {
            if (is_blank(sd->det[i]))
                continue;
            k++;
            if (b64_value(sd->det[i]) < 0 && sd->det[i] != '=')
                ok = 0;
        }
        sd->kind = ok && k >= 4 ? K_B64 : K_TEXT;
    } else {
        /* "var linuxPerfData = " near the start ('use strict'; may come
         * first); the replay below starts at it */
        static const char js[] = "linuxPerfData";
        size_t k = sizeof js - 1, at = sd->det_len;
        for (size_t i = 0; i + k <= sd->det_len; i++)
            if (memcmp(sd->det + i, js, k) == 0) {
                at = i;
                break;
            }
        if (at == sd->det_len && !final)
            return TREAD_STATUS_OK; /* not yet known */
        sd->kind = at == sd->det_len ? K_SKIP : K_JSPRE;
        if (sd->kind == K_SKIP && sd->sub_on) {
            sys_sub_free(&sd->sub);
            sd->sub_on = 0;
        }
        if (sd->kind == K_JSPRE) {
            sd->what = "linuxPerfData string";
            memmove(sd->det, sd->det + at, sd->det_len - at);
            sd->det_len -= at;
            sd->det_off += at;
        }
    }
    if (sd->kind != K_SKIP)
        sd->n_data_blocks++;
    /* the held bytes are few: their reader takes them all (a pause they
     * cause comes after) */
    size_t c = 0;
    unsigned char tmp[DET_MAX];
    size_t n = sd->det_len;
    memcpy(tmp, sd->det, n);
    sd->det_len = 0;
    /* (text blocks then report exact input offsets: the held bytes lie
     * at det_off, not at the block's tag) */
    return content(sd, tmp, n, sd->det_off, &c);
}

/* Content of the current block, d[0] at input offset off. */
static tread_status content(sys_decoder *sd, const unsigned char *d, size_t n, uint64_t off,
                            size_t *c)
{
    *c = 0;
    switch (sd->kind) {
    case K_DETECT:
    case K_DETECT_JS: {
        size_t i = 0;
        while (i < n && sd->det_len < DET_MAX &&
               (sd->kind == K_DETECT_JS || sd->det_nonws < DET_DECIDE)) {
            if (sd->det_len == 0)
                sd->det_off = off + i;
            if (!is_blank(d[i]))
                sd->det_nonws++;
            sd->det[sd->det_len++] = d[i++];
        }
        *c = i;
        if (sd->det_len < DET_MAX && sd->det_nonws < DET_DECIDE && sd->kind == K_DETECT)
            return TREAD_STATUS_OK;
        int before = sd->kind;
        tread_status st = decide(sd, sd->det_len == DET_MAX);
        if (st != TREAD_STATUS_OK || sd->kind == before || i == n)
            return st;
        size_t more = 0;
        st = content(sd, d + i, n - i, off + i, &more);
        *c += more;
        return st;
    }
    case K_TEXT:
        return sys_sub_pass(&sd->sub, d, n, off, c);
    case K_B64:
        return zin_content(sd, d, n, c, b64_fill);
    case K_ZLIB:
        return zin_content(sd, d, n, c, zlib_fill);
    case K_JSPRE: {
        const unsigned char *q = memchr(d, '"', n);
        if (!q) {
            *c = n;
            return TREAD_STATUS_OK;
        }
        sd->kind = K_JSSTR;
        size_t i = (size_t)(q - d) + 1, more = 0;
        tread_status st = js_content(sd, d + i, n - i, &more);
        *c = i + more;
        return st;
    }
    case K_JSSTR:
        return js_content(sd, d, n, c);
    case K_PDUMP:
    case K_CGROUP:
        return sys_pdump_feed(&sd->pdump, d, n, off, c);
    default:
        *c = n;
        return TREAD_STATUS_OK;
    }
}

/* The block ended (its </script>, or the end of input): what is held is
 * decoded, then the sub-trace finished. May pause: call again. */
static tread_status end_block(sys_decoder *sd)
{
    tread_status st = TREAD_STATUS_OK;
    if (sd->kind == K_NONE)
        return st;
    if (sd->sub_on && sys_sub_paused(&sd->sub)) {
        st = sys_sub_resume(&sd->sub);
        if (st != TREAD_STATUS_OK)
            return st;
    }
    if (sd->kind == K_DETECT || sd->kind == K_DETECT_JS) {
        st = decide(sd, 1);
        if (st != TREAD_STATUS_OK)
            return st;
    }
    if (sd->kind == K_B64 || sd->kind == K_ZLIB) {
        st = pump(sd, 1);
        if (st != TREAD_STATUS_OK)
            return st;
        if (sd->z_on && !sd->z_end && !sd->z_warned) {
            sd->z_warned = 1;
            tread__warn(sd->p, TREAD_WARN_COMPRESSED_TRUNCATED, sd->block_off,
                        "the compressed data of the %s at byte %llu is cut short: what came was decoded",
                        sd->what, (unsigned long long)sd->block_off);
        }
    }
    if (sd->pdump_on) {
        st = sys_pdump_finish(&sd->pdump);
        if (st == TREAD_STATUS_PAUSED)
            return st;
        sys_pdump_free(&sd->pdump);
        sd->pdump_on = 0;
        if (st != TREAD_STATUS_OK)
            return st;
    }
    if (sd->sub_on) {
        st = sys_sub_finish(&sd->sub);
        if (st != TREAD_STATUS_OK)
            return st;
        sys_sub_free(&sd->sub);
        sd->sub_on = 0;
    }
    if (sd->z_on)
        inflateEnd(&sd->z);
    sd->z_on = 0;
    sd->kind = K_NONE;
    return TREAD_STATUS_OK;
}

/* ---- HTML ------------------------------------------------------------- */

static int tag_has(const sys_decoder *sd, const char *s)
{
    size_t k = strlen(s);
    for (size_t i = 0; i + k <= sd->tag_len; i++) {
        size_t j = 0;
        while (j < k && lower((unsigned char)sd->tag[i + j]) == s[j])
            j++;
        if (j == k)
            return 1;
    }
    return 0;
}

/* A tag was read: a script opens a block. */
static tread_status on_tag(sys_decoder *sd)
{
    static const char script[] = "script";
    size_t k = sizeof script - 1;
    if (sd->tag_len < k)
        return TREAD_STATUS_OK;
    for (size_t i = 0; i < k; i++)
        if (lower((unsigned char)sd->tag[i]) != script[i])
            return TREAD_STATUS_OK;
    if (sd->tag_len > k && !is_blank((unsigned char)sd->tag[k]) && sd->tag[k] != '/')
        return TREAD_STATUS_OK; /* <scripts>, not a script */
    sd->mode = M_SCRIPT;
    if (sd->tag_len && sd->tag[sd->tag_len - 1] == '/') {
        sd->mode = M_HTML; /* <script ... />: no content */
        return TREAD_STATUS_OK;
    }
    if (tag_has(sd, "trace-data"))
        return start_block(sd, K_DETECT, "trace-data block", sd->tag_off);
    if (tag_has(sd, "viewer-data")) {
        tread_status st = start_block(sd, K_B64, "viewer-data block", sd->tag_off);
        sd->n_data_blocks++;
        return st;
    }
    if (tag_has(sd, "src="))
        return start_block(sd, K_SKIP, "script", sd->tag_off);
    return start_block(sd, K_DETECT_JS, "script", sd->tag_off);
}

/* Script content up to its "</script": content is delivered, the end tag
 * found or matched partly (held in pend until it is known). */
static tread_status script_bytes(sys_decoder *sd, const unsigned char *d, size_t n, size_t *ip,
                                 uint64_t off)
{
    size_t i = *ip;
    tread_status st;
    size_t c;
    while (i < n) {
        if (sd->pend_pos < sd->pend_len) {
            /* a false end tag from before: it is content */
            st = content(sd, sd->pend + sd->pend_pos, sd->pend_len - sd->pend_pos,
                         sd->pend_off + sd->pend_pos, &c);
            sd->pend_pos += c;
            if (st != TREAD_STATUS_OK) {
                *ip = i;
                return st;
            }
            sd->pend_len = sd->pend_pos = 0;
        }
        if (sd->end_match) {
            while (i < n && sd->end_match < END_TAG_LEN &&
                   lower(d[i]) == end_tag[sd->end_match]) {
                sd->pend[sd->end_match++] = d[i++];
            }
            if (sd->end_match == END_TAG_LEN) {
                sd->end_match = 0;
                sd->mode = M_BLOCK_END;
                *ip = i;
                return TREAD_STATUS_OK;
            }
            if (i == n)
                break;
            /* not the end tag: what matched is content */
            sd->pend_len = sd->end_match;
            sd->pend_pos = 0;
            sd->end_match = 0;
            continue;
        }
        const unsigned char *lt = memchr(d + i, '<', n - i);
        size_t e = lt ? (size_t)(lt - d) : n;
        if (e > i) {
            st = content(sd, d + i, e - i, off + i, &c);
            i += c;
            if (st != TREAD_STATUS_OK) {
                *ip = i;
                return st;
            }
        }
        if (lt) {
            sd->pend[0] = '<';
            sd->pend_off = off + e;
            sd->end_match = 1;
            i = e + 1;
        }
    }
    *ip = i;
    return TREAD_STATUS_OK;
}

/* ---- decoder interface ------------------------------------------------ */

/* After a pause in a block's sub-trace: its held lines, then (base64 or
 * ctrace) what zin still holds, which the pump was inflating when the
 * sub-trace stopped it: a run without the pause inflates it before the
 * next input, or before the end of input and its warnings (fuzz_systrace
 * found the cut block's warning among the events of the zin left over). */
static tread_status resume_block(sys_decoder *sd)
{
    if (!sd->sub_on || !sys_sub_paused(&sd->sub))
        return TREAD_STATUS_OK;
    tread_status st = sys_sub_resume(&sd->sub);
    if (st == TREAD_STATUS_OK && (sd->mode == M_SCRIPT || sd->mode == M_CTRACE) &&
        (sd->kind == K_B64 || sd->kind == K_ZLIB))
        st = pump(sd, 0);
    return st;
}

static tread_status sd_feed(void *dec, const unsigned char *d, size_t len, size_t *consumed)
{
    sys_decoder *sd = dec;
    tread_parser *p = sd->p;
    uint64_t off = p->dec_offset;
    tread_status st;
    size_t i = 0;
    *consumed = 0;
    st = resume_block(sd);
    if (st != TREAD_STATUS_OK)
        return st;
    for (;;) {
        if (sd->mode == M_BLOCK_END) {
            st = end_block(sd);
            if (st != TREAD_STATUS_OK) {
                *consumed = i;
                return st;
            }
            sd->mode = M_CLOSE_GT; /* the rest of the end tag */
        }
        if (i >= len)
            break;
        switch (sd->mode) {
        case M_START:
            while (i < len && is_blank(d[i]))
                i++;
            if (i < len)
                sd->mode = d[i] == '<' ? M_HTML : M_PRE;
            break;
        case M_PRE: {
            static const char tr[] = "TRACE:\n";
            while (i < len && sd->pre_match < 7) {
                if (d[i] == (unsigned char)tr[sd->pre_match])
                    sd->pre_match++;
                else
                    sd->pre_match = d[i] == 'T';
                i++;
                if (++sd->pre_len > SYS_MAX_PREAMBLE_BYTES + 7)
                    return tread__fail(p, TREAD_ERROR_SYNTAX, off + i,
                                       "no HTML and no \"TRACE:\" line in the first %d bytes",
                                       SYS_MAX_PREAMBLE_BYTES);
            }
            if (sd->pre_match == 7)
                sd->mode = M_AFTER;
            break;
        }
        case M_AFTER:
            st = start_block(sd, d[i] == 0x78 ? K_ZLIB : K_TEXT, "ctrace data", off + i);
            if (st != TREAD_STATUS_OK)
                return st;
            sd->n_data_blocks++;
            sd->mode = M_CTRACE;
            break;
        case M_CTRACE: {
            size_t c = 0;
            st = content(sd, d + i, len - i, off + i, &c);
            i += c;
            if (st != TREAD_STATUS_OK) {
                *consumed = i;
                return st;
            }
            break;
        }
        case M_HTML: {
            const unsigned char *lt = memchr(d + i, '<', len - i);
            if (!lt) {
                i = len;
                break;
            }
            i = (size_t)(lt - d) + 1;
            sd->tag_off = off + (size_t)(lt - d);
            sd->tag_len = 0;
            sd->mode = M_TAG;
            break;
        }
        case M_TAG: {
            const unsigned char *gt = memchr(d + i, '>', len - i);
            size_t e = gt ? (size_t)(gt - d) : len;
            size_t k = e - i;
            if (k > SYS_MAX_TAG_BYTES - sd->tag_len)
                k = SYS_MAX_TAG_BYTES - sd->tag_len;
            memcpy(sd->tag + sd->tag_len, d + i, k);
            sd->tag_len += k;
            i = gt ? e + 1 : len;
            if (gt) {
                sd->mode = M_HTML;
                st = on_tag(sd);
                if (st != TREAD_STATUS_OK)
                    return st;
            }
            break;
        }
        case M_SCRIPT:
            st = script_bytes(sd, d, len, &i, off);
            if (st != TREAD_STATUS_OK) {
                *consumed = i;
                return st;
            }
            break;
        case M_CLOSE_GT: {
            const unsigned char *gt = memchr(d + i, '>', len - i);
            i = gt ? (size_t)(gt - d) + 1 : len;
            if (gt)
                sd->mode = M_HTML;
            break;
        }
        }
    }
    *consumed = len;
    return TREAD_STATUS_OK;
}

static tread_status sd_finish(void *dec)
{
    sys_decoder *sd = dec;
    tread_parser *p = sd->p;
    tread_status st;
    if (sd->finished)
        return TREAD_STATUS_OK;
    if (sd->mode == M_START || sd->mode == M_PRE)
        return tread__fail(p, TREAD_ERROR_SYNTAX, p->dec_offset,
                           "no HTML and no \"TRACE:\" line: no systrace data");
    if (sd->mode == M_SCRIPT) {
        /* the input ends inside a block: what came is decoded (said once:
         * finish is called again after a pause below) */
        st = resume_block(sd);
        if (st != TREAD_STATUS_OK)
            return st;
        if (sd->kind != K_SKIP && sd->kind != K_NONE && !sd->cut_warned++)
            tread__warn(p, TREAD_WARN_TRUNCATED_EVENT, sd->block_off,
                        "input ends inside the %s that starts at byte %llu (no </script>): "
                        "what came was decoded",
                        sd->what, (unsigned long long)sd->block_off);
        if (sd->end_match && !sd->pend_len) {
            sd->pend_len = sd->end_match;
            sd->pend_pos = 0;
            sd->end_match = 0;
        }
        if (sd->pend_pos < sd->pend_len) {
            size_t c = 0;
            st = content(sd, sd->pend + sd->pend_pos, sd->pend_len - sd->pend_pos,
                         sd->pend_off + sd->pend_pos, &c);
            sd->pend_pos += c;
            if (st != TREAD_STATUS_OK)
                return st;
        }
        sd->mode = M_BLOCK_END;
    }
    if (sd->mode == M_BLOCK_END || sd->mode == M_CTRACE) {
        st = end_block(sd);
        if (st != TREAD_STATUS_OK)
            return st;
        sd->mode = M_HTML;
    }
    if (!sd->n_data_blocks)
        tread__warn(p, TREAD_WARN_NOT_AN_EVENT, 0,
                    "no trace data found in the systrace input (no trace-data, viewer-data "
                    "or linuxPerfData block)");
    sd->finished = 1;
    return TREAD_STATUS_OK;
}

static void sd_destroy(void *dec)
{
    sys_decoder *sd = dec;
    if (sd->sub_on)
        sys_sub_free(&sd->sub);
    if (sd->pdump_on)
        sys_pdump_free(&sd->pdump);
    if (sd->z_on)
        inflateEnd(&sd->z);
    sys_counts_free(&sd->counts, sd->p);
    tread_free(&sd->p->alloc, sd);
}

static size_t sd_counters(const void *dec, tread_counter *out, size_t max)
{
    const sys_decoder *sd = dec;
    size_t n = 0;
    n = tread__counter_put(out, max, n, "scripts", sd->n_blocks);
    n = tread__counter_put(out, max, n, "data_blocks", sd->n_data_blocks);
    n = tread__counter_put(out, max, n, "inflated_bytes", sd->inflated);
    n = tread__counter_put(out, max, n, "process_dump_blocks", sd->pdump_counts.blocks);
    n = tread__counter_put(out, max, n, "process_dump_processes", sd->pdump_counts.processes);
    n = tread__counter_put(out, max, n, "process_dump_threads", sd->pdump_counts.threads);
    n = tread__counter_put(out, max, n, "process_dump_lines_skipped",
                           sd->pdump_counts.lines_skipped);
    n = tread__counter_put(out, max, n, "cgroup_dump_blocks", sd->pdump_counts.cgroup_blocks);
    n = tread__counter_put(out, max, n, "cgroup_dump_lines", sd->pdump_counts.cgroup_lines);
    return sys_counts_put(&sd->counts, out, max, n);
}

static void *sd_create(tread_parser *p)
{
    sys_decoder *sd = tread_malloc(&p->alloc, sizeof *sd);
    if (!sd)
        return NULL;
    memset(sd, 0, sizeof *sd);
    sd->p = p;
    return sd;
}

const tread_decoder_ops tread__systrace_decoder = {
    .format = TREAD_FORMAT_SYSTRACE,
    .create = sd_create,
    .feed = sd_feed,
    .finish = sd_finish,
    .destroy = sd_destroy,
    .counters = sd_counters,
};
