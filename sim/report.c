/* report.c -- (in progress) */
typedef int asc_sim_report_placeholder;
