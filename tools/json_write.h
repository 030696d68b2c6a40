/*
 * json_write: JSON value primitives on an out_buf. Strings are escaped as
 * doc/cli-ndjson.md says: ", \ and control characters escaped, every byte
 * that is not part of well-formed UTF-8 replaced by U+FFFD.
 */
#ifndef TREAD_TOOLS_JSON_WRITE_H
#define TREAD_TOOLS_JSON_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "out_buf.h"

void json_write_string(out_buf *o, const char *s, size_t len);
void json_write_cstring(out_buf *o, const char *s);
void json_write_i64(out_buf *o, int64_t v);
void json_write_u64(out_buf *o, uint64_t v);

/* A double: the literal text when it is a valid JSON number, else the
 * shortest round-tripping decimal; NaN and infinities as the strings
 * "NaN", "Infinity", "-Infinity" (JSON has no such numbers). */
void json_write_double(out_buf *o, double d, const char *text,
                       size_t text_len);

/* "0x..." lower-case hex, as a string. */
void json_write_hex_string(out_buf *o, uint64_t v);

/* Standard base64 (RFC 4648, with padding), as a string. */
void json_write_base64(out_buf *o, const unsigned char *p, size_t len);

/* 1 if s[0..len) is a number by the JSON grammar (RFC 8259). */
int json_is_number_text(const char *s, size_t len);

#endif
