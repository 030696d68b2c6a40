/* pos_index: see pos_index.h. */
#include "pos_index.h"

#include <stdlib.h>

#define FIRST_CAP 64u

void pos_index_init(pos_index *x)
{
    x->slot = NULL;
    x->cap = 0;
    x->n = 0;
}

void pos_index_free(pos_index *x)
{
    free(x->slot);
    pos_index_init(x);
}

static void put(pos_slot *slot, size_t cap, uint64_t hash, uint32_t pos1)
{
    size_t mask = cap - 1;
    size_t i = (size_t)hash & mask;
    while (slot[i].pos1)
        i = (i + 1) & mask;
    slot[i].hash = hash;
    slot[i].pos1 = pos1;
}

int pos_index_add(pos_index *x, uint64_t hash, size_t pos)
{
    if (pos >= UINT32_MAX - 1)
        return -1;
    if (2 * (x->n + 1) > x->cap) {
        size_t cap = x->cap ? x->cap * 2 : FIRST_CAP;
        if (cap > SIZE_MAX / sizeof(pos_slot))
            return -1;
        pos_slot *s = calloc(cap, sizeof *s);
        if (!s)
            return -1;
        for (size_t i = 0; i < x->cap; i++)
            if (x->slot[i].pos1)
                put(s, cap, x->slot[i].hash, x->slot[i].pos1);
        free(x->slot);
        x->slot = s;
        x->cap = cap;
    }
    put(x->slot, x->cap, hash, (uint32_t)(pos + 1));
    x->n++;
    return 0;
}

int pos_index_next(const pos_index *x, uint64_t hash, size_t *it, size_t *pos)
{
    if (!x->cap)
        return 0;
    size_t mask = x->cap - 1;
    /* *it counts the slots probed so far: the probe starts at the hash's
     * home slot and ends at the first empty one */
    for (size_t k = *it; k < x->cap; k++) {
        const pos_slot *s = &x->slot[((size_t)hash + k) & mask];
        if (!s->pos1)
            return *it = x->cap, 0;
        if (s->hash == hash) {
            *it = k + 1;
            *pos = s->pos1 - 1;
            return 1;
        }
    }
    *it = x->cap;
    return 0;
}
