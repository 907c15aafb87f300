#!/usr/bin/env bash
# Builds read_patterns (main.cpp says what it times) and runs each call given, separated by "--":
#   benchmarks/read_patterns/run.sh PATTERN BLOCK_KIB [AHEAD_KIB [HUGE [WORKING_MIB]]] [-- ...more calls]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -std=c++20 -O3 -march=native -I"$root/include" "$root/benchmarks/read_patterns/main.cpp" -o "$work/read_patterns"
source "$root/benchmarks/each_call.sh"
each_call "$work/read_patterns" "$@"
