/*
 * range_cuts: where to cut a file into byte ranges read on threads of
 * their own (TREAD_OPT_RANGE_BEGIN/END), so that each has the same work.
 * A range also scans every byte before it, at prefix_cost of what reading
 * them costs (and inflates them, when the file is compressed), so earlier
 * ranges are longer. Used by `tread stats`
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

/* What inflating a gzip'd JSON file costs against decoding what it holds
 * (isa-l: `igzip -dc` 0.15 s against `tread stats --single-thread` 0.34 s
 * of CPU on bench/run's 200 MiB trace, session 24). */
#define RANGE_CUTS_GZIP_INFLATE_COST 0.45

/* Where range k of n begins (k = n: the end). Range k reads the bytes
 * before it at prefix_cost of what reading them costs and, when the
 * input is compressed, inflates every byte up to its end at inflate_cost:
 * (1 + inflate_cost) b_k+1 - (1 - prefix_cost) b_k the same for every k
 * gives b_k proportional to 1 - q^k, q = (1 - prefix_cost) / (1 +
 * inflate_cost). */
static inline uint64_t range_cut_at(uint64_t size, int n, int k, double prefix_cost,
                                    double inflate_cost)
{
    const double q = (1 - prefix_cost) / (1 + inflate_cost);
    double qk = 1, qn = 1;
    for (int i = 0; i < n; i++) {
        qn *= q;
        if (i < k)
            qk *= q;
    }
    return k >= n ? size : (uint64_t)((double)size * (1 - qk) / (1 - qn));
}

#endif
