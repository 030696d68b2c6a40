/* Group skipping for pf_wire.h (groups are rare: kept out of line). */
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
