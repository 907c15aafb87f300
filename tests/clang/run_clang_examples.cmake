# Configures ctein with clang++ (examples only), builds the examples, and runs them (cmake -P).
file(REMOVE_RECURSE ${WORK_DIR})
foreach(step
        "${CMAKE_COMMAND};-S;${SOURCE_DIR};-B;${WORK_DIR};-DCMAKE_CXX_COMPILER=${CLANG};-DCTEIN_BUILD_TESTS=OFF;-DCTEIN_BUILD_EXAMPLES=ON"
        "${CMAKE_COMMAND};--build;${WORK_DIR};-j2"
        "${WORK_DIR}/examples/ctein_demo"
        "${WORK_DIR}/examples/ctein_example_xtensor")
    execute_process(COMMAND ${step} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
    message("${output}")
    if(NOT result EQUAL 0)
        message(FATAL_ERROR "step failed: ${step}")
    endif()
endforeach()
