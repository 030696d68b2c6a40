/*
 * event_filter: which events to keep, checked in the parser's event
 * callback. One filter serves `tread cat` (tools/cmd_cat.c) and the Python
 * module's open(..., kinds=, name=, ...) (python/py_filter.c), so that both
 * mean the same thing by the same words.
 *
 *   kinds      a set of tread_event_kind
 *   names      patterns on the event's name; an event passes when one
 *              matches. A pattern is a prefix, or a glob when it holds
 *              *, ? or [ (matched against the whole name); see
 *              event_filter_add_pattern.
 *   cats       the same on the category text (the whole "a,b" string)
 *   pids, tids an event passes when its pid (tid) is one of them; events
 *              without one fail
 *   start, end ns: events overlapping [start, end) pass, i.e. ts < end and
 *              ts + dur >= start; events without a timestamp (metadata)
 *              always pass the time condition
 *
 * All conditions given must hold. Memory: the caller's allocator-free
 * malloc; a filter holds only what it was given.
 */
#ifndef TREAD_TOOLS_EVENT_FILTER_H
#define TREAD_TOOLS_EVENT_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include <tread.h>

typedef enum ef_match {
    EF_PREFIX = 0, /* the text starts with the pattern */
    EF_GLOB,       /* fnmatch-like over the whole text: * ? [set] [!set] */
    EF_AUTO        /* EF_GLOB when the pattern holds * ? or [, else EF_PREFIX */
} ef_match;

typedef struct ef_pattern {
    char *s;
    size_t len;
    int glob;
} ef_pattern;

typedef struct ef_patterns {
    ef_pattern *v;
    size_t n, cap;
} ef_patterns;

typedef struct ef_ids {
    int64_t *v;
    size_t n, cap;
} ef_ids;

typedef struct event_filter {
    int active;                 /* any condition set (event_filter_finish) */
    int has_kinds;
    uint64_t kinds;             /* bit k: tread_event_kind k passes */
    ef_patterns names, cats;    /* n == 0: no condition */
    ef_ids pids, tids;          /* n == 0: no condition */
    int has_start, has_end;
    int64_t start, end;         /* ns */
} event_filter;

void event_filter_init(event_filter *f);
void event_filter_free(event_filter *f);

/* Adds a kind by name (tread_event_kind_name); 0, or -1 when no kind has
 * that name. */
int event_filter_add_kind_name(event_filter *f, const char *name);

/* Adds a pattern to f->names or f->cats; 0, or -1 out of memory. */
int event_filter_add_pattern(ef_patterns *p, const char *s, size_t len, ef_match how);

/* Adds a pid or tid; 0, or -1 out of memory. */
int event_filter_add_id(ef_ids *ids, int64_t v);

/* Sets f->active from what was added: call after the last add. */
void event_filter_finish(event_filter *f);

/* 1 if ev passes every condition. */
int event_filter_pass(const event_filter *f, const tread_event *ev);

/* A glob over explicit lengths: * (any run), ? (one byte), [abc] [a-z]
 * [!abc] (one byte in / not in the set). 1 on a match. */
int ef_glob_match(const char *pat, size_t plen, const char *s, size_t slen);

/* A time such as "1500", "1.5s", "200ms", "3us", "-2.5ms" into ns (a bare
 * number is ns). 0, or -1 when malformed or out of int64 range. */
int ef_parse_time(const char *s, int64_t *ns);

#endif
