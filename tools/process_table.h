/*
 * process_table: one entry per pid for `tread stats`: events, threads and
 * a label (the process_name metadata, else the text of a string pid).
 * Bounded: PROCESS_TABLE_MAX processes and PROCESS_LABEL_BYTES of labels,
 * each cut to PROCESS_LABEL_MAX_LEN bytes.
 */
#ifndef TREAD_TOOLS_PROCESS_TABLE_H
#define TREAD_TOOLS_PROCESS_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define PROCESS_TABLE_MAX 32768u
#define PROCESS_LABEL_BYTES (1024u * 1024u)
#define PROCESS_LABEL_MAX_LEN 256u

typedef struct process_entry {
    int64_t pid;
    uint64_t events;
    uint32_t threads;
    uint32_t label_off;
    uint32_t label_len;
    uint8_t used;
    uint8_t has_label;
    uint8_t label_is_name; /* from process_name, not from a string pid */
} process_entry;

typedef struct process_table {
    process_entry *slots;
    uint32_t n_slots;      /* a power of two */
    uint32_t n_used;
    char *labels;
    uint32_t labels_len;
    uint32_t labels_cap;
    int capped;            /* some processes were not tracked */
    uint32_t gen;          /* changes whenever entries move (a grow):
                              a process_entry * kept with the gen it was
                              found at is valid while they are equal */
} process_table;

int process_table_init(process_table *t);
void process_table_free(process_table *t);

/* The entry for pid, created if new; NULL when the table is full. */
process_entry *process_table_get(process_table *t, int64_t pid);

/* Sets the label; a process_name (is_name) wins over a string pid's text.
 * Silently keeps the old one when the label space is used up. */
void process_set_label(process_table *t, process_entry *e, const char *s,
                       size_t len, int is_name);

static inline const char *process_label(const process_table *t,
                                        const process_entry *e)
{
    return t->labels + e->label_off;
}

#endif
