#!/usr/bin/env bash
# The compile-time cost of a pattern: translation units that rearrange (and eval) static-extent
# tensors with 1, 10 and 50 distinct patterns, each compiled with the project's flags, best wall
# clock of 3; per pattern = (t50 - t1) / 49 and (t10 - t1) / 9. With g++ and, if present, clang++-14.
# Usage: benchmarks/compile_time/run.sh [build dir]   (default build-bench; files go to its compile_time/)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$root/build-bench}/compile_time
mkdir -p "$work"

# 50 distinct patterns over a (2, 3, 4, 5) tensor: the 24 permutations of "a b c d", each also
# with its first two axes merged, and two merges of the last two.
patterns=()
for p in "a b c d" "a b d c" "a c b d" "a c d b" "a d b c" "a d c b" "b a c d" "b a d c" "b c a d" "b c d a" \
         "b d a c" "b d c a" "c a b d" "c a d b" "c b a d" "c b d a" "c d a b" "c d b a" "d a b c" "d a c b" \
         "d b a c" "d b c a" "d c a b" "d c b a"; do
    patterns+=("$p")
    read -r x y rest <<<"$p"
    patterns+=("($x $y) $rest")
done
patterns+=("a b (c d)" "b a (d c)")

generate() { # generate N FILE
    local n=$1 file=$2
    {
        echo '#include <ctein/ctein.hpp>'
        echo 'ctein::tensor<float, "", 2, 3, 4, 5> x;'
        for ((k = 0; k < n; ++k)); do
            echo "float f$k() { return ctein::eval(ctein::rearrange<\"a b c d -> ${patterns[$k]}\">(x)).data()[1]; }"
        done
        echo 'int main() { float s = 0;'
        for ((k = 0; k < n; ++k)); do echo "    s += f$k();"; done
        echo '    return static_cast<int>(s); }'
    } >"$file"
}

best_of_3() { # best_of_3 COMMAND... -> seconds
    local best=""
    for _ in 1 2 3; do
        local start end
        start=$(date +%s%N)
        "$@"
        end=$(date +%s%N)
        local t=$(((end - start) / 1000000))
        if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
    done
    echo "$best"
}

for n in 1 10 50; do generate "$n" "$work/patterns_$n.cpp"; done

compilers=(g++)
command -v clang++-14 >/dev/null && compilers+=(clang++-14)
for cxx in "${compilers[@]}"; do
    declare -A ms=()
    for n in 1 10 50; do
        ms[$n]=$(best_of_3 "$cxx" -std=c++20 -O2 -march=native -DXTENSOR_USE_XSIMD -I "$root/include" \
            -c "$work/patterns_$n.cpp" -o "$work/patterns_$n.o")
    done
    echo "$cxx: t1 = ${ms[1]} ms, t10 = ${ms[10]} ms, t50 = ${ms[50]} ms;" \
        "per pattern: (t50 - t1) / 49 = $(((ms[50] - ms[1]) / 49)) ms, (t10 - t1) / 9 = $(((ms[10] - ms[1]) / 9)) ms" \
        "(goal: <= 30 ms)"
    unset ms
done
