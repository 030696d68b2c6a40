/* Allocator hooks for tests of the decompression thread: thread-safe,
 * counting the blocks alive and the calls made from any thread other than
 * the one that last called test_thread_alloc_reset. */
#ifndef TREAD_TEST_THREAD_ALLOC_H
#define TREAD_TEST_THREAD_ALLOC_H

#include <tread.h>

extern const tread_allocator test_thread_alloc;

/* Counts from zero, calls from here on this thread count as its own. */
void test_thread_alloc_reset(void);
long test_thread_alloc_live(void);      /* blocks allocated, not freed */
long test_thread_alloc_elsewhere(void); /* calls from other threads */

#endif
