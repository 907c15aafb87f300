# Configures ctein with clang++ (examples only), builds the examples, and runs them (cmake -P).
# Steps separate arguments with |.
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/run_steps.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
run_steps(
    "${CMAKE_COMMAND}|-S|${SOURCE_DIR}|-B|${WORK_DIR}|-DCMAKE_CXX_COMPILER=${CLANG}|-DCTEIN_BUILD_EXAMPLES=ON"
    "${CMAKE_COMMAND}|--build|${WORK_DIR}|-j2"
    "${WORK_DIR}/examples/ctein_demo"
    "${WORK_DIR}/examples/ctein_example_xtensor")
