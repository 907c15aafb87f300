// load_npy and save_npy (io/npy.hpp): round trips, files numpy wrote, and every way a file can
// disagree with the tensor type or be broken (run under ASan in make test's sanitizer stage).
#include <ctein/ctein.hpp>

#include "../support/deterministic_fill.hpp"
#include "../support/scratch_file.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <string>

namespace {
using ctein::dyn;

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void write_all(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}
} // namespace

TEST_CASE("save_npy then load_npy gives the tensor back, static and dynamic extents", "[npy]") {
    ctein::tensor<float, "b s d", 2, 5, 3> x;
    ctein::testing::deterministic_fill(x, 1);
    const ctein::testing::scratch_file file("round_trip.npy");
    const std::string& path = file.path();
    ctein::save_npy(path, x);
    const auto back = ctein::load_npy<float, "b s d", 2, 5, 3>(path);
    const auto dynamic = ctein::load_npy<float, "b s d", 2, dyn, 3>(path);
    REQUIRE(dynamic.extent(1) == 5);
    for (std::size_t i = 0; i < x.size(); ++i) {
        REQUIRE(back.data()[i] == x.data()[i]);
        REQUIRE(dynamic.data()[i] == x.data()[i]);
    }
    // a strided view is written in its own order; bools and integers round-trip too
    ctein::save_npy(path, ctein::rearrange<"b s d -> d b s">(x));
    const auto moved = ctein::load_npy<float, "d b s", 3, 2, 5>(path);
    CHECK(moved(2, 1, 4) == x(1, 4, 2));
    ctein::tensor<bool, "q k", 3, 4> keep;
    keep(1, 2) = true;
    ctein::save_npy(path, keep);
    const auto keep_back = ctein::load_npy<bool, "q k", 3, 4>(path);
    CHECK(keep_back(1, 2));
    CHECK_FALSE(keep_back(2, 1));
    ctein::tensor<std::int64_t, "n", 3> lengths;
    lengths(2) = 1ll << 40;
    ctein::save_npy(path, lengths);
    CHECK(ctein::load_npy<std::int64_t, "n", 3>(path)(2) == (1ll << 40));
    // numpy's header: magic, version 1.0, a 64-byte-aligned header ending in a newline
    const std::string bytes = read_all(path);
    CHECK(bytes.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
    CHECK((10 + static_cast<unsigned char>(bytes[8])) % 64 == 0);
    CHECK(bytes.find("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }") == 10);
}

TEST_CASE("load_npy reads the files numpy wrote", "[npy]") {
    // written by numpy.save in tests/fixtures/make_attention_fixtures.py
    const auto probe =
        ctein::load_npy<float, "seed i", 4, 256>(std::string(CTEIN_FIXTURE_DIR) + "/input_probe.npy");
    CHECK(probe(0, 0) == -1.0f); // numpy.load reads -1.0 there
    const auto out = ctein::load_npy<float, "b h q d", dyn, dyn, dyn, 32>(std::string(CTEIN_FIXTURE_DIR) +
                                                                          "/self_t1_d32.out.npy");
    CHECK(out.extent(0) == 2);
    CHECK(out.extent(1) == 3);
}

TEST_CASE("a file that disagrees with the type, or is broken, is a file_error naming it", "[npy]") {
    ctein::tensor<float, "b s d", 2, 5, 3> x;
    const ctein::testing::scratch_file file("checks.npy"), missing("missing.npy");
    const std::string& path = file.path();
    ctein::save_npy(path, x);
    using Catch::Contains;
    CHECK_THROWS_WITH((ctein::load_npy<float, "b s d", 2, 6, 3>(path)),
                      Contains(path) && Contains("axis s has length 5 in the file, 6 in the type"));
    CHECK_THROWS_WITH((ctein::load_npy<double, "b s d", 2, 5, 3>(path)), Contains("holds '<f4', not '<f8'"));
    CHECK_THROWS_WITH((ctein::load_npy<float, "b s", 2, 15>(path)),
                      Contains("holds a 3-dim array (2, 5, 3), not 2 dims"));
    CHECK_THROWS_WITH((ctein::load_npy<float, "", 2, 5, 3>(missing.path())), Contains("cannot open"));

    const std::string good = read_all(path);
    const auto broken = [&](const std::string& bytes) {
        write_all(path, bytes);
        return [&] { static_cast<void>(ctein::load_npy<float, "b s d", 2, 5, 3>(path)); };
    };
    CHECK_THROWS_AS(broken(good.substr(0, good.size() - 1))(), ctein::file_error); // one byte short
    CHECK_THROWS_WITH(broken(good.substr(0, good.size() - 4))(), Contains("truncated: 116 bytes of data"));
    CHECK_THROWS_WITH(broken(good.substr(0, 40))(), Contains("truncated .npy header"));
    CHECK_THROWS_WITH(broken(good.substr(0, 5))(), Contains("not an .npy file"));
    CHECK_THROWS_WITH(broken("PK\x03\x04 a zip file, not an array")(), Contains("not an .npy file"));
    std::string shape_garbage = good;
    shape_garbage.replace(shape_garbage.find("(2, 5, 3)"), 9, "(2, x, 3)");
    CHECK_THROWS_WITH(broken(shape_garbage)(), Contains("malformed .npy shape"));
    std::string huge = good;
    huge.replace(huge.find("(2, 5, 3)"), 9, "(9999999999999999999999, 1)");
    CHECK_THROWS_AS(broken(huge)(), ctein::file_error);
    std::string overflow = good;
    overflow.replace(overflow.find("(2, 5, 3)"), 9, "(4294967296, 4294967296, 8)");
    CHECK_THROWS_AS((write_all(path, overflow), ctein::load_npy<float, "", dyn, dyn, dyn>(path)),
                    ctein::file_error);
    std::string fortran = good;
    fortran.replace(fortran.find("False"), 5, "True ");
    CHECK_THROWS_WITH(broken(fortran)(), Contains("Fortran order"));
    std::string version = good;
    version[6] = 9;
    CHECK_THROWS_WITH(broken(version)(), Contains("version 9 is not supported"));
}
