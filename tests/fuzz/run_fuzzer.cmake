# cmake -DFUZZER=... -DCORPUS=... -DSECONDS=... -DINPUTS=dir,dir -DARTIFACTS=dir/ -P run_fuzzer.cmake
# Fuzzes for SECONDS from an emptied CORPUS and the INPUTS folders (seeds, kept regressions),
# printing libFuzzer's final statistics (executions, coverage); fails on any finding.
file(REMOVE_RECURSE ${CORPUS})
file(MAKE_DIRECTORY ${CORPUS})
string(REPLACE "," ";" inputs "${INPUTS}")
execute_process(COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048
                        -print_final_stats=1 -artifact_prefix=${ARTIFACTS} ${CORPUS} ${inputs}
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
string(REGEX MATCHALL "stat::[a-z_]+: *[0-9]+" stats "${output}")
string(REGEX MATCH "#[0-9]+[ \t]+DONE[^\n]*" done "${output}")
list(JOIN stats "\n" stats)
message("${done}\n${stats}")
if(NOT result EQUAL 0)
    message("${output}")
    message(FATAL_ERROR "${FUZZER} found a failing input (saved under ${ARTIFACTS})")
endif()
