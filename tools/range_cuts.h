/*
 * range_cuts: where to cut a file into byte ranges read on threads of
 * their own (TREAD_OPT_RANGE_BEGIN/END), so that each has the same work.
 * A range also scans every byte before it, at prefix_cost of what reading
 * them costs, so earlier ranges are longer. Used by `tread stats`
 * (stats_ranges.c) and bench/count_events.
 */
#ifndef TREAD_TOOLS_RANGE_CUTS_H
#define TREAD_TOOLS_RANGE_CUTS_H

#include <stdint.h>

/* What scanning an FXT file's records costs against reading them (1 GiB
 * file: 0.22 s of 1.10 s, reads included). */
#define RANGE_CUTS_FXT_PREFIX_COST 0.2
/* What skipping a JSON file's records with the structural scanner costs
 * against decoding them (doc/formats/json.md, "Byte ranges": 2.29 M
 * against 18.3 M instructions a MiB since session 24's decoder). */
#define RANGE_CUTS_JSON_PREFIX_COST 0.13

/* Where range k of n begins (k = n: the end). With r = prefix_cost,
 * r b_k + (b_k+1 - b_k) the same for every k gives b_k proportional to
 * 1 - (1 - r)^k. */
static inline uint64_t range_cut_at(uint64_t size, int n, int k, double prefix_cost)
{
    double qk = 1, qn = 1;
    for (int i = 0; i < n; i++) {
        qn *= 1 - prefix_cost;
        if (i < k)
            qk *= 1 - prefix_cost;
    }
    return k >= n ? size : (uint64_t)((double)size * (1 - qk) / (1 - qn));
}

#endif
