/* topn: see topn.h. The heap keeps the worst kept item at its root, so a
 * new item only has to beat the root to get in. */
#include "topn.h"

typedef struct heap {
    const void *ctx;
    topn_before_fn before;
    uint32_t *a;
    size_t n;
} heap;

/* "Worse" is the heap order: the root is the item every other beats. */
static int worse(const heap *h, uint32_t x, uint32_t y)
{
    return h->before(h->ctx, y, x);
}

static void sift_down(heap *h, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && worse(h, h->a[l], h->a[m]))
            m = l;
        if (r < h->n && worse(h, h->a[r], h->a[m]))
            m = r;
        if (m == i)
            return;
        uint32_t t = h->a[i];
        h->a[i] = h->a[m];
        h->a[m] = t;
        i = m;
    }
}

static void sift_up(heap *h, size_t i)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!worse(h, h->a[i], h->a[p]))
            return;
        uint32_t t = h->a[i];
        h->a[i] = h->a[p];
        h->a[p] = t;
        i = p;
    }
}

size_t topn_select(const void *ctx, uint32_t n, topn_eligible_fn eligible,
                   topn_before_fn before, uint32_t *out, size_t k)
{
    heap h = {ctx, before, out, 0};
    if (k == 0)
        return 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!eligible(ctx, i))
            continue;
        if (h.n < k) {
            h.a[h.n++] = i;
            sift_up(&h, h.n - 1);
        } else if (before(ctx, i, h.a[0])) {
            h.a[0] = i;
            sift_down(&h, 0);
        }
    }
    /* Heap sort in place: pop the worst to the back until sorted. */
    size_t count = h.n;
    while (h.n > 1) {
        uint32_t t = h.a[0];
        h.a[0] = h.a[h.n - 1];
        h.a[h.n - 1] = t;
        h.n--;
        sift_down(&h, 0);
    }
    return count;
}
