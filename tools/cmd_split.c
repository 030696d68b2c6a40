/* tread split: a trace cut into pieces of at most --max-bytes that each
 * stand alone, for batch engines (doc/convert.md). */
#include "commands.h"

int cmd_split(const cli_options *opt)
{
    /* Without --to, Perfetto stays Perfetto and everything else becomes
     * JSON (the sink decides at the first event). */
    return convert_run(opt, NULL, opt->output, (uint64_t)opt->max_bytes);
}
