/* npy.c -- (in progress) */
typedef int asc_sim_npy_placeholder;
