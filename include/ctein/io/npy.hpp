// npy: numpy's .npy files in and out of ctein tensors. load_npy checks the file against the
// tensor type the caller declares (element type, rank, every static extent) and reads nothing
// past what the file holds; save_npy writes any tensor or view. Version 1.0 to 3.0 headers,
// little-endian, C order (what numpy.save writes).
#pragma once

#include "../core/error.hpp"
#include "../core/extents.hpp"
#include "../expr/as_view.hpp"
#include "../expr/eval.hpp"
#include "../expr/tensor.hpp"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace ctein {

/// A file that cannot be read as the tensor asked for: missing, malformed, truncated, or of
/// another element type, rank or length. The message names the file and what differs.
class file_error : public error {
public:
    explicit file_error(std::string message)
        : error(errc::none, std::move(message)) {}
};

namespace detail {

/// numpy's descr of T: '<f4', '<i8', '|b1'...
template <class T>
constexpr std::string_view npy_descr() {
    static_assert(std::endian::native == std::endian::little,
                  "ctein's .npy reader assumes a little-endian machine");
    if constexpr (std::is_same_v<T, float>)
        return "<f4";
    else if constexpr (std::is_same_v<T, double>)
        return "<f8";
    else if constexpr (std::is_same_v<T, bool>)
        return "|b1";
    else if constexpr (std::is_same_v<T, std::int8_t>)
        return "|i1";
    else if constexpr (std::is_same_v<T, std::uint8_t>)
        return "|u1";
    else if constexpr (std::is_same_v<T, std::int32_t>)
        return "<i4";
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return "<i8";
    else
        static_assert(sizeof(T) == 0,
                      "ctein .npy files hold float, double, bool, int8, uint8, int32 or int64");
}

/// What an .npy header says.
struct npy_header {
    std::string descr;
    bool fortran_order = false;
    std::vector<std::size_t> shape;
    std::size_t data_offset = 0;
};

/// The value of `key` in numpy's header dict (a Python literal): from after "'key':" to the
/// matching close of a (...) or up to the next ',' or '}'.
inline std::string_view npy_value(std::string_view dict, std::string_view key, const std::string& file) {
    // appended piece by piece: g++ 12 warns (-Wrestrict, a false positive) on "'" + std::string
    std::string quoted(1, '\'');
    quoted.append(key).push_back('\'');
    std::size_t at = dict.find(quoted);
    if (at == std::string_view::npos)
        throw file_error(file + ": .npy header has no '" + std::string(key) + "'");
    at = dict.find(':', at + quoted.size());
    if (at == std::string_view::npos) throw file_error(file + ": malformed .npy header");
    std::size_t begin = at + 1;
    while (begin < dict.size() && dict[begin] == ' ') ++begin;
    std::size_t end = begin;
    if (begin < dict.size() && dict[begin] == '(') {
        end = dict.find(')', begin);
        if (end == std::string_view::npos) throw file_error(file + ": malformed .npy header");
        return dict.substr(begin, end + 1 - begin);
    }
    while (end < dict.size() && dict[end] != ',' && dict[end] != '}') ++end;
    while (end > begin && dict[end - 1] == ' ') --end;
    return dict.substr(begin, end - begin);
}

/// Reads and checks the header of `in` (numpy's format: magic, version, header length, dict).
inline npy_header read_npy_header(std::istream& in, std::uint64_t file_size, const std::string& file) {
    unsigned char start[10];
    if (file_size < 10 || !in.read(reinterpret_cast<char*>(start), 10) ||
        std::string_view(reinterpret_cast<const char*>(start), 6) != "\x93NUMPY")
        throw file_error(file + ": not an .npy file");
    const unsigned major = start[6];
    std::uint64_t header_length = 0;
    std::uint64_t prefix = 10;
    if (major == 1) {
        header_length = start[8] | (std::uint64_t{start[9]} << 8);
    } else if (major == 2 || major == 3) {
        unsigned char more[2];
        if (!in.read(reinterpret_cast<char*>(more), 2)) throw file_error(file + ": truncated .npy header");
        header_length = start[8] | (std::uint64_t{start[9]} << 8) | (std::uint64_t{more[0]} << 16) |
                        (std::uint64_t{more[1]} << 24);
        prefix = 12;
    } else {
        throw file_error(file + ": .npy version " + std::to_string(major) + " is not supported");
    }
    if (header_length > file_size - prefix) throw file_error(file + ": truncated .npy header");
    std::string dict(header_length, '\0');
    if (!in.read(dict.data(), static_cast<std::streamsize>(header_length)))
        throw file_error(file + ": truncated .npy header");

    npy_header h;
    h.data_offset = prefix + header_length;
    std::string_view descr = npy_value(dict, "descr", file);
    if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"') || descr.back() != descr.front())
        throw file_error(file + ": malformed .npy descr");
    h.descr = std::string(descr.substr(1, descr.size() - 2));
    const std::string_view order = npy_value(dict, "fortran_order", file);
    if (order != "False" && order != "True") throw file_error(file + ": malformed .npy fortran_order");
    h.fortran_order = order == "True";
    std::string_view shape = npy_value(dict, "shape", file);
    if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
        throw file_error(file + ": malformed .npy shape");
    shape = shape.substr(1, shape.size() - 2);
    while (!shape.empty()) {
        while (!shape.empty() && (shape.front() == ' ' || shape.front() == ',')) shape.remove_prefix(1);
        if (shape.empty()) break;
        std::size_t n = 0, digits = 0;
        while (!shape.empty() && shape.front() >= '0' && shape.front() <= '9') {
            const std::size_t digit = static_cast<std::size_t>(shape.front() - '0');
            if (n > (static_cast<std::size_t>(-1) - digit) / 10)
                throw file_error(file + ": .npy shape overflows");
            n = n * 10 + digit;
            shape.remove_prefix(1);
            ++digits;
        }
        if (digits == 0) throw file_error(file + ": malformed .npy shape");
        h.shape.push_back(n);
    }
    return h;
}

inline std::string npy_shape_text(const std::vector<std::size_t>& shape) {
    std::string out = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + (shape.size() == 1 ? ",)" : ")");
}

/// The lengths of an array of `shape` read as tensor<T, Names, E...>, and its element count;
/// `what` (the file, and the tensor in it) starts each error: another rank, a static extent of
/// another length (naming the axis and both lengths), a size that overflows.
template <class T, fixed_string Names, std::size_t... E>
std::pair<std::array<std::size_t, sizeof...(E)>, std::uint64_t>
declared_lengths(const std::vector<std::size_t>& shape, const std::string& what) {
    constexpr std::size_t rank = sizeof...(E);
    if (shape.size() != rank)
        throw file_error(what + ": holds a " + std::to_string(shape.size()) + "-dim array " +
                         npy_shape_text(shape) + ", not " + std::to_string(rank) + " dims");
    const pattern::dim_names names = pattern::split_dim_names(Names.view());
    constexpr std::array<std::size_t, rank> declared{E...};
    std::array<std::size_t, rank> lengths{};
    std::uint64_t count = 1;
    for (std::size_t r = 0; r < rank; ++r) {
        if (declared[r] != dyn && declared[r] != shape[r]) {
            const std::string axis =
                names.count == rank ? std::string(names[r]) : std::string(1, '#').append(std::to_string(r));
            throw file_error(what + ": axis " + axis + " has length " + std::to_string(shape[r]) +
                             " in the file, " + std::to_string(declared[r]) + " in the type");
        }
        lengths[r] = shape[r];
        if (lengths[r] != 0 && count > static_cast<std::uint64_t>(-1) / sizeof(T) / lengths[r])
            throw file_error(what + ": shape " + npy_shape_text(shape) + " overflows");
        count *= lengths[r];
    }
    return {lengths, count};
}

/// Reads `count` elements of T from `in` into `out` (bools from bytes, nonzero as true).
template <class T>
void read_elements(std::istream& in, T* out, std::uint64_t count, const std::string& file) {
    if constexpr (std::is_same_v<T, bool>) {
        std::vector<unsigned char> bytes(count);
        in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(count));
        for (std::size_t i = 0; i < count; ++i) out[i] = bytes[i] != 0;
    } else {
        in.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(count * sizeof(T)));
    }
    if (!in) throw file_error(file + ": read failed");
}

} // namespace detail

/// The array of .npy file `path` as a `ctein::tensor<T, Names, E...>`: the file's element type
/// must be T, its rank the number of extents, and each static extent its length (dynamic ones
/// take the file's). A mismatch, a truncated or malformed file throws ctein::file_error naming
/// the file and what differs (the axis and both lengths); nothing past the file's data is read.
///
///     auto w = ctein::load_npy<float, "out in", 512, 512>("w_q.npy");
template <class T, fixed_string Names, std::size_t... E>
tensor<T, Names, E...> load_npy(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw file_error(path + ": cannot open");
    const auto file_size = static_cast<std::uint64_t>(in.tellg());
    in.seekg(0);
    const detail::npy_header h = detail::read_npy_header(in, file_size, path);
    if (h.descr != detail::npy_descr<T>())
        throw file_error(path + ": holds '" + h.descr + "', not '" + std::string(detail::npy_descr<T>()) +
                         "'");
    if (h.fortran_order) throw file_error(path + ": is in Fortran order; ctein reads C order");
    const auto [lengths, count] = detail::declared_lengths<T, Names, E...>(h.shape, path);
    if (count * sizeof(T) > file_size - h.data_offset)
        throw file_error(path + ": truncated: " + std::to_string(file_size - h.data_offset) +
                         " bytes of data for " + detail::npy_shape_text(h.shape) + ", " +
                         std::to_string(count * sizeof(T)) + " needed");
    tensor<T, Names, E...> out(extents<E...>::from_all(lengths), uninitialized);
    detail::read_elements(in, out.data(), count, path);
    return out;
}

/// A state_dict saved as one .npy file per tensor, `<directory>/<prefix><name>.npy`: the same
/// `load` and `contains` as ctein::safetensors_file, so that ctein::nn::load reads either.
///
///     ctein::npy_directory weights("export", "encoder.0.");   // export/encoder.0.W_q.weight.npy ...
///     auto w = weights.load<float, "o i", 512, 512>("W_q.weight");
class npy_directory {
public:
    explicit npy_directory(std::string directory, std::string prefix = {})
        : directory_(std::move(directory))
        , prefix_(std::move(prefix)) {}

    std::string path(std::string_view name) const { return directory_ + "/" + prefix_ + std::string(name) + ".npy"; }
    bool contains(std::string_view name) const { return std::ifstream(path(name)).good(); }

    /// Tensor `name`, as load_npy reads `path(name)`.
    template <class T, fixed_string Names, std::size_t... E>
    tensor<T, Names, E...> load(std::string_view name) const {
        return load_npy<T, Names, E...>(path(name));
    }

private:
    std::string directory_;
    std::string prefix_;
};

/// Writes `x` (any tensor or view) to `path` as an .npy file (version 1.0, C order) that
/// numpy.load reads. Throws ctein::file_error when the file cannot be written.
///
///     ctein::save_npy("out.npy", ctein::attention(q, k, v));
template <viewable X>
void save_npy(const std::string& path, X&& x) {
    const auto contiguous = eval(x);
    using T = typename std::remove_cvref_t<decltype(contiguous)>::value_type;
    std::string dict =
        "{'descr': '" + std::string(detail::npy_descr<T>()) + "', 'fortran_order': False, 'shape': (";
    for (std::size_t r = 0; r < contiguous.rank(); ++r) dict += std::to_string(contiguous.extent(r)) + ", ";
    if (contiguous.rank() > 1)
        dict.resize(dict.size() - 2); // (2, 3), and (5,) for one dim
    else if (contiguous.rank() == 1)
        dict.resize(dict.size() - 1);
    dict += "), }";
    const std::size_t unpadded = 10 + dict.size() + 1; // numpy pads the header to 64 bytes, ending in '\n'
    dict.append((64 - unpadded % 64) % 64, ' ');
    dict += '\n';
    std::ofstream out(path, std::ios::binary);
    if (!out) throw file_error(path + ": cannot write");
    out.write("\x93NUMPY\x01\x00", 8);
    const char length[2] = {static_cast<char>(dict.size() & 0xFF), static_cast<char>(dict.size() >> 8)};
    out.write(length, 2);
    out.write(dict.data(), static_cast<std::streamsize>(dict.size()));
    if constexpr (std::is_same_v<T, bool>) {
        for (std::size_t i = 0; i < contiguous.size(); ++i) out.put(contiguous.data()[i] ? 1 : 0);
    } else {
        out.write(reinterpret_cast<const char*>(contiguous.data()),
                  static_cast<std::streamsize>(contiguous.size() * sizeof(T)));
    }
    if (!out) throw file_error(path + ": write failed");
}

} // namespace ctein
