/*
 * The systrace container decoder (TREAD_FORMAT_SYSTRACE): Android systrace
 * HTML and ctrace ("TRACE:\n" then zlib, as `atrace -z` writes it).
 *
 * HTML: the tags are read one at a time; the content of each
 *   <script class="trace-data" ...>  (ftrace text or JSON, or base64 of
 *                                    zlib/gzip data),
 *   <script id="viewer-data" ...>    (trace2html: base64 of gzip),
 *   <script> var linuxPerfData = "\  (2012 systrace: a JS string)
 * up to its </script> is a sub-trace (sys_sub.h), decoded as it streams
 * by; a trace-data block titled PROCESS DUMP or CGROUP DUMP is read by
 * sys_pdump.h instead. Other scripts (the inlined trace viewer) are
 * skipped.
 * ctrace: what precedes "TRACE:\n" is skipped, the zlib stream after it is
 * inflated into one sub-trace; bytes after its end are a counted warning.
 *
 * Memory: a tag buffer (SYS_MAX_TAG_BYTES), the base64 and inflate state
 * (32 KiB window), one sub-trace. Nothing grows with the input.
 */
#ifndef TREAD_SYSTRACE_DECODER_H
#define TREAD_SYSTRACE_DECODER_H

/* Longest tag read whole; a longer one is skipped unread (a data block's
 * opening tag is about 50 bytes). */
#define SYS_MAX_TAG_BYTES 1024
/* Bytes before "TRACE:\n" that a ctrace may carry (adb's own messages). */
#define SYS_MAX_PREAMBLE_BYTES 4096

#endif
