// scratch_file: a file of the test process's own in the temporary directory, removed with the
// object. CTest runs each test case as a process of its own, two at a time, so a fixed name in
// the temporary directory was written by two cases at once (two safetensors cases once read each
// other's half-written file); the process id in the name keeps each process to its own.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <unistd.h>

namespace ctein::testing {

class scratch_file {
public:
    /// The file "ctein-<process id>-<name>" in the temporary directory, not created yet.
    explicit scratch_file(std::string_view name)
        : path_((std::filesystem::temp_directory_path() /
                 ("ctein-" + std::to_string(::getpid()) + "-" + std::string(name)))
                    .string()) {}
    scratch_file(const scratch_file&) = delete;
    scratch_file& operator=(const scratch_file&) = delete;
    ~scratch_file() {
        std::error_code ignored;
        std::filesystem::remove(path_, ignored);
    }

    [[nodiscard]] const std::string& path() const noexcept { return path_; }

private:
    std::string path_;
};

} // namespace ctein::testing
