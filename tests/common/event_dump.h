/* Canonical text of every event, warning and raw record a parse delivers:
 * what the chunk-boundary, resume and unit tests compare. */
#ifndef TREAD_EVENT_DUMP_H
#define TREAD_EVENT_DUMP_H

#include <stddef.h>
#include <tread.h>
#include <tread/json.h>

typedef struct dump {
    char *text;          /* NUL-terminated, one line per item */
    size_t len, cap;
    size_t events, warnings;
    size_t stop_every;   /* >0: the event callback asks to stop every N events */
    size_t stops;        /* how many stops were asked for */
    uint64_t fast_records; /* stats.fast_records after dump_parse (not in text,
                              which must not depend on the path taken) */
    uint64_t blob_hash, blob_bytes; /* the blob being received */
    size_t max_stops;    /* >0: give up resuming after that many stops (a
                            parser that pauses forever is then reported by
                            a RUNAWAY line, not a hang) */
    int packets;         /* also a line per Perfetto packet (the
                            perfetto_packet raw hook) */
    size_t packets_seen;
    size_t stop_packets_every; /* >0: the raw hook asks to stop every N
                                  packets */
} dump;

void dump_init(dump *d);
void dump_free(dump *d);
/* Callbacks that append to the dump (user pointer: dump *). */
extern const tread_callbacks dump_callbacks;
/* Appends one event / arg list as text. */
void dump_event(dump *d, const tread_event *ev);
void dump_args(dump *d, const tread_args *a);
void dump_printf(dump *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Parses buf with the given chunk size (0: whole), resuming after every
 * stop, and returns the final status; the dump ends with a status line. */
tread_status dump_parse(dump *d, const void *buf, size_t len, size_t chunk,
                        const int64_t *opts /* pairs opt,value; 0-ended */);
/* The same with a parser made with allocator hooks (NULL: the default). */
tread_status dump_parse_alloc(dump *d, const void *buf, size_t len, size_t chunk,
                              const int64_t *opts, const tread_allocator *hooks);

/* The same read from fd by tread_parse_fd (resumed after every stop). */
tread_status dump_parse_fd(dump *d, int fd, const int64_t *opts);

/* The length of a dump's text without its status line (the last). */
size_t dump_body_len(const char *text);

/* Prints to stderr the first line where two dumps differ. */
void dump_show_difference(const char *want, const char *got);

/* Reads a whole file (for tests only). NULL on failure. */
unsigned char *dump_read_file(const char *path, size_t *len);

#endif
