/* name_table: see name_table.h. */
#include "name_table.h"

#include <stdlib.h>
#include <string.h>

#define INITIAL_SLOTS 1024u
#define INITIAL_ENTRIES 256u
#define INITIAL_ARENA (16u * 1024u)

int name_table_init(name_table *t)
{
    memset(t, 0, sizeof *t);
    t->entries = calloc(INITIAL_ENTRIES, sizeof *t->entries);
    t->slots = calloc(INITIAL_SLOTS, sizeof *t->slots);
    t->arena = malloc(INITIAL_ARENA);
    if (!t->entries || !t->slots || !t->arena) {
        name_table_free(t);
        return -1;
    }
    t->entries_cap = INITIAL_ENTRIES;
    t->n_slots = INITIAL_SLOTS;
    t->arena_cap = INITIAL_ARENA;
    t->n_entries = 1; /* NAME_OTHER */
    return 0;
}

void name_table_free(name_table *t)
{
    free(t->entries);
    free(t->slots);
    free(t->arena);
    memset(t, 0, sizeof *t);
}

const char *name_table_str(const name_table *t, uint32_t id, size_t *len)
{
    if (id == NAME_OTHER) {
        *len = 7;
        return "(other)";
    }
    *len = t->entries[id].len;
    return t->arena + t->entries[id].str_off;
}

#define ID_MASK ((1u << NAME_SLOT_ID_BITS) - 1)
_Static_assert(NAME_TABLE_MAX_NAMES + 1 <= ID_MASK, "entry indices must fit a slot");

/* The hash bits kept in a slot above the entry index. */
static uint32_t slot_tag(uint64_t h)
{
    return (uint32_t)(h >> (32 + NAME_SLOT_ID_BITS)) << NAME_SLOT_ID_BITS;
}

static uint32_t find_slot(const name_table *t, const char *s, size_t len,
                          uint64_t h, int *found)
{
    uint32_t mask = t->n_slots - 1;
    uint32_t i = (uint32_t)h & mask;
    uint32_t tag = slot_tag(h);
    for (;;) {
        uint32_t v = t->slots[i];
        uint32_t id = v & ID_MASK;
        if (id == 0) {
            *found = 0;
            return i;
        }
        if ((v & ~ID_MASK) == tag) {
            const name_entry *e = &t->entries[id];
            if (e->len == len && str_eq(t->arena + e->str_off, s, len)) {
                *found = 1;
                return i;
            }
        }
        i = (i + 1) & mask;
    }
}

/* Doubles the slot array, keeping the load at or below three quarters. */
static int grow_slots(name_table *t)
{
    uint32_t n = t->n_slots * 2;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    free(t->slots);
    t->slots = slots;
    t->n_slots = n;
    for (uint32_t id = 1; id < t->n_entries; id++) {
        const name_entry *e = &t->entries[id];
        uint64_t h = str_hash(t->arena + e->str_off, e->len);
        uint32_t i = (uint32_t)h & (n - 1);
        while (slots[i] != 0)
            i = (i + 1) & (n - 1);
        slots[i] = id | slot_tag(h);
    }
    return 0;
}

static int grow_entries(name_table *t)
{
    uint32_t cap = t->entries_cap * 2;
    if (cap > NAME_TABLE_MAX_NAMES + 1)
        cap = NAME_TABLE_MAX_NAMES + 1;
    name_entry *e = realloc(t->entries, (size_t)cap * sizeof *e);
    if (!e)
        return -1;
    t->entries = e;
    t->entries_cap = cap;
    return 0;
}

static int grow_arena(name_table *t, size_t need)
{
    size_t cap = t->arena_cap;
    while (cap < need)
        cap *= 2;
    if (cap > NAME_TABLE_MAX_BYTES)
        cap = NAME_TABLE_MAX_BYTES;
    if (cap < need)
        return -1;
    char *a = realloc(t->arena, cap);
    if (!a)
        return -1;
    t->arena = a;
    t->arena_cap = (uint32_t)cap;
    return 0;
}

uint32_t name_table_intern_slow(name_table *t, const void *key, const char *s, size_t len,
                                struct name_cache *c)
{
    uint64_t h = str_hash(s, len);
    int found;
    uint32_t slot = find_slot(t, s, len, h, &found);
    if (found) {
        c->ptr = key;
        c->len = (uint32_t)len;
        c->id = t->slots[slot] & ID_MASK;
        return c->id;
    }

    if (t->n_entries > NAME_TABLE_MAX_NAMES)
        goto full;
    if (t->n_entries == t->entries_cap && grow_entries(t) != 0)
        goto full;
    if ((size_t)t->arena_len + len > t->arena_cap &&
        grow_arena(t, (size_t)t->arena_len + len) != 0)
        goto full;
    if ((uint64_t)(t->n_entries + 1) * 4 > (uint64_t)t->n_slots * 3) {
        if (grow_slots(t) != 0)
            goto full;
        slot = find_slot(t, s, len, h, &found);
    }
    uint32_t id = t->n_entries++;
    name_entry *e = &t->entries[id];
    e->count = 0;
    e->total_dur = 0;
    e->str_off = t->arena_len;
    e->len = (uint32_t)len;
    memcpy(t->arena + t->arena_len, s, len);
    t->arena_len += (uint32_t)len;
    t->slots[slot] = id | slot_tag(h);
    c->ptr = key;
    c->len = (uint32_t)len;
    c->id = id;
    return id;
full:
    t->capped = 1;
    return NAME_OTHER;
}
