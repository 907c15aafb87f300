# OpenBLAS as the GEMM peer, built into ctein_bench_gemm only when found (the library never needs
# it): its cblas_sgemm is timed in the same run as ctein's GEMM, held to the row's thread count
# with openblas_set_num_threads. Debian's libopenblas-dev ships a pkg-config file; without one,
# the library and its cblas.h are searched for directly.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
    pkg_check_modules(CTEIN_OPENBLAS QUIET IMPORTED_TARGET openblas)
endif()

if(CTEIN_OPENBLAS_FOUND)
    target_link_libraries(ctein_bench_gemm PRIVATE PkgConfig::CTEIN_OPENBLAS)
    target_compile_definitions(ctein_bench_gemm PRIVATE CTEIN_BENCH_OPENBLAS=1)
    message(STATUS "GEMM peer: OpenBLAS ${CTEIN_OPENBLAS_VERSION} in ctein_bench_gemm")
else()
    find_library(CTEIN_OPENBLAS_LIBRARY NAMES openblas)
    find_path(CTEIN_OPENBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas openblas-pthread)
    if(CTEIN_OPENBLAS_LIBRARY AND CTEIN_OPENBLAS_INCLUDE_DIR)
        target_include_directories(ctein_bench_gemm SYSTEM PRIVATE "${CTEIN_OPENBLAS_INCLUDE_DIR}")
        target_link_libraries(ctein_bench_gemm PRIVATE "${CTEIN_OPENBLAS_LIBRARY}")
        target_compile_definitions(ctein_bench_gemm PRIVATE CTEIN_BENCH_OPENBLAS=1)
        message(STATUS "GEMM peer: OpenBLAS in ctein_bench_gemm (${CTEIN_OPENBLAS_LIBRARY})")
    else()
        message(STATUS "GEMM peer: no OpenBLAS found (libopenblas-dev); ctein_bench_gemm runs without it")
    endif()
endif()
