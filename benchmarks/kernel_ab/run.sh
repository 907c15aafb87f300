#!/usr/bin/env bash
# Times the attention kernel of a git revision (a) against the work tree's (b) in one process:
#   [CXX=clang++-14] [MARCH=x86-64-v3] benchmarks/kernel_ab/run.sh [REV] -- HQ HKV D TK f32|bf16|bf16-qkv [TQ [CAUSAL [THREADS [COLD [KEY_LENGTH]]]]] [-- ...more calls]
# REV defaults to HEAD. CTEIN_AB_B_FLAGS adds compiler flags to b's build alone (a -D that switches
# a trial on, say). Prints, per call, both times and the ratio a / b (above 1: b is faster).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rev=HEAD
if [ $# -gt 0 ] && [ "$1" != "--" ]; then rev=$1; shift; fi
[ "${1:-}" = "--" ] && shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/a"
git -C "$root" archive "$rev" include | tar -x -C "$work/a"
cxx=${CXX:-g++} # CXX=clang++-14 times the clang build; MARCH=x86-64-v3 an AVX2 build
flags=(-std=c++20 -O3 -march=${MARCH:-native} -DNDEBUG -DXTENSOR_USE_XSIMD)
here="$root/benchmarks/kernel_ab"
"$cxx" "${flags[@]}" -DCTEIN_AB_NAMESPACE=ctein_a -I"$work/a/include" -c "$here/kernel.cpp" -o "$work/a.o" &
"$cxx" "${flags[@]}" -DCTEIN_AB_NAMESPACE=ctein_b ${CTEIN_AB_B_FLAGS:-} -I"$root/include" -c "$here/kernel.cpp" -o "$work/b.o" &
wait
"$cxx" "${flags[@]}" -I"$root/include" "$here/main.cpp" "$work/a.o" "$work/b.o" -o "$work/kernel_ab" -lpthread
source "$root/benchmarks/each_call.sh"
each_call "$work/kernel_ab" "$@"
