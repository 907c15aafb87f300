// fuzz_input: what the fuzz targets share — the input as command-line words, or as a file that
// the readers under test open (they take paths, as users call them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <unistd.h>
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

/// A file of this process's own in the temporary directory, removed when the process exits.
struct scratch_file {
    std::string path;
    explicit scratch_file(std::string_view suffix)
        : path((std::filesystem::temp_directory_path() /
                ("ctein-fuzz-" + std::to_string(::getpid()) + std::string(suffix)))
                   .string()) {}
    scratch_file(const scratch_file&) = delete;
    scratch_file& operator=(const scratch_file&) = delete;
    ~scratch_file() {
        std::error_code ignored;
        std::filesystem::remove(path, ignored);
    }
};

/// The input written to this process's scratch file, whose path is returned.
inline const std::string& as_file(const std::uint8_t* data, std::size_t size, std::string_view suffix) {
    static const scratch_file file(suffix);
    std::ofstream(file.path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return file.path;
}

} // namespace ctein::fuzz
