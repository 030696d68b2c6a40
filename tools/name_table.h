/*
 * name_table: event names with their count and total duration, for
 * `tread stats`. Open addressing over a dense entry array; names are copied
 * into one arena (event strings live only during the callback). Memory is
 * capped: past NAME_TABLE_MAX_NAMES distinct names or NAME_TABLE_MAX_BYTES
 * of name text, new names are counted under the "(other)" entry.
 */
#ifndef TREAD_TOOLS_NAME_TABLE_H
#define TREAD_TOOLS_NAME_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "str_hash.h"

#define NAME_TABLE_MAX_NAMES 100000u
#define NAME_TABLE_MAX_BYTES (4u * 1024u * 1024u)
/* Longer names are kept (and told apart) by their first bytes only. */
#define NAME_TABLE_MAX_NAME_LEN 1024u
/* Entry 0 stands for every name that did not fit. */
#define NAME_OTHER 0u

typedef struct name_entry {
    uint64_t count;       /* events with this name (E events excluded) */
    int64_t total_dur;    /* ns: X durations and matched B/E pairs */
    uint32_t str_off;     /* into the arena */
    uint32_t len;
} name_entry;

#define NAME_TABLE_CACHE 1024u /* a power of two */
#define NAME_SLOT_ID_BITS 17u /* NAME_TABLE_MAX_NAMES + 1 fits */

typedef struct name_table {
    name_entry *entries;  /* [0] is "(other)"; real names from 1 */
    uint32_t n_entries;
    uint32_t entries_cap;
    uint32_t *slots;      /* entry index (0: empty) in the low
                             NAME_SLOT_ID_BITS, the top bits of the name's
                             hash above: most probes that miss never touch
                             the entry. Four bytes a slot and a load of up
                             to 3/4: the 41k names of gen_stress need
                             256 KiB of slots, not 1 MiB, which missed the
                             L2 cache on most lookups */
    uint32_t n_slots;     /* a power of two */
    char *arena;
    uint32_t arena_len;
    uint32_t arena_cap;
    int capped;           /* some names went to "(other)" */
    /* recently interned names by address (checked by content: the same
     * address may hold another name later) */
    struct name_cache {
        const void *ptr;
        uint32_t len, id;
    } cache[NAME_TABLE_CACHE];
} name_table;

/* Returns 0, or -1 when out of memory. */
int name_table_init(name_table *t);
void name_table_free(name_table *t);

/* name_table_intern_keyed past its cache (c: the cache line of key). */
uint32_t name_table_intern_slow(name_table *t, const void *key, const char *s, size_t len,
                                struct name_cache *c);

/* name_table_intern with the cache keyed by key, the address the name had
 * where it came from, while s holds a copy of it (stats_async.h): a key
 * seen again costs an equality test of the copy, no hashing. */
static inline uint32_t name_table_intern_keyed(name_table *t, const void *key, const char *s,
                                               size_t len)
{
    if (len > NAME_TABLE_MAX_NAME_LEN)
        len = NAME_TABLE_MAX_NAME_LEN;
    uintptr_t a = (uintptr_t)key;
    struct name_cache *c = &t->cache[(a ^ (a >> 9)) & (NAME_TABLE_CACHE - 1)];
    if (c->ptr == key && c->len == len && c->id &&
        str_eq(t->arena + t->entries[c->id].str_off, s, len))
        return c->id;
    return name_table_intern_slow(t, key, s, len, c);
}

/* The entry index for a name, adding it if new; NAME_OTHER when the table
 * is full (or memory ran out). Inline: a name found by its address (an
 * FXT string table entry keeps its address from event to event) costs an
 * equality test, no hashing. */
static inline uint32_t name_table_intern(name_table *t, const char *s, size_t len)
{
    return name_table_intern_keyed(t, s, s, len);
}

static inline name_entry *name_table_entry(name_table *t, uint32_t id)
{
    return &t->entries[id];
}

/* The name's text (not NUL-terminated) and length. */
const char *name_table_str(const name_table *t, uint32_t id, size_t *len);

/* Distinct names stored (not counting "(other)"). */
static inline uint32_t name_table_count(const name_table *t)
{
    return t->n_entries - 1;
}

#endif
