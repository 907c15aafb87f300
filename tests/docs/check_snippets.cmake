#Documentation snippets cannot drift from compiled code : in each Markdown file given, a fenced
#block preceded by `< !--snippet : path-->` must appear, line by line and in order, in that
#source file(relative to the repository), which a test compiles and runs.Runs of spaces are
#compared as one, so that a formatter's alignment of comments does not matter.
#cmake - DROOT = < repository> "-DDOCS=README.md;docs/x.md" - P check_snippets.cmake
cmake_policy(SET CMP0007 NEW) #list(GET) counts empty lines

    function(normalise line out) string(STRIP "${line}" line) string(REGEX REPLACE "[ \t]+"
                                                                                   " " line "${line}") set($ {
        out
    } "${line}" PARENT_SCOPE) endfunction()

#The lines of a file as a CMake list; `;`, `[` and `]` (list syntax)replaced by placeholders.
        function(read_lines path out) file(READ "${path}" text ENCODING UTF - 8) string(
            REPLACE
            ";"
            "<sc>" text
            "${text}") string(REPLACE "["
                                      "<lb>" text
                                      "${text}") string(REPLACE "]"
                                                                "<rb>" text
                                                                "${text}") string(REPLACE "\n"
                                                                                          ";" text
                                                                                          "${text}") set($ {
            out
        } "${text}" PARENT_SCOPE) endfunction()

            set(checked 0) foreach (doc IN LISTS DOCS) read_lines("${ROOT}/${doc}" doc_lines) set(source "")
                set(in_block FALSE) set(expected "") foreach (line IN LISTS doc_lines) if (
                    line MATCHES "^<!-- snippet: ([^ ]+) -->") set(source "${CMAKE_MATCH_1}")
                    elseif(source AND NOT in_block AND line MATCHES "^```") set(in_block TRUE) set(
                        expected "") elseif(in_block AND line MATCHES "^```")
#the block 's lines, in order, among the source' s
                        read_lines("${ROOT}/${source}" source_lines) set(normalised_source "") foreach (
                            s IN LISTS source_lines) normalise("${s}" s) list(APPEND normalised_source "${s}")
                            endforeach() set(position 0) list(LENGTH normalised_source count) foreach (
                                e IN LISTS expected) set(found FALSE) while (position LESS count)
                                list(GET normalised_source ${position} s)
                                    math(EXPR position "${position} + 1") if (s STREQUAL e) set(
                                        found TRUE) break() endif() endwhile() if (NOT found)
                                        string(REPLACE
                                               "<sc>"
                                               ";" e
                                               "${e}") message(FATAL_ERROR
                                                               "${doc}: the snippet line\n  ${e}\nis not in "
                                                               "${source} (in this order)") endif()
                                            endforeach() math(EXPR checked "${checked} + 1") set(
                                                in_block FALSE) set(source "")
                                                elseif(in_block) normalise("${line}" e) if (NOT e STREQUAL "")
                                                    list(APPEND expected "${e}") endif() endif() endforeach()
                                                        endforeach() if (checked EQUAL 0) message(
                                                            FATAL_ERROR
                                                            "no <!-- snippet: ... --> block found in ${DOCS}")
                                                            endif() message(STATUS "${checked} snippet(s) "
                                                                                   "found in their sources")
