/*
 * One JSON text, whole in memory, as args tokens (core/args.h) written as
 * the JSON decoder writes a record's members (plain JSON by a scanner,
 * the rest by yajl, json_tokens.c): numbers as their text
 * (TOK_NUM), strings unescaped (TOK_STR, bytes not checked as UTF-8, as
 * the decoder does not), keys as TOK_KEY. For JSON that another format
 * carries in a string (a Perfetto debug annotation's legacy_json_value).
 * Strict JSON: one value, whitespace around it, no NaN or comments.
 */
#ifndef TREAD_JSON_TOKENS_H
#define TREAD_JSON_TOKENS_H

#include <stddef.h>
#include "core/alloc.h"
#include "core/buf.h"

/* Appends the tokens of the value in s[0..n) to out. 0; -1 when s is not
 * one JSON value, nests deeper than max_depth or its tokens pass out's
 * limit (*why says which, *at the byte it was found at; out is then as it
 * was); -2 out of memory. */
int json_text_tokens(const tread_alloc *a, const unsigned char *s, size_t n, int max_depth,
                     tread_buf *out, const char **why, size_t *at);
/* The scanner alone (tests): 1 when it read s (plain JSON) into out, 0
 * when it left s to yajl, -1 / -2 at out's limit / out of memory (out
 * then holds a part). */
int json_text_tokens_plain(const unsigned char *s, size_t n, int max_depth, tread_buf *out);
/* The same through yajl alone: the oracle of json_text_tokens' scanner. */
int json_text_tokens_yajl(const tread_alloc *a, const unsigned char *s, size_t n,
                          int max_depth, tread_buf *out, const char **why, size_t *at);

#endif
