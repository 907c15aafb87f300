// safetensors_file (io/safetensors.hpp): a file written here byte by byte read back; each malformed
// or mismatched case a ctein::file_error naming the file, the tensor and what differs (run under
// ASan too: nothing is read out of bounds).
#include <ctein/ctein.hpp>
#include <ctein/io/safetensors.hpp>

#include "../support/scratch_file.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

/// Writes `to`: `header` (JSON) and `data`, its length prefix `announced` (the header's own by
/// default). Returns its path.
const std::string& write_file(const ctein::testing::scratch_file& to, const std::string& header,
                              const std::vector<unsigned char>& data,
                              std::uint64_t announced = static_cast<std::uint64_t>(-1)) {
    const std::string& path = to.path();
    std::ofstream out(path, std::ios::binary);
    const std::uint64_t length = announced == static_cast<std::uint64_t>(-1) ? header.size() : announced;
    for (int i = 0; i < 8; ++i) out.put(static_cast<char>((length >> (8 * i)) & 0xFF));
    out << header;
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    return path;
}

std::vector<unsigned char> floats(std::initializer_list<float> values) {
    std::vector<unsigned char> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), std::data(values), bytes.size());
    return bytes;
}

const std::string two_tensors = R"({"__metadata__": {"format": "pt"},
    "w.weight": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
    "w.bias": {"dtype": "F32", "shape": [2], "data_offsets": [24, 32]}})";
const auto two_tensors_data = floats({1, 2, 3, 4, 5, 6, -1, -2});

} // namespace

TEST_CASE("safetensors: tensors read by name into the declared type", "[safetensors]") {
    const ctein::testing::scratch_file two("two.safetensors");
    const ctein::safetensors_file file(write_file(two, two_tensors, two_tensors_data));
    CHECK(file.names() == std::vector<std::string>{"w.bias", "w.weight"});
    CHECK(file.contains("w.weight"));
    const auto w = file.load<float, "o i", 2, 3>("w.weight");
    CHECK(w(1, 2) == 6.0f);
    const auto b = file.load<float, "o", ctein::dyn>("w.bias");
    REQUIRE(b.extent(0) == 2);
    CHECK(b(1) == -2.0f);
}

TEST_CASE("safetensors: every mismatch and malformed file is a file_error naming what differs",
          "[safetensors]") {
    const ctein::testing::scratch_file two("two.safetensors"), bad("bad.safetensors"),
        tiny("tiny.safetensors");
    const ctein::safetensors_file file(write_file(two, two_tensors, two_tensors_data));
    using Catch::Contains;
    CHECK_THROWS_WITH((file.load<float, "o i", 2, 3>("q.weight")),
                      Contains("no tensor q.weight (it holds w.bias, w.weight)"));
    CHECK_THROWS_WITH((file.load<double, "o i", 2, 3>("w.weight")),
                      Contains("tensor w.weight: holds F32, not F64"));
    CHECK_THROWS_WITH((file.load<float, "o i", 3, 2>("w.weight")),
                      Contains("tensor w.weight: axis o has length 2 in the file, 3 in the type"));
    CHECK_THROWS_WITH((file.load<float, "o", 6>("w.weight")),
                      Contains("holds a 2-dim array (2, 3), not 1 dims"));

    const auto open = [&bad](const std::string& header, const std::vector<unsigned char>& data,
                             std::uint64_t announced = static_cast<std::uint64_t>(-1)) {
        return ctein::safetensors_file(write_file(bad, header, data, announced));
    };
    CHECK_THROWS_WITH(open("", {}, 1000), Contains("truncated header: 1000 bytes announced, 0 in the file"));
    CHECK_THROWS_WITH(open("{not json", {}), Contains("malformed header (not a JSON object)"));
    CHECK_THROWS_WITH(open(R"({"a": {"dtype": "F32", "shape": [2]}})", {}),
                      Contains("tensor a: malformed header entry"));
    CHECK_THROWS_WITH(
        open(R"({"a": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})", floats({1, 2})),
        Contains("tensor a: malformed shape"));
    CHECK_THROWS_WITH(
        open(R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", floats({1, 2})),
        Contains("tensor a: bytes [0, 16) are not inside the file's 8 bytes of data"));
    const auto short_data =
        open(R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 8]}})", floats({1, 2}));
    CHECK_THROWS_WITH((short_data.load<float, "i", 4>("a")),
                      Contains("tensor a: 8 bytes of data for (4,), 16 needed"));
    CHECK_THROWS_WITH(ctein::safetensors_file("/nonexistent/w.safetensors"), Contains("cannot open"));
    std::ofstream(tiny.path()) << "abc";
    CHECK_THROWS_AS(ctein::safetensors_file(tiny.path()), ctein::file_error);
}
