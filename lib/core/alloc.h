/* Allocation through the caller's hooks (tread_allocator), as yajl does. */
#ifndef TREAD_CORE_ALLOC_H
#define TREAD_CORE_ALLOC_H

#include <tread.h>

typedef tread_allocator tread_alloc;

void tread_alloc_init(tread_alloc *a, const tread_allocator *user);
/* 1 when a is malloc/realloc/free (no tread_allocator was given). */
int tread_alloc_is_default(const tread_alloc *a);
void *tread_malloc(const tread_alloc *a, size_t n);
void *tread_realloc(const tread_alloc *a, void *p, size_t n);
void tread_free(const tread_alloc *a, void *p);
/* n bytes aligned to 64 (a cache line) from the hooks, or NULL; *mem is
 * what to tread_free. For a decoder's own event, written field by field
 * for every event: inside the decoder struct, the 16-byte store of pid and
 * tid straddled a page boundary and cost 11% of a Perfetto decode. */
void *tread_malloc_line(const tread_alloc *a, size_t n, void **mem);

#endif
