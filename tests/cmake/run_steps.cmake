# run_steps(STEP...): runs each step (a command as a ;-list) in order, printing its output, and
# stops with an error at the first that fails. Included by the CTest scripts that build things.
function(run_steps)
    foreach(step IN LISTS ARGN)
        string(REPLACE "|" ";" command "${step}")
        execute_process(COMMAND ${command} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
        message("${output}")
        if(NOT result EQUAL 0)
            message(FATAL_ERROR "step failed: ${command}")
        endif()
    endforeach()
endfunction()
