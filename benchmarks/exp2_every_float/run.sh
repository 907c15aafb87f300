#!/usr/bin/env bash
# Builds exp2_every_float (main.cpp) for this machine and runs it: each version of the kernels'
# 2^x against 2^x in double precision over every float of [-126, 127].
#   benchmarks/exp2_every_float/run.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -std=c++20 -O3 -march=native -Wall -Wextra -Werror -I"$root/include" \
    "$root/benchmarks/exp2_every_float/main.cpp" -o "$work/exp2_every_float"
"$work/exp2_every_float"
