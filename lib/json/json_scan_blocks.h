/* The body of json_scan.c's block loop, made once per instruction set:
 * JS_NAME, JS_TARGET, JS_MASKS (quote, backslash and structural masks of
 * 64 bytes) and JS_PXOR (prefix XOR) are defined by the includer. */

/* Inside a container element, outside strings and comments: 64 bytes a
 * step while 64 are left. Returns where it stopped: after the bracket
 * that closed the element (*ended), at a '/' outside strings, or at the
 * last short block, the string state carried into the byte loop. */
JS_TARGET static size_t JS_NAME(json_scan *s, const unsigned char *data, size_t n, size_t i,
                          uint64_t off, uint64_t begin, int *ended)
{
    uint64_t in_str = 0;   /* all ones: the last block ended inside a string */
    uint64_t esc = 0;      /* 1: its last byte escapes this block's first */
    size_t open_at = 0;     /* the last opening quote */
    while (n - i >= 64) {
        const size_t base = i;
        const unsigned char *p = data + i;
        uint64_t q = 0, bs = 0, st = 0;
        JS_MASKS(p, q, bs, st);
        uint64_t umark = 0; /* escaped 'u's */
        if (bs | esc) {
            /* a backslash escapes the byte after it, which is then no
             * backslash of its own */
            uint64_t escaped = esc, b = bs & ~esc;
            esc = 0;
            while (b) {
                unsigned k = (unsigned)__builtin_ctzll(b);
                if (k == 63) {
                    esc = 1;
                    break;
                }
                escaped |= 1ull << (k + 1);
                b &= ~(3ull << k);
            }
            q &= ~escaped;
            for (uint64_t e = escaped; e; e &= e - 1)
                if (p[__builtin_ctzll(e)] == 'u')
                    umark |= e & -e;
        }
        uint64_t inside = JS_PXOR(q) ^ in_str; /* opening quote in, closing out */
        uint64_t open = q & inside;
        /* markers are strings of 1 or 10 bytes: an opening quote with a
         * quote 2 or 11 bytes on, or too near the edge to tell, is checked */
        uint64_t cand = open & ((q >> 2) | (q >> 11) | (0x7ffull << 53));
        st &= ~inside;
        uint64_t upto = ~0ull; /* the bytes of this element in the block */
        while (st) {
            unsigned k = (unsigned)__builtin_ctzll(st);
            unsigned char c = p[k];
            if (c == '/') {
                upto = (1ull << k) - 1;
                i += k;
                break;
            }
            if (c == '{' || c == '[') {
                push(s, c);
            } else if (--s->nest == 0) {
                upto = k == 63 ? ~0ull : (2ull << k) - 1;
                /* the element ends: when it is not marked and the next
                 * begins in this block after blanks and a comma, before
                 * begin, it is read on here (what the byte loop does) */
                size_t j = k + 1;
                while (j < 64 && (p[j] == ',' || p[j] == ' ' || p[j] == '\n' || p[j] == '\r' ||
                                  p[j] == '\t'))
                    j++;
                int more = j < 64 && (p[j] == '{' || p[j] == '[') && off + base + j < begin &&
                           !s->marked && !(umark & upto);
                for (uint64_t m = cand & upto; more && m; m &= m - 1)
                    if (marker_at(data, n, base + (size_t)__builtin_ctzll(m)))
                        more = 0;
                if (!more) {
                    s->elem = JS_GAP;
                    *ended = 1;
                    i += k + 1;
                    break;
                }
                cand &= ~upto; /* checked: none */
                umark &= ~upto;
                upto = ~0ull;
                s->had_before = 1;
                s->elem_start = off + base + j;
                push(s, p[j]);
                st &= j == 63 ? 0 : ~((2ull << j) - 1);
                continue;
            }
            st &= st - 1;
        }
        if (umark & upto)
            s->marked = 1;
        for (cand &= upto; cand; cand &= cand - 1)
            if (marker_at(data, n, base + (size_t)__builtin_ctzll(cand)))
                s->marked = 1;
        if (upto != ~0ull || *ended)
            return i; /* outside any string */
        in_str = (uint64_t)((int64_t)inside >> 63);
        if (in_str && open)
            open_at = i + 63 - (size_t)__builtin_clzll(open);
        i += 64;
    }
    if (in_str)
        s->str_start = off + open_at;
    s->in_str = in_str != 0;
    s->esc = (int)esc;
    return i;
}
