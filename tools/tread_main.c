/*
 * tread: the command-line tool. Parses the command line and hands over to
 * a command (cmd_*.c). See doc/tread.1.
 */
#include <stdio.h>

#include <tread.h>

#include "cli_options.h"
#include "commands.h"

static int run(const cli_options *opt)
{
    if (opt->show_help) {
        cli_print_help(stdout, opt->command);
        return fflush(stdout) == 0 ? 0 : EXIT_INPUT_ERROR;
    }
    if (opt->show_version) {
        printf("tread %s\n", tread_version());
        return fflush(stdout) == 0 ? 0 : EXIT_INPUT_ERROR;
    }
    switch (opt->command) {
    case CLI_CMD_STATS:
        return cmd_stats(opt);
    case CLI_CMD_CAT:
        return cmd_cat(opt);
    case CLI_CMD_CONVERT:
        return cmd_convert(opt);
    case CLI_CMD_SPLIT:
        return cmd_split(opt);
    case CLI_CMD_HELP:
    case CLI_CMD_NONE:
        break;
    }
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    cli_options opt;
    int rc = cli_parse_args(&opt, argc, argv);
    if (rc == 0)
        rc = run(&opt);
    cli_options_free(&opt);
    return rc;
}
