/*
 * The `tread` commands. Each returns the process exit status.
 */
#ifndef TREAD_TOOLS_COMMANDS_H
#define TREAD_TOOLS_COMMANDS_H

#include "cli_options.h"

int cmd_cat(const cli_options *opt);
int cmd_stats(const cli_options *opt);
int cmd_convert(const cli_options *opt);
int cmd_split(const cli_options *opt);

/* convert and split: the parse of opt->path into OUT (path) or pieces
 * PREFIX-NNNNN (prefix, max_bytes). */
int convert_run(const cli_options *opt, const char *path, const char *prefix,
                uint64_t max_bytes);

#endif
