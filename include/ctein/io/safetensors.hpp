// safetensors: Hugging Face's weight files (an 8-byte header length, a JSON header naming each
// tensor's dtype, shape and byte range, then the raw data), read into ctein tensors with the same
// checks as load_npy. Needs nlohmann-json (Debian's nlohmann-json3-dev) for the header; include it
// on its own: <ctein/io/safetensors.hpp>.
#pragma once

#include "npy.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ctein {

namespace detail {
/// The safetensors dtype of T.
template <class T>
constexpr std::string_view safetensors_dtype() {
    if constexpr (std::is_same_v<T, float>)
        return "F32";
    else if constexpr (std::is_same_v<T, double>)
        return "F64";
    else if constexpr (std::is_same_v<T, bool>)
        return "BOOL";
    else if constexpr (std::is_same_v<T, std::int8_t>)
        return "I8";
    else if constexpr (std::is_same_v<T, std::uint8_t>)
        return "U8";
    else if constexpr (std::is_same_v<T, std::int32_t>)
        return "I32";
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return "I64";
    else
        static_assert(always_false<T>, "ctein::safetensors_file: element types are float, double, bool, "
                                       "int8, uint8, int32 and int64");
}
} // namespace detail

/// A .safetensors file (what `safetensors.torch.save_file(model.state_dict(), path)` writes): the
/// header is read and checked when the file is opened (every tensor's byte range inside the file),
/// and `load` reads one tensor into a `ctein::tensor` of the type asked for. A missing tensor, another
/// dtype, rank or static length, a malformed or truncated file throw ctein::file_error naming the
/// file, the tensor and what differs; nothing past the file's data is read.
///
///     ctein::safetensors_file weights("attention.safetensors");
///     block.q_proj.weight() = weights.load<float, "o i", 768, 768>("q_proj.weight");
class safetensors_file {
public:
    explicit safetensors_file(std::string path)
        : path_(std::move(path)) {
        std::ifstream in(path_, std::ios::binary | std::ios::ate);
        if (!in) throw file_error(path_ + ": cannot open");
        const auto file_size = static_cast<std::uint64_t>(in.tellg());
        in.seekg(0);
        unsigned char length_bytes[8];
        if (file_size < 8 || !in.read(reinterpret_cast<char*>(length_bytes), 8))
            throw file_error(path_ + ": not a safetensors file (shorter than its header length)");
        std::uint64_t header_length = 0;
        for (int i = 7; i >= 0; --i) header_length = header_length << 8 | length_bytes[i];
        if (header_length > file_size - 8)
            throw file_error(path_ + ": truncated header: " + std::to_string(header_length) +
                             " bytes announced, " + std::to_string(file_size - 8) + " in the file");
        std::string header(header_length, '\0');
        if (!in.read(header.data(), static_cast<std::streamsize>(header_length)))
            throw file_error(path_ + ": truncated header");
        data_start_ = 8 + header_length;
        const std::uint64_t data_size = file_size - data_start_;

        const nlohmann::json json = nlohmann::json::parse(header, nullptr, false);
        if (json.is_discarded() || !json.is_object())
            throw file_error(path_ + ": malformed header (not a JSON object)");
        for (const auto& [name, value] : json.items()) {
            if (name == "__metadata__") continue;
            const std::string what = path_ + ": tensor " + name;
            if (!value.is_object() || !value.contains("dtype") || !value["dtype"].is_string() ||
                !value.contains("shape") || !value["shape"].is_array() || !value.contains("data_offsets") ||
                !value["data_offsets"].is_array() || value["data_offsets"].size() != 2)
                throw file_error(what + ": malformed header entry");
            entry e;
            e.dtype = value["dtype"].get<std::string>();
            for (const auto& length : value["shape"]) {
                if (!length.is_number_unsigned()) throw file_error(what + ": malformed shape");
                e.shape.push_back(length.get<std::size_t>());
            }
            const auto& offsets = value["data_offsets"];
            if (!offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned())
                throw file_error(what + ": malformed data_offsets");
            e.begin = offsets[0].get<std::uint64_t>();
            e.end = offsets[1].get<std::uint64_t>();
            if (e.begin > e.end || e.end > data_size)
                throw file_error(what + ": bytes [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                                 ") are not inside the file's " + std::to_string(data_size) +
                                 " bytes of data");
            entries_.emplace(name, std::move(e));
        }
    }

    const std::string& path() const noexcept { return path_; }
    bool contains(std::string_view name) const { return entries_.find(std::string(name)) != entries_.end(); }
    /// The tensors' names, in order.
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& [name, e] : entries_) out.push_back(name);
        return out;
    }

    /// Tensor `name` as a `ctein::tensor<T, Names, E...>`: its dtype must be T's, its rank the
    /// number of extents, each static extent its length, and its bytes exactly its elements'.
    template <class T, fixed_string Names, std::size_t... E>
    tensor<T, Names, E...> load(const std::string& name) const {
        const std::string what = path_ + ": tensor " + name;
        const auto found = entries_.find(name);
        if (found == entries_.end()) {
            std::string known;
            for (const auto& [n, e] : entries_) known += (known.empty() ? "" : ", ") + n;
            throw file_error(path_ + ": no tensor " + name + " (it holds " +
                             (known.empty() ? "none" : known) + ")");
        }
        const entry& e = found->second;
        if (e.dtype != detail::safetensors_dtype<T>())
            throw file_error(what + ": holds " + e.dtype + ", not " +
                             std::string(detail::safetensors_dtype<T>()));
        const auto [lengths, count] = detail::declared_lengths<T, Names, E...>(e.shape, what);
        if (count * sizeof(T) != e.end - e.begin)
            throw file_error(what + ": " + std::to_string(e.end - e.begin) + " bytes of data for " +
                             detail::npy_shape_text(e.shape) + ", " + std::to_string(count * sizeof(T)) +
                             " needed");
        std::ifstream in(path_, std::ios::binary);
        in.seekg(static_cast<std::streamoff>(data_start_ + e.begin));
        tensor<T, Names, E...> out(extents<E...>::from_all(lengths), uninitialized);
        detail::read_elements(in, out.data(), count, what);
        return out;
    }

private:
    struct entry {
        std::string dtype;
        std::vector<std::size_t> shape;
        std::uint64_t begin = 0;
        std::uint64_t end = 0;
    };

    std::string path_;
    std::uint64_t data_start_ = 0;
    std::map<std::string, entry> entries_;
};

} // namespace ctein
