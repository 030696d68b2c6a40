/* The parts of pf_wire.h kept out of line: the whole field reader (the
 * inline pf_next reads the common fields itself), group skipping, and
 * repeated scalars. */
#include "perfetto/pf_wire.h"

/* *pp is just after the start tag of group num; on PF_OK it is just after
 * the matching end tag. Nested groups are followed to PF_MAX_GROUP_DEPTH. */
int pf_skip_group(const unsigned char **pp, const unsigned char *end, uint32_t num)
{
    uint32_t open[PF_MAX_GROUP_DEPTH];
    int depth = 0;
    open[depth++] = num;
    const unsigned char *p = *pp;
    while (depth > 0) {
        uint64_t tag, v;
        if (pf_varint(&p, end, &tag) != PF_OK || (tag >> 3) == 0 || (tag >> 3) > UINT32_MAX)
            return PF_BAD;
        uint32_t n = (uint32_t)(tag >> 3);
        switch (tag & 7) {
        case PF_WIRE_VARINT:
            if (pf_varint(&p, end, &v) != PF_OK)
                return PF_BAD;
            break;
        case PF_WIRE_FIXED64:
            if (end - p < 8)
                return PF_BAD;
            p += 8;
            break;
        case PF_WIRE_FIXED32:
            if (end - p < 4)
                return PF_BAD;
            p += 4;
            break;
        case PF_WIRE_LEN:
            if (pf_varint(&p, end, &v) != PF_OK || v > (uint64_t)(end - p))
                return PF_BAD;
            p += v;
            break;
        case PF_WIRE_GROUP_START:
            if (depth == PF_MAX_GROUP_DEPTH)
                return PF_BAD;
            open[depth++] = n;
            break;
        case PF_WIRE_GROUP_END:
            if (open[depth - 1] != n)
                return PF_BAD;
            depth--;
            break;
        default:
            return PF_BAD;
        }
    }
    *pp = p;
    return PF_OK;
}

int pf_next_slow(pf_reader *r, pf_field *f)
{
    if (r->p >= r->end)
        return PF_END;
    const unsigned char *p = r->p;
    uint64_t tag, n;
    f->start = p;
    f->v = 0; /* every member is defined whatever the wire type */
    f->data = NULL;
    f->len = 0;
    if (pf_varint(&p, r->end, &tag) != PF_OK)
        return PF_BAD;
    if (tag < 8 || (tag >> 3) > UINT32_MAX)
        return PF_BAD;
    f->num = (uint32_t)(tag >> 3);
    f->wire = (int)(tag & 7);
    switch (f->wire) {
    case PF_WIRE_VARINT:
        if (pf_varint(&p, r->end, &f->v) != PF_OK)
            return PF_BAD;
        break;
    case PF_WIRE_FIXED64:
        if (r->end - p < 8)
            return PF_BAD;
        f->v = pf_le64(p);
        p += 8;
        break;
    case PF_WIRE_FIXED32:
        if (r->end - p < 4)
            return PF_BAD;
        f->v = pf_le32(p);
        p += 4;
        break;
    case PF_WIRE_LEN:
        if (pf_varint(&p, r->end, &n) != PF_OK || n > (uint64_t)(r->end - p))
            return PF_BAD;
        f->data = p;
        f->len = (size_t)n;
        p += n;
        break;
    case PF_WIRE_GROUP_START: {
        const unsigned char *q = p;
        if (pf_skip_group(&q, r->end, f->num) != PF_OK)
            return PF_BAD;
        f->data = p;
        /* the contents, without the end tag: a varint of (num << 3 | 4)
         * just before q */
        uint64_t endtag = ((uint64_t)f->num << 3) | PF_WIRE_GROUP_END;
        size_t taglen = 1;
        while (endtag >= 0x80) {
            endtag >>= 7;
            taglen++;
        }
        f->len = (size_t)(q - p) - taglen;
        p = q;
        break;
    }
    default:
        return PF_BAD; /* a lone group end, or wire types 6 and 7 */
    }
    r->p = p;
    return PF_OK;
}

static void list_add(pf_u64list *l, uint64_t v)
{
    l->present = 1;
    if (l->n < PF_MAX_EXTRA_COUNTERS)
        l->v[l->n++] = v;
    else
        l->overflow = 1;
}

int pf_read_repeated(const pf_field *f, int fixed, pf_u64list *l)
{
    if (f->wire == PF_WIRE_LEN) {
        l->present = 1;
        if (fixed) {
            if (f->len % 8)
                return -1;
            for (size_t i = 0; i < f->len; i += 8)
                list_add(l, pf_le64(f->data + i));
            return 0;
        }
        pf_reader r;
        uint64_t v;
        int rc;
        pf_reader_init(&r, f->data, f->len);
        while ((rc = pf_packed_varint(&r, &v)) == PF_OK)
            list_add(l, v);
        return rc == PF_BAD ? -1 : 0;
    }
    if ((fixed && f->wire != PF_WIRE_FIXED64) || (!fixed && f->wire != PF_WIRE_VARINT))
        return -1;
    list_add(l, f->v);
    return 0;
}
