# Installs ctein from BUILD_DIR into a fresh prefix, then configures, builds and runs a consumer
# project against it with find_package(ctein CONFIG), and runs its EXECUTABLE (cmake -P). Steps separate arguments with |.
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/run_steps.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
run_steps(
    "${CMAKE_COMMAND}|--install|${BUILD_DIR}|--prefix|${WORK_DIR}/prefix"
    "${CMAKE_COMMAND}|-S|${CONSUMER_DIR}|-B|${WORK_DIR}/build|-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix|-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
    "${CMAKE_COMMAND}|--build|${WORK_DIR}/build"
    "${WORK_DIR}/build/${EXECUTABLE}")
foreach(installed include/ctein/ctein.hpp share/cmake/ctein/ctein-config.cmake)
    if(NOT EXISTS ${WORK_DIR}/prefix/${installed})
        message(FATAL_ERROR "the install tree lacks ${installed}")
    endif()
endforeach()
