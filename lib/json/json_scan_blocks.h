/* The bodies of json_scan.c's block loops, made once per instruction
 * set: JS_NAME, JS_SKIM_NAME, JS_TARGET, JS_MASKS (quote, backslash,
 * structural and 'P'/'C' masks of 64 bytes) and JS_PXOR (prefix XOR) are
 * defined by the includer. */

/* Inside a container element, outside strings and comments: 64 bytes a
 * step while 64 are left. Returns where it stopped: after the bracket
 * that closed the element (*ended), at a '/' outside strings, or at the
 * last short block, the string state carried into the byte loop. */
JS_TARGET static size_t JS_NAME(json_scan *s, const unsigned char *data, size_t n, size_t i,
                          uint64_t off, uint64_t begin, int *ended)
{
    uint64_t in_str = 0;   /* all ones: the last block ended inside a string */
    uint64_t esc = 0;      /* 1: its last byte escapes this block's first */
    const size_t from = i;
    int done = 0;          /* *ended, kept in a register */
    while (n - i >= 64) {
        const size_t base = i;
        const unsigned char *p = data + i;
        uint64_t q = 0, bs = 0, st = 0, pc = 0;
        JS_MASKS(p, q, bs, st, pc);
        uint64_t umark = 0; /* escaped 'u's */
        if (bs | esc) {
            uint64_t escaped = escaped_bytes(bs, &esc);
            q &= ~escaped;
            for (uint64_t e = escaped; e; e &= e - 1)
                if (p[__builtin_ctzll(e)] == 'u')
                    umark |= e & -e;
        }
        uint64_t inside = JS_PXOR(q) ^ in_str; /* opening quote in, closing out */
        uint64_t open = q & inside;
        /* markers are "P" and "CpuProfile": an opening quote with a 'P'
         * or 'C' after it and a quote 2 or 11 bytes on, or too near the
         * edge to tell, is checked (most records hold strings of 1 or 10
         * bytes, "X" or "__metadata": checking each cost a fifth of the
         * scan) */
        uint64_t cand = open & ((pc >> 1) | (1ull << 63));
        if (cand)
            cand &= (q >> 2) | (q >> 11) | (0x7ffull << 53);
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
            if (c & 2) { /* '{' '[' (0x7b 0x5b), not '}' ']' (0x7d 0x5d) */
                push(s, c);
            } else if (--s->nest == 0) {
                upto = k == 63 ? ~0ull : (2ull << k) - 1;
                /* the element ends: when it is not marked and the next
                 * begins in this block after blanks and a comma, before
                 * begin, it is read on here (what the byte loop does) */
                size_t j = k + 1;
                while (j < 64 && js_gap_byte[p[j]])
                    j++;
                int more = j < 64 && (p[j] | 0x20) == '{' && off + base + j < begin &&
                           !s->marked && !(umark & upto);
                for (uint64_t m = cand & upto; more && m; m &= m - 1)
                    if (marker_at(data, n, base + (size_t)__builtin_ctzll(m)))
                        more = 0;
                if (!more) {
                    s->elem = JS_GAP;
                    done = 1;
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
        if (upto != ~0ull || done) {
            *ended = done;
            return i; /* outside any string */
        }
        in_str = (uint64_t)((int64_t)inside >> 63);
        i += 64;
    }
    if (in_str) {
        /* the string began at the last quote no odd run of backslashes
         * (counted from where this call began, as the blocks do) escapes:
         * found here, not block by block */
        size_t k = i;
        for (;;) {
            while (k > from && data[--k] != '"')
                ;
            size_t b = 0;
            while (k - b > from && data[k - b - 1] == '\\')
                b++;
            if (b % 2 == 0 || k == from)
                break;
        }
        s->str_start = off + k;
    }
    s->in_str = in_str != 0;
    s->esc = (int)esc;
    return i;
}

/* Skimming: blocks wholly before begin, inside the array's elements, are
 * read for the nesting depth alone: no element end is looked at, no
 * container kind kept, no branch taken on a bracket's kind. What the
 * blocks above do per element (its end, the gap after it, the next
 * one's start) and per bracket (the stack) was most of the scan's cost
 * beyond the masks. The skim stops before a block where anything needs
 * the exact scan: a '/' or a marker candidate or an escaped 'u' outside
 * strings, the array's end (the depth going below zero), a block that
 * reaches begin, or the last short block; and when it has gone
 * JS_SKIM_SPAN bytes without an element beginning. It then puts the scanner
 * back where it last knew the whole state, the start of the last element
 * begun (between two elements: the state is nothing but had_value) or
 * where it was called, and returns that index: the exact scan reads the
 * bytes from there again (one element, or at most JS_SKIM_SPAN), and
 * s->skim_after keeps the skim away until it is past the block that
 * stopped it. Called inside a container element, outside strings and
 * comments, with the element unmarked. */
JS_TARGET static size_t JS_SKIM_NAME(json_scan *s, const unsigned char *data, size_t n, size_t i,
                                     uint64_t off, uint64_t begin)
{
    const size_t from = i;
    uint64_t depth = s->nest; /* containers open, the element's included */
    size_t last = SIZE_MAX;   /* the last element begun here: its '{' or '[' */
    uint64_t in_str = 0, esc = 0;
    /* blocks start at most at lim (the input's last whole block, and the
     * last one wholly before begin; the caller checked the first) and
     * JS_SKIM_SPAN past where the state was last known */
    size_t lim = n - 64;
    if (begin - off - 64 < lim)
        lim = (size_t)(begin - off - 64);
    size_t stop = lim < from + JS_SKIM_SPAN ? lim : from + JS_SKIM_SPAN;
    while (i <= stop) {
        const unsigned char *p = data + i;
        uint64_t q = 0, bs = 0, st = 0, pc = 0;
        JS_MASKS(p, q, bs, st, pc);
        uint64_t next_esc = esc;
        if (bs | esc) {
            uint64_t escaped = escaped_bytes(bs, &next_esc);
            q &= ~escaped;
            int umark = 0;
            for (uint64_t e = escaped; e; e &= e - 1)
                umark |= p[__builtin_ctzll(e)] == 'u';
            if (umark)
                break;
        }
        uint64_t inside = JS_PXOR(q) ^ in_str;
        uint64_t cand = q & inside & ((pc >> 1) | (1ull << 63));
        if (cand) {
            int marker = 0;
            for (cand &= (q >> 2) | (q >> 11) | (0x7ffull << 53); cand; cand &= cand - 1)
                marker |= marker_at(data, n, i + (size_t)__builtin_ctzll(cand));
            if (marker)
                break;
        }
        st &= ~inside;
        uint64_t d = depth, lk = 64;
        uint64_t all = 0x40; /* bit 6 of every bracket: cleared by a '/' */
        uint64_t low = 0;    /* bit 63: the depth went below zero */
        while (st) {
            uint64_t k = (uint64_t)__builtin_ctzll(st);
            uint64_t c = p[k];
            lk = d == 0 ? k : lk;
            all &= c;
            d = d + (c & 2) - 1; /* opens +1, closes -1 */
            low |= d;
            st &= st - 1;
        }
        if (!all || (int64_t)low < 0)
            break; /* a '/', or the array closes here */
        depth = d;
        if (lk != 64) {
            last = i + (size_t)lk;
            stop = lim < i + JS_SKIM_SPAN ? lim : i + JS_SKIM_SPAN;
        }
        esc = next_esc;
        in_str = (uint64_t)((int64_t)inside >> 63);
        i += 64;
    }
    s->skim_after = off + i + 64;
    if (last != SIZE_MAX) {
        /* between two elements, just before the last one's bracket */
        s->elem = JS_GAP;
        s->nest = 0;
        s->marked = 0;
        return last;
    }
    return from; /* the state as called */
}
