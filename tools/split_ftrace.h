/*
 * split_ftrace: ftrace text split into ftrace text pieces, lines copied
 * byte for byte (doc/convert.md, "tread split"). Fed from the raw line
 * hook (include/tread/ftrace.h): every line of every ftrace text of the
 * input, top-level or inside a container (systrace HTML blocks, ctrace,
 * after base64 and inflate). Each piece holds lines of one text: its
 * header (the header lines before the text's first other line: `# tracer:`,
 * the column legend, trace-cmd report's `version = N` and `cpus=N`, at
 * most SPLIT_FTRACE_MAX_HEADER_BYTES, and the `cpus=N` line in force),
 * then whole lines in input order. The ftrace decoder reads every line
 * alone (doc/formats/ftrace.md), so a line reads the same in a piece as in
 * the whole; the header makes each piece recognised as ftrace text. A piece
 * whose header and first line do not, whatever lines follow (bare
 * trace_pipe output has no header), starts with a `# tracer` line.
 *
 * Lines longer than TREAD_OPT_MAX_LINE_BYTES are not held by the decoder
 * (it skips them with a warning): they are counted, not copied. Memory:
 * the header and one line.
 */
#ifndef TREAD_TOOLS_SPLIT_FTRACE_H
#define TREAD_TOOLS_SPLIT_FTRACE_H

#include <tread.h>
#include <tread/ftrace.h>

#include "split_pieces.h"

/* The header repeated at the start of each piece, at most (and at most
 * half of --max-bytes); header lines past it are not repeated (a note
 * says how many). */
#define SPLIT_FTRACE_MAX_HEADER_BYTES (8u << 10)

/* The line a piece starts with when the text's header and its first line
 * would not make it read as ftrace text whatever lines follow (a bare
 * trace_pipe text has no header; a later line could hold a ctrace
 * marker): the sniffer takes a text that starts with it for ftrace
 * (doc/convert.md). */
#define SPLIT_FTRACE_TRACER_LINE "# tracer\n"

typedef struct split_ftrace split_ftrace;

split_ftrace *split_ftrace_new(split_pieces *sp /* suffix "txt" */);
int split_ftrace_line(split_ftrace *s, const tread_ftrace_line *l); /* 0 / -1 */
int split_ftrace_finish(split_ftrace *s);   /* ends the last piece; 0 / -1 */
const char *split_ftrace_error(const split_ftrace *s);
uint64_t split_ftrace_too_long(const split_ftrace *s);      /* lines not copied */
uint64_t split_ftrace_header_dropped(const split_ftrace *s); /* header lines not
                                                               repeated */
uint64_t split_ftrace_tracer_lines(const split_ftrace *s);  /* SPLIT_FTRACE_TRACER_LINE
                                                               written */
void split_ftrace_free(split_ftrace *s);

#endif
