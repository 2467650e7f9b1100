/* explain_pc.h -- private to run/: every pc's cost of one core in one pass over
 * the recorded events (report.c's per-line JSON used to ask asc_explain_pc_cost
 * per pc, a scan of every event each time). */
#ifndef ASC_RUN_EXPLAIN_PC_H
#define ASC_RUN_EXPLAIN_PC_H

#include <stdint.h>

#include "asc/run.h"

/* busy[k], conflict[k] (k < n, zeroed here): what asc_explain_pc_cost gives for
 * pc entry + 4 k on core; nothing added when x is NULL. */
void asc_explain_pc_costs(const AscExplain *x, uint32_t core, uint32_t entry, uint32_t n, uint64_t *busy,
                          uint64_t *conflict);

#endif
