# sim part: the engine (scalar unit, queues, flags, timing, cores, HBM
# sharing), reports, traces, .npy files; the asc-sim CLI; its tests and the
# simulator benchmark.  Included by sim/CMakeLists.txt after exec.cmake.
set(d ${CMAKE_CURRENT_SOURCE_DIR})
asc_add_part(sim SOURCES ${d}/sim.c ${d}/core.c ${d}/scalar.c ${d}/sched.c ${d}/hbm.c ${d}/report.c
  ${d}/npy.c ${d}/trace.c ${d}/race.c
  DEPS exec config loader isa)

add_executable(asc-sim ${d}/asc_sim_main.c)
target_link_libraries(asc-sim PRIVATE asc_sim)

# The engine tests assemble their kernels from strings (asm part).
foreach(t test_sim_timing test_sim_engine test_races)
  if(EXISTS ${CMAKE_SOURCE_DIR}/tests/unit/${t}.c)
    asc_add_check_test(${t} SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/${t}.c LIBS asc_sim asc_asm)
    # building a simulator test builds everything the simulator's tests run
    add_dependencies(${t} asc-sim asc-as)
  endif()
endforeach()
asc_add_check_test(test_trace SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_trace.c LIBS asc_sim asc_asm PkgConfig::CJSON)
if(EXISTS ${CMAKE_SOURCE_DIR}/tests/unit/test_npy.c)
  asc_add_check_test(test_npy SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_npy.c LIBS asc_sim)
endif()
if(EXISTS ${CMAKE_SOURCE_DIR}/tests/cli/test_asc_sim.sh)
  asc_add_cli_test(cli_asc_sim ${CMAKE_SOURCE_DIR}/tests/cli/test_asc_sim.sh)
endif()

if(EXISTS ${CMAKE_SOURCE_DIR}/bench/CMakeLists.txt)
  add_subdirectory(${CMAKE_SOURCE_DIR}/bench ${CMAKE_BINARY_DIR}/bench)
endif()
