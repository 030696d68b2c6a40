/* process_table: see process_table.h. */
#include "process_table.h"

#include <stdlib.h>
#include <string.h>

#define INITIAL_SLOTS 64u
#define INITIAL_LABELS 4096u

int process_table_init(process_table *t)
{
    memset(t, 0, sizeof *t);
    t->slots = calloc(INITIAL_SLOTS, sizeof *t->slots);
    t->labels = malloc(INITIAL_LABELS);
    if (!t->slots || !t->labels) {
        process_table_free(t);
        return -1;
    }
    t->n_slots = INITIAL_SLOTS;
    t->labels_cap = INITIAL_LABELS;
    return 0;
}

void process_table_free(process_table *t)
{
    free(t->slots);
    free(t->labels);
    memset(t, 0, sizeof *t);
}

static uint32_t hash_pid(int64_t pid)
{
    uint64_t h = (uint64_t)pid * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h ^ (h >> 32));
}

static int grow(process_table *t)
{
    uint32_t n = t->n_slots * 2;
    process_entry *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (uint32_t i = 0; i < t->n_slots; i++) {
        if (!t->slots[i].used)
            continue;
        uint32_t j = hash_pid(t->slots[i].pid) & (n - 1);
        while (slots[j].used)
            j = (j + 1) & (n - 1);
        slots[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->n_slots = n;
    t->gen++;
    return 0;
}

process_entry *process_table_get(process_table *t, int64_t pid)
{
    uint32_t mask = t->n_slots - 1;
    uint32_t i = hash_pid(pid) & mask;
    while (t->slots[i].used) {
        if (t->slots[i].pid == pid)
            return &t->slots[i];
        i = (i + 1) & mask;
    }
    if (t->n_used >= PROCESS_TABLE_MAX) {
        t->capped = 1;
        return NULL;
    }
    if ((t->n_used + 1) * 2 > t->n_slots) {
        if (grow(t) != 0) {
            t->capped = 1;
            return NULL;
        }
        return process_table_get(t, pid);
    }
    process_entry *e = &t->slots[i];
    memset(e, 0, sizeof *e);
    e->used = 1;
    e->pid = pid;
    t->n_used++;
    return e;
}

void process_set_label(process_table *t, process_entry *e, const char *s,
                       size_t len, int is_name)
{
    if (len > PROCESS_LABEL_MAX_LEN)
        len = PROCESS_LABEL_MAX_LEN;
    if (e->has_label) {
        if (!is_name)
            return; /* a string pid's text is only a fallback */
        /* Repeated process_name events must not fill the label space. */
        if (e->label_is_name && e->label_len == len &&
            memcmp(t->labels + e->label_off, s, len) == 0)
            return;
    }
    size_t need = (size_t)t->labels_len + len;
    if (need > t->labels_cap) {
        size_t cap = t->labels_cap;
        while (cap < need)
            cap *= 2;
        if (cap > PROCESS_LABEL_BYTES)
            cap = PROCESS_LABEL_BYTES;
        if (cap < need)
            return;
        char *p = realloc(t->labels, cap);
        if (!p)
            return;
        t->labels = p;
        t->labels_cap = (uint32_t)cap;
    }
    memcpy(t->labels + t->labels_len, s, len);
    e->label_off = t->labels_len;
    e->label_len = (uint32_t)len;
    e->has_label = 1;
    e->label_is_name = (uint8_t)(is_name != 0);
    t->labels_len += (uint32_t)len;
}
