# Installs ctein from BUILD_DIR into a fresh prefix, then configures, builds and runs a consumer
# project against it with find_package(ctein CONFIG) (cmake -P).
set(work ${WORK_DIR})
file(REMOVE_RECURSE ${work})
foreach(step
        "${CMAKE_COMMAND};--install;${BUILD_DIR};--prefix;${work}/prefix"
        "${CMAKE_COMMAND};-S;${CONSUMER_DIR};-B;${work}/build;-DCMAKE_PREFIX_PATH=${work}/prefix;-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
        "${CMAKE_COMMAND};--build;${work}/build"
        "${work}/build/consumer")
    execute_process(COMMAND ${step} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
    message("${output}")
    if(NOT result EQUAL 0)
        message(FATAL_ERROR "step failed: ${step}")
    endif()
endforeach()
if(NOT EXISTS ${work}/prefix/include/ctein/ctein.hpp OR NOT EXISTS ${work}/prefix/share/cmake/ctein/ctein-config.cmake)
    message(FATAL_ERROR "the install tree lacks the headers or the package config")
endif()
