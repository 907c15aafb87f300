# Configures ctein with clang++, builds the examples and the unit tests, and runs them all
# (cmake -P). At -O0, as it checks that clang compiles and runs ctein, not how fast (the Release
# build with g++ does that). The unit tests reach every header; the parity tests, which only
# instantiate the same headers for more patterns, are left to g++ to keep make test short.
# Steps separate arguments with |.
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/run_steps.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
run_steps(
    "${CMAKE_COMMAND}|-S|${SOURCE_DIR}|-B|${WORK_DIR}|-DCMAKE_CXX_COMPILER=${CLANG}|-DCMAKE_BUILD_TYPE=|-DCMAKE_CXX_FLAGS=-O0|-DCTEIN_BUILD_EXAMPLES=ON|-DCTEIN_BUILD_TESTS=ON|-DCTEIN_TEST_CLANG=OFF"
    "${CMAKE_COMMAND}|--build|${WORK_DIR}|-j2|--target|ctein_demo|ctein_example_xtensor|ctein_example_attention|ctein_unit_tests"
    "${WORK_DIR}/examples/ctein_demo"
    "${WORK_DIR}/examples/ctein_example_xtensor"
    "${WORK_DIR}/examples/ctein_example_attention|--no-timing"
    "${WORK_DIR}/tests/ctein_unit_tests")
