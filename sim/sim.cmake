# sim part: the engine (scalar unit, queues, flags, timing, cores, HBM
# sharing, races) and its inspection functions (asc/sim.h).  Included by
# sim/CMakeLists.txt after exec.cmake.  Its tests assemble their kernels, so
# they are registered in tests/CMakeLists.txt.
set(d ${CMAKE_CURRENT_SOURCE_DIR})
asc_add_part(sim SOURCES ${d}/sim.c ${d}/core.c ${d}/scalar.c ${d}/exec_scalar_ub.c ${d}/exec_print.c ${d}/sched.c ${d}/hbm.c ${d}/race.c ${d}/race_gm.c
  ${d}/san.c ${d}/pool.c
  DEPS exec config loader isa LIBS Threads::Threads)
# the event heap against a plain array of keys (it needs no kernel)
asc_add_check_test(test_sched SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_sched.c LIBS asc_sim)
