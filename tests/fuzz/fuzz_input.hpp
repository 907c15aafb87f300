// fuzz_input: what the fuzz targets share — the input as command-line words, or as a file that
// the readers under test open (they take paths, as users call them).
#pragma once

#include "../support/scratch_file.hpp"

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace ctein::fuzz {

/// The input split at newlines: one command-line word per line.
inline std::vector<std::string_view> words(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        out.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

/// The input written to this process's scratch file, whose path is returned.
inline const std::string& as_file(const std::uint8_t* data, std::size_t size, std::string_view suffix) {
    static const testing::scratch_file file("fuzz" + std::string(suffix)); // removed at exit
    std::ofstream(file.path(), std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return file.path();
}

} // namespace ctein::fuzz
