# exec part: data semantics of queued instructions (vector, cube, DMA), GM,
# f16/bf16 conversions and the UB bank model.  Included by sim/CMakeLists.txt.
asc_add_part(exec SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/exec_vector.c
  ${CMAKE_CURRENT_SOURCE_DIR}/exec_vgather.c
  ${CMAKE_CURRENT_SOURCE_DIR}/exec_vsort.c
  ${CMAKE_CURRENT_SOURCE_DIR}/exec_cmpmask.c
  ${CMAKE_CURRENT_SOURCE_DIR}/exec_vreducev2.c
  ${CMAKE_CURRENT_SOURCE_DIR}/exec_vnchwconv.c
  ${CMAKE_CURRENT_SOURCE_DIR}/exec_cmatrix.c
  ${CMAKE_CURRENT_SOURCE_DIR}/exec_load3d.c
  ${CMAKE_CURRENT_SOURCE_DIR}/exec_load2dt.c
  ${CMAKE_CURRENT_SOURCE_DIR}/exec_cube.c
  ${CMAKE_CURRENT_SOURCE_DIR}/exec_fbuf.c
  ${CMAKE_CURRENT_SOURCE_DIR}/exec_dma.c
  ${CMAKE_CURRENT_SOURCE_DIR}/exec_dmapad.c
  ${CMAKE_CURRENT_SOURCE_DIR}/exec_nd2nz.c
  ${CMAKE_CURRENT_SOURCE_DIR}/exec_atomic.c
  ${CMAKE_CURRENT_SOURCE_DIR}/exec_check.c
  ${CMAKE_CURRENT_SOURCE_DIR}/ubbank.c
  ${CMAKE_CURRENT_SOURCE_DIR}/gm.c
  ${CMAKE_CURRENT_SOURCE_DIR}/fp16.c
  DEPS config isa)

foreach(t test_exec_vector test_exec_vgather test_exec_vsort test_exec_cube_dma test_fp16 test_exec_load3d test_exec_load2dt test_exec_fbuf)
  asc_add_check_test(${t} SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/${t}.c LIBS asc_exec)
endforeach()
