/* A tiny FXT writer for the unit tests: records built word by word, with
 * the size field patched when the record ends. */
#ifndef TREAD_TEST_FXT_BUILD_H
#define TREAD_TEST_FXT_BUILD_H

#include <stddef.h>
#include <stdint.h>

typedef struct fxb {
    unsigned char *d;
    size_t len, cap;
} fxb;

void fxb_init(fxb *b);
void fxb_free(fxb *b);
void fxb_word(fxb *b, uint64_t w);
/* n bytes, zero-padded to 8 */
void fxb_stream(fxb *b, const void *s, size_t n);
/* A record: begin with its header (size left 0), end patches the size
 * (bits 4..15, or 4..35 for a large record). Returns the start. */
size_t fxb_begin(fxb *b, uint64_t header);
void fxb_end(fxb *b, size_t start);

/* An inline string ref of n bytes. */
#define FXB_INLINE(n) (0x8000u | (unsigned)(n))

void fxb_magic(fxb *b);
/* magic, provider 7 "prov", 1 GHz, strings 1 "cat" 2 "name", thread 1
 * (pid 100, tid 101) */
void fxb_preamble(fxb *b);
void fxb_provider_info(fxb *b, uint32_t id, const char *name);
void fxb_provider_section(fxb *b, uint32_t id);
void fxb_init_record(fxb *b, uint64_t ticks_per_second);
void fxb_string(fxb *b, unsigned idx, const char *s);
void fxb_thread(fxb *b, unsigned idx, uint64_t pid, uint64_t tid);
/* An event header: type, argument count, thread ref, category and name
 * refs; the timestamp word follows. Then come the caller's words. */
size_t fxb_event(fxb *b, unsigned type, unsigned nargs, unsigned tref, unsigned cref,
                 unsigned nref, uint64_t ticks);
/* An argument with an inline name; value_hi: bits 32..63 of the header;
 * nwords value words after the name. */
void fxb_arg(fxb *b, unsigned type, const char *name, uint64_t value_hi, const uint64_t *words,
             size_t nwords);

#endif
