#!/usr/bin/env bash
# Where a prefill call's time goes, phase by phase, in the work tree's kernel (phase_clock):
#   benchmarks/kernel_phases/run.sh CALLS HQ HKV D TK f32|bf16|bf16-qkv [TQ [CAUSAL [THREADS [COLD [KEY_LENGTH]]]]] [-- ...more calls]
# Calls are separated by "--" (../each_call.sh). Each call runs twice: level 1 (packing and
# pieces; the kernel runs at its own speed), then level 2 (the steps' phases as well, which the
# counters slow). With 2 threads the phases' ticks add up over both. LEVELS=1 runs level 1 only.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for level in ${LEVELS:-1 2}; do
    g++ -std=c++20 -O3 -march=native -DNDEBUG -DXTENSOR_USE_XSIMD -DCTEIN_KERNEL_PHASES=$level -I"$root/include" \
        "$root/benchmarks/kernel_phases/main.cpp" -o "$work/kernel_phases_$level" -lpthread &
done
wait
both_levels() {
    "$work/kernel_phases_1" "$@"
    if [ -x "$work/kernel_phases_2" ]; then "$work/kernel_phases_2" "$@"; fi
}
source "$root/benchmarks/each_call.sh"
each_call both_levels "$@"
