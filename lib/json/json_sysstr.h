/*
 * The systemTraceEvents string, streamed: the JSON filter hands the bytes
 * of the string to this unescaper, which writes the text into the
 * sub-trace (lib/systrace/sys_sub.h) as it arrives. Escapes may be cut by
 * chunk boundaries (their state lives in the filter); \uXXXX becomes
 * UTF-8, a surrogate pair one code point, a lone surrogate U+FFFD.
 */
#ifndef TREAD_JSON_SYSSTR_H
#define TREAD_JSON_SYSSTR_H

#include "json/json_filter.h"

enum {
    SYSSTR_MORE = 0,  /* all of d[*i..n) read: the string goes on */
    SYSSTR_CLOSED,    /* the closing quote was read; *i is past it */
    SYSSTR_PAUSED,    /* the sub-trace paused; d[*i..n) comes again */
    SYSSTR_ERROR      /* recorded in the parser */
};

/* Reads the string's bytes d[*i..n), d[0] at input offset off. */
int json_sysstr_scan(json_filter *f, const unsigned char *d, size_t n, size_t *i, uint64_t off);

/* The string ended (or the input did): a high surrogate left waiting
 * becomes U+FFFD, staged text is fed. Returns like sys_sub_flush. */
tread_status json_sysstr_close(json_filter *f, uint64_t off);

#endif
