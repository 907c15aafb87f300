# A function that only asks for cache lines keeps its calls: only_requests.cpp compiled to
# assembly at -O3 by the build's compiler, and reads_after_requests must still call
# only_requests, which must still hold prefetch instructions (x86; elsewhere the call alone).
#   cmake -DCXX=<compiler> -DROOT=<repository> [-DINCLUDES=-I<dir>,-I<dir>] -DOUT=<file.s> -P requests_kept.cmake
string(REPLACE "," ";" INCLUDES "${INCLUDES}")
execute_process(
    COMMAND ${CXX} -std=c++20 -O3 -I${ROOT}/include ${INCLUDES} -S -o ${OUT}
            ${ROOT}/tests/kernels/requests/only_requests.cpp
    RESULT_VARIABLE compiled ERROR_VARIABLE errors)
if(NOT compiled EQUAL 0)
    message(FATAL_ERROR "only_requests.cpp did not compile:\n${errors}")
endif()
file(READ ${OUT} assembly)

# The text of a function's body in the assembly: from its label to the end of its frame.
function(body_of symbol out)
    string(FIND "${assembly}" "\n${symbol}:" start)
    if(start EQUAL -1)
        message(FATAL_ERROR "no function ${symbol} in the assembly")
    endif()
    string(SUBSTRING "${assembly}" ${start} -1 rest)
    string(FIND "${rest}" ".cfi_endproc" end)
    string(SUBSTRING "${rest}" 0 ${end} body)
    set(${out} "${body}" PARENT_SCOPE)
endfunction()

body_of(_Z20reads_after_requestsPKc caller)
if(NOT caller MATCHES "_Z13only_requestsPKc")
    message(FATAL_ERROR "reads_after_requests no longer calls only_requests: the compiler dropped "
                        "the call of a function that only asks for lines\n${caller}")
endif()
body_of(_Z13only_requestsPKc callee)
if(CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|i.86"
   AND (NOT callee MATCHES "prefetcht0" OR NOT callee MATCHES "prefetcht1"))
    message(FATAL_ERROR "only_requests holds no prefetcht0 and prefetcht1\n${callee}")
endif()
message(STATUS "reads_after_requests calls only_requests, which asks for its lines")
