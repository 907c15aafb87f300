// The machine a benchmark ran on, written into its JSON context, so that the tables made from the
// JSON later (attention_table.py) name it: the CPU as /proc/cpuinfo names it, with its family and
// model (a VM's model name may be all it says), and the vector extensions the kernels choose by.
#pragma once

#include <benchmark/benchmark.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace ctein::bench {

inline void add_machine_context() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line, name = "?", family = "?", model = "?";
    std::set<std::string> flags;
    // The first processor's fields, up to the blank line that ends them (every core repeats them).
    while (std::getline(cpuinfo, line) && !line.empty()) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string key = line.substr(0, colon);
        key.erase(key.find_last_not_of(" \t") + 1);
        const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
        if (key == "model name")
            name = value;
        else if (key == "cpu family")
            family = value;
        else if (key == "model")
            model = value;
        else if (key == "flags") {
            std::istringstream words(value);
            for (std::string w; words >> w;) flags.insert(w);
        }
    }
    benchmark::AddCustomContext("cpu", name + " (family " + family + ", model " + model + ")");
    std::string isa;
    for (const char* f :
         {"avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_bf16", "avx512_fp16", "amx_bf16"}) {
        if (!flags.count(f)) continue;
        if (!isa.empty()) isa += ' ';
        isa += f;
    }
    benchmark::AddCustomContext("isa", isa.empty() ? "none of AVX2, FMA, AVX-512" : isa);
}

} // namespace ctein::bench
