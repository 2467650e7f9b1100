/* explain_pc.h -- private to run/: every pc's cost of every core in one pass over
 * the recorded events (report.c's per-line JSON used to ask asc_explain_pc_cost
 * per pc, a scan of every event each time). */
#ifndef ASC_RUN_EXPLAIN_PC_H
#define ASC_RUN_EXPLAIN_PC_H

#include <stdint.h>

#include "asc/run.h"

/* Every pc's cost of every core in one pass over the recorded events: for core c < ncores,
 * busy[base[c] + k] and conflict[base[c] + k] (k < n[c], zeroed here) are what
 * asc_explain_pc_cost gives for pc entry[c] + 4 k; nothing added when x is NULL. */
void asc_explain_pc_costs(const AscExplain *x, uint32_t ncores, const uint32_t *entry, const uint32_t *n,
                          const size_t *base, uint64_t *busy, uint64_t *conflict);

#endif
