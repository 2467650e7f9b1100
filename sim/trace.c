/* trace.c -- (in progress) */
typedef int asc_sim_trace_placeholder;
