// Fuzzes the .safetensors reader: the input is a file, opened and then read tensor by tensor as
// several element types and ranks. The only acceptable failure is a ctein::file_error.
#include "fuzz_input.hpp"

#include <ctein/io/safetensors.hpp>

#include <cstdint>
#include <optional>

namespace {
template <class T, ctein::fixed_string Names, std::size_t... E>
void try_load(const ctein::safetensors_file& file, const std::string& name) {
    try {
        const auto t = file.load<T, Names, E...>(name);
        (void)t;
    } catch (const ctein::file_error&) {
    }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = ctein::fuzz::as_file(data, size, ".safetensors");
    std::optional<ctein::safetensors_file> file;
    try {
        file.emplace(path);
    } catch (const ctein::file_error&) {
        return 0;
    }
    using ctein::dyn;
    for (const std::string& name : file->names()) {
        try_load<float, "a", dyn>(*file, name);
        try_load<float, "o i", dyn, dyn>(*file, name);
        try_load<float, "a b c", dyn, 2, dyn>(*file, name);
        try_load<std::int64_t, "a", dyn>(*file, name);
        try_load<bool, "a b", dyn, dyn>(*file, name);
    }
    try_load<float, "a", dyn>(*file, "no such tensor");
    return 0;
}
