/*
 * One JSON text, whole in memory, as args tokens (core/args.h) written as
 * the JSON decoder writes a record's members: numbers as their text
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

#endif
