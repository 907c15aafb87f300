# libtorch as the attention peer, built in only when found (the library never needs it): PyTorch
# 2.x from pip (its fused CPU scaled_dot_product_attention) in ctein_bench_attention, and a system
# libtorch (Debian's 1.13: matmul, softmax, matmul) in a second binary built from the same source,
# ctein_bench_attention_torch<major><minor>, as two libtorch versions cannot share one process.
# Both are linked as plain shared libraries: find_package(Torch) on a CUDA wheel asks for a CUDA
# toolkit that its CPU kernels do not need.

set(CTEIN_TORCH_DIR "" CACHE PATH "PyTorch 2.x package directory (site-packages/torch); searched through Python when empty")
set(CTEIN_TORCH_CXX11_ABI ON CACHE BOOL "Whether the PyTorch in CTEIN_TORCH_DIR was built with the C++11 ABI of libstdc++")

# The version a TorchConfigVersion.cmake states (set(PACKAGE_VERSION "2.15.0")).
function(ctein_torch_version file out)
    file(STRINGS "${file}" line REGEX "PACKAGE_VERSION \"")
    string(REGEX MATCH "[0-9]+\\.[0-9]+(\\.[0-9]+)?" version "${line}")
    set(${out} "${version}" PARENT_SCOPE)
endfunction()

# Builds the torch peer into `target`: its headers, its libraries and the definitions
# attention_torch.hpp reads (CTEIN_TORCH_PEER is the rows' name, e.g. "torch2.15").
function(ctein_add_torch_peer target version include_dir)
    string(REGEX MATCH "^[0-9]+\\.[0-9]+" short "${version}")
    if(version VERSION_GREATER_EQUAL 2.0)
        set(fused 1)
    else()
        set(fused 0)
    endif()
    target_include_directories(${target} SYSTEM PRIVATE "${include_dir}")
    target_link_libraries(${target} PRIVATE ${ARGN} ${CMAKE_DL_LIBS})
    target_compile_definitions(${target} PRIVATE CTEIN_TORCH_PEER="torch${short}" CTEIN_TORCH_VERSION="${version}"
                                                 CTEIN_TORCH_FUSED=${fused})
endfunction()

# PyTorch from pip: asked of CTEIN_TORCH_PYTHON (make bench passes the engines' Python,
# tools/engine-python), then of the python3 on the PATH, then of pyenv's Pythons (Debian's python3
# imports Debian's torch 1.x, which does not count here). Importing torch takes seconds, so the
# directory found is kept in the cache.
set(CTEIN_TORCH_PYTHON "" CACHE FILEPATH "A Python whose torch (2.x, from pip) is the attention peer; searched first")
if(NOT CTEIN_TORCH_DIR)
    find_program(ctein_python NAMES python3 python NO_CACHE)
    file(GLOB ctein_pyenv_pythons "$ENV{HOME}/.pyenv/versions/*/bin/python3")
    foreach(python IN LISTS CTEIN_TORCH_PYTHON ctein_python ctein_pyenv_pythons)
        execute_process(
            COMMAND "${python}" -c "import os, torch; print(os.path.dirname(torch.__file__)); print(int(torch.compiled_with_cxx11_abi()))"
            OUTPUT_VARIABLE answer RESULT_VARIABLE failed ERROR_QUIET TIMEOUT 120)
        if(failed)
            continue()
        endif()
        string(REGEX REPLACE "\n$" "" answer "${answer}")
        string(REPLACE "\n" ";" answer "${answer}")
        list(GET answer 0 dir)
        set(version_file "${dir}/share/cmake/Torch/TorchConfigVersion.cmake")
        if(EXISTS "${version_file}")
            ctein_torch_version("${version_file}" version)
            if(version VERSION_GREATER_EQUAL 2.0)
                list(GET answer 1 abi)
                set(CTEIN_TORCH_DIR "${dir}" CACHE PATH "PyTorch 2.x package directory (site-packages/torch)" FORCE)
                set(CTEIN_TORCH_CXX11_ABI ${abi} CACHE BOOL "Whether that PyTorch was built with the C++11 ABI" FORCE)
                break()
            endif()
        endif()
    endforeach()
endif()

set(ctein_pip_torch_version "")
if(CTEIN_TORCH_DIR AND EXISTS "${CTEIN_TORCH_DIR}/lib/libtorch_cpu.so"
   AND EXISTS "${CTEIN_TORCH_DIR}/share/cmake/Torch/TorchConfigVersion.cmake")
    ctein_torch_version("${CTEIN_TORCH_DIR}/share/cmake/Torch/TorchConfigVersion.cmake" ctein_pip_torch_version)
    foreach(target ctein_bench_attention ctein_bench_blocks)
        ctein_add_torch_peer(${target} "${ctein_pip_torch_version}" "${CTEIN_TORCH_DIR}/include"
                             "${CTEIN_TORCH_DIR}/lib/libtorch_cpu.so" "${CTEIN_TORCH_DIR}/lib/libc10.so")
        if(CTEIN_TORCH_CXX11_ABI)
            target_compile_definitions(${target} PRIVATE _GLIBCXX_USE_CXX11_ABI=1)
        else()
            target_compile_definitions(${target} PRIVATE _GLIBCXX_USE_CXX11_ABI=0)
        endif()
    endforeach()
    message(STATUS "Attention peer: PyTorch ${ctein_pip_torch_version} in ctein_bench_attention and ctein_bench_blocks (${CTEIN_TORCH_DIR})")
else()
    message(STATUS "Attention peer: no PyTorch 2.x found (set CTEIN_TORCH_DIR); ctein_bench_attention runs without it")
endif()

# The system's libtorch (libtorch-dev on Debian), in its own binary.
find_library(CTEIN_SYSTEM_TORCH_CPU torch_cpu)
find_library(CTEIN_SYSTEM_C10 c10)
find_path(CTEIN_SYSTEM_TORCH_INCLUDE ATen/ATen.h)
if(CTEIN_SYSTEM_TORCH_CPU AND CTEIN_SYSTEM_C10 AND CTEIN_SYSTEM_TORCH_INCLUDE)
    get_filename_component(ctein_system_torch_lib "${CTEIN_SYSTEM_TORCH_CPU}" DIRECTORY)
    set(version_file "${ctein_system_torch_lib}/cmake/Torch/TorchConfigVersion.cmake")
    if(EXISTS "${version_file}")
        ctein_torch_version("${version_file}" ctein_system_torch_version)
        if(NOT ctein_system_torch_version VERSION_EQUAL ctein_pip_torch_version)
            string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" short "${ctein_system_torch_version}")
            set(target ctein_bench_attention_torch${CMAKE_MATCH_1}${CMAKE_MATCH_2})
            add_executable(${target} bench_attention.cpp)
            target_link_libraries(${target} PRIVATE ctein::ctein ctein_project_options benchmark::benchmark)
            # ctein's rows and this peer's only: the other rows are ctein_bench_attention's.
            target_compile_definitions(${target} PRIVATE CTEIN_BENCH_TORCH_ROWS_ONLY)
            ctein_add_torch_peer(${target} "${ctein_system_torch_version}" "${CTEIN_SYSTEM_TORCH_INCLUDE}"
                                 "${CTEIN_SYSTEM_TORCH_CPU}" "${CTEIN_SYSTEM_C10}")
            add_dependencies(ctein_bench_attention ${target}) # built and run (make bench) along with it
            message(STATUS "Attention peer: libtorch ${ctein_system_torch_version} in ${target}")
        endif()
    endif()
endif()
