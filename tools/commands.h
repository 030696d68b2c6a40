/*
 * The `tread` commands. Each returns the process exit status.
 */
#ifndef TREAD_TOOLS_COMMANDS_H
#define TREAD_TOOLS_COMMANDS_H

#include "cli_options.h"

int cmd_cat(const cli_options *opt);
int cmd_stats(const cli_options *opt);

#endif
