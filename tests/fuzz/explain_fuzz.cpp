// Fuzzes `ctein explain`: the run-time pattern parser and every planner behind it, on arbitrary
// command lines (one word per input line). Any crash, sanitizer report, exception or status
// other than 0, 1, 2 is a finding; a bad pattern or shape must be an "error:" with status 1.
#include "fuzz_input.hpp"

#include <explain.hpp>

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 4096) return -1; // longer command lines only repeat what shorter ones reach
    const auto args = ctein::fuzz::words(data, size);
    const auto result = ctein::tool::explain(args);
    if (result.status < 0 || result.status > 2) std::abort();
    if (result.status == 1 && result.text.find("error: ") == std::string::npos) std::abort();
    return 0;
}
