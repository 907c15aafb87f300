# Runs one compile-fail check (cmake -P). Two modes:
#   MODE=fail  compiles SOURCE with -DCTEIN_COMPILE_FAIL and passes only if the compiler fails
#              with exactly one error whose line contains every fragment the source expects;
#   MODE=twin  compiles SOURCE as it is (the offending line switched to its correct twin) and
#              passes only if that succeeds.
# Both modes stop after semantic analysis (-fsyntax-only): templates are instantiated and
# constant expressions evaluated, which is where every ctein diagnostic is raised; only code
# generation, which cannot change the verdict, is skipped (it tripled the twins' time).
# The whole diagnostic must also fit a budget of lines (what a user reads for one mistake): 12 on
# g++; 34 on clang, whose notes for the error table's macro expansion take 6 to 9 of them.
# Expectations are comments in the source:
#   // expect-error: TEXT         (any compiler)
#   // expect-error-gcc: TEXT     (g++ only)   // expect-error-clang: TEXT   (clang only)
# Compilers escape quotes inside the strings they print (g++ in template arguments, clang in
# static_assert messages); the error line is unescaped before it is searched.
cmake_policy(SET CMP0007 NEW) # lists keep their empty lines
foreach(var COMPILER COMPILER_ID SOURCE MODE INCLUDE_DIRS)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "run_compile_fail.cmake: ${var} is not set")
    endif()
endforeach()

set(include_flags "")
foreach(dir IN LISTS INCLUDE_DIRS)
    list(APPEND include_flags "-I${dir}")
endforeach()
# PCH_FLAGS (optional): the precompiled <ctein/ctein.hpp> (tests/compile_fail/CMakeLists.txt)
set(common ${COMPILER} -std=c++20 ${PCH_FLAGS} ${include_flags} -DXTENSOR_USE_XSIMD)

if(MODE STREQUAL "twin")
    execute_process(COMMAND ${CMAKE_COMMAND} -E env LC_ALL=C ${common} -fsyntax-only ${SOURCE}
                    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
    if(NOT result EQUAL 0)
        message(FATAL_ERROR "the twin of ${SOURCE} does not compile:\n${output}")
    endif()
    return()
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -E env LC_ALL=C ${common} -DCTEIN_COMPILE_FAIL -fsyntax-only ${SOURCE}
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(result EQUAL 0)
    message(FATAL_ERROR "${SOURCE} compiled, but it must not")
endif()

file(READ ${SOURCE} source_text)

# The precompiled header is made from prelude.hpp, which includes <ctein/ctein.hpp>: g++ ends an
# include chain with "from .../prelude.hpp:N:", a line a user's build does not print.
string(REGEX REPLACE ",\n[ ]+from [^\n]*/compile_fail/prelude\\.hpp:[0-9]+:" ":" output "${output}")

# Splits text into a list of lines; semicolons (list separators in CMake) are kept as <semicolon>,
# and brackets as <lb> and <rb> (an unmatched `[` in a line would join it with the next ones).
function(split_lines text out)
    string(REPLACE ";" "<semicolon>" text "${text}")
    string(REPLACE "[" "<lb>" text "${text}")
    string(REPLACE "]" "<rb>" text "${text}")
    string(REPLACE "\n" ";" text "${text}")
    set(${out} "${text}" PARENT_SCOPE)
endfunction()

# A line of split_lines as it was.
function(restore_line line out)
    string(REPLACE "<semicolon>" ";" line "${line}")
    string(REPLACE "<lb>" "[" line "${line}")
    string(REPLACE "<rb>" "]" line "${line}")
    set(${out} "${line}" PARENT_SCOPE)
endfunction()

# The error lines: "file:line:col: error: ..."; there must be one, so that mistakes do not cascade.
split_lines("${output}" lines)
set(errors "")
foreach(line IN LISTS lines)
    if(line MATCHES ": error: ")
        list(APPEND errors "${line}")
    endif()
endforeach()
list(LENGTH errors error_count)
if(NOT error_count EQUAL 1)
    message(FATAL_ERROR "expected exactly one error, got ${error_count}:\n${output}")
endif()
list(LENGTH lines line_count)
if(output MATCHES "\n$")
    math(EXPR line_count "${line_count} - 1")
endif()
set(line_budget_gcc 12)
set(line_budget_clang 34)
if(line_count GREATER line_budget_${COMPILER_ID})
    message(FATAL_ERROR "the diagnostic takes ${line_count} lines, over the budget of ${line_budget_${COMPILER_ID}}:\n${output}")
endif()
# g++ reports a pattern's or attention's mistake at the user's line (core/diagnose.hpp): the
# diagnostic opens with the source file, unless the source says why not (a static_assert in the
# header: a temporary, a grouped input, a reader refusing a type), with `// expect-error-in-header:`.
if(COMPILER_ID STREQUAL "gcc" AND NOT source_text MATCHES "// expect-error-in-header: ")
    list(GET lines 0 first_line)
    string(FIND "${first_line}" "${SOURCE}:" at)
    if(NOT at EQUAL 0)
        message(FATAL_ERROR "the diagnostic does not open at the user's file, but with\n  ${first_line}\n\n"
                            "full output:\n${output}")
    endif()
endif()
list(GET errors 0 first_error)
string(REPLACE "\\'" "'" first_error "${first_error}")
string(REPLACE "\\\"" "\"" first_error "${first_error}")
string(REPLACE "\\\\" "\\" first_error "${first_error}")
restore_line("${first_error}" first_error)

split_lines("${source_text}" source_lines)
set(expectations "")
foreach(line IN LISTS source_lines)
    if(line MATCHES "^// expect-error(-${COMPILER_ID})?: ")
        list(APPEND expectations "${line}")
    endif()
endforeach()
if(NOT expectations)
    message(FATAL_ERROR "${SOURCE} has no '// expect-error' line for ${COMPILER_ID}")
endif()
foreach(expectation IN LISTS expectations)
    string(REGEX REPLACE "^// expect-error(-${COMPILER_ID})?: " "" fragment "${expectation}")
    restore_line("${fragment}" fragment)
    string(FIND "${first_error}" "${fragment}" at)
    if(at EQUAL -1)
        message(FATAL_ERROR "the first error does not contain\n  ${fragment}\nit is\n  ${first_error}\n\n"
                            "full output:\n${output}")
    endif()
endforeach()

# MESSAGES (optional): a folder where the error line is kept, as printed (quotes escaped as the
# compiler escapes them) with the source's directory left out, for docs/errors.md.
if(DEFINED MESSAGES)
    list(GET errors 0 printed)
    restore_line("${printed}" printed)
    get_filename_component(directory ${SOURCE} DIRECTORY)
    get_filename_component(repository ${directory}/../.. ABSOLUTE)
    string(REPLACE "${directory}/" "" printed "${printed}")
    string(REPLACE "${repository}/" "" printed "${printed}")
    get_filename_component(name ${SOURCE} NAME_WE)
    file(WRITE ${MESSAGES}/${name}.${COMPILER_ID}.txt "${printed}\n")
endif()
