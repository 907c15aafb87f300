# Configures ctein with clang++, builds the examples, the unit tests and the parity tests, and
# runs them all (cmake -P). At -O0, as it checks that clang compiles and runs ctein, not how fast
# (the Release build with g++ does that). Steps separate arguments with |.
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/run_steps.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
run_steps(
    "${CMAKE_COMMAND}|-S|${SOURCE_DIR}|-B|${WORK_DIR}|-DCMAKE_CXX_COMPILER=${CLANG}|-DCMAKE_BUILD_TYPE=|-DCMAKE_CXX_FLAGS=-O0|-DCTEIN_BUILD_EXAMPLES=ON|-DCTEIN_BUILD_TESTS=ON|-DCTEIN_TEST_CLANG=OFF"
    "${CMAKE_COMMAND}|--build|${WORK_DIR}|-j2|--target|ctein_demo|ctein_example_xtensor|ctein_unit_tests|ctein_parity_tests"
    "${WORK_DIR}/examples/ctein_demo"
    "${WORK_DIR}/examples/ctein_example_xtensor"
    "${WORK_DIR}/tests/ctein_unit_tests"
    "${WORK_DIR}/tests/ctein_parity_tests")
