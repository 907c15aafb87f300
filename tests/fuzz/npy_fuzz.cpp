// Fuzzes the .npy reader: the input is a file, read as tensors of several element types and
// ranks. The only acceptable failure is a ctein::file_error; a crash, a sanitizer report, an
// allocation beyond the file's size or any other exception is a finding.
#include "fuzz_input.hpp"

#include <ctein/io/npy.hpp>

#include <cstdint>

namespace {
template <class T, ctein::fixed_string Names, std::size_t... E>
void try_load(const std::string& path) {
    try {
        const auto t = ctein::load_npy<T, Names, E...>(path);
        (void)t;
    } catch (const ctein::file_error&) {
    }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = ctein::fuzz::as_file(data, size, ".npy");
    using ctein::dyn;
    try_load<float, "a", dyn>(path);
    try_load<float, "a b", dyn, dyn>(path);
    try_load<float, "b h s d", dyn, dyn, dyn, 4>(path);
    try_load<std::int64_t, "a b", dyn, dyn>(path);
    try_load<bool, "a b c", dyn, dyn, dyn>(path);
    try_load<double, "", 2, 3>(path);
    return 0;
}
