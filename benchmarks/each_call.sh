# each_call: sourced by the kernel tools' run.sh. `each_call RUN ARGS...` calls RUN once per call
# given in ARGS, the calls separated by "--" (the command lines of benchmarks/kernel_call.hpp).
each_call() {
    local run=$1
    shift
    local call=() arg
    for arg in "$@" --; do
        if [ "$arg" = "--" ]; then
            if [ ${#call[@]} -gt 0 ]; then "$run" "${call[@]}"; fi
            call=()
        else
            call+=("$arg")
        fi
    done
}
