/* test_format_counter (testlib.h): its own object, so that tests which
 * link the library's sources rather than libtread do not need it. */
#include "testlib.h"

uint64_t test_format_counter(const tread_parser *p, const char *name)
{
    tread_counter cs[256];
    size_t n = tread_get_format_counters(p, cs, 256);
    test_checks++;
    for (size_t i = 0; i < n && i < 256; i++)
        if (strcmp(cs[i].name, name) == 0)
            return cs[i].value;
    fprintf(stderr, "no format counter %s (of %zu)\n", name, n);
    test_failures++;
    return 0;
}
