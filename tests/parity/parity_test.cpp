// Runs every recorded einops case of the supported operations against its generated check.
#include "parity.hpp"

#include <string>

namespace {
void check_all(const std::string& operation, std::size_t at_least) {
    const auto& checks = parity::registry()[operation];
    std::size_t checked = 0;
    for (const auto& c : parity::records()) {
        if (c.at("op") != operation) continue;
        const std::string id = c.at("id");
        const auto check = checks.find(id);
        REQUIRE(check != checks.end()); // every recorded case has its instantiated check
        DYNAMIC_SECTION(id) {
            check->second(c);
        }
        ++checked;
    }
    CHECK(checked == checks.size()); // and every check its recorded case
    CHECK(checked >= at_least);
}
} // namespace

TEST_CASE("rearrange agrees with einops on every recorded rearrange case", "[parity][rearrange]") {
    check_all("rearrange", 182);
}
