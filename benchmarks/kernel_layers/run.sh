#!/usr/bin/env bash
# Where the prefill's step loses its time, layer by layer (main.cpp), in the work tree's kernel:
#   benchmarks/kernel_layers/run.sh HQ HKV D TK f32 TQ [-- ...more calls]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -std=c++20 -O3 -march=native -DNDEBUG -DXTENSOR_USE_XSIMD -I"$root/include" \
    "$root/benchmarks/kernel_layers/main.cpp" -o "$work/kernel_layers" -lpthread
source "$root/benchmarks/each_call.sh"
each_call "$work/kernel_layers" "$@"
