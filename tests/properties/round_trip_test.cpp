// Property: a rearrange followed by its inverse is the identity. The patterns are random
// permutations and groupings of up to six axes, generated in constexpr code from a seed, so that
// each one is a real compile-time pattern that goes through the whole planner.
#include <ctein/ctein.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

namespace {

constexpr std::string_view axis_letters = "abcdef";

struct random_pattern {
    ctein::bounded_string<64> forward; ///< "a (b c) d -> (d a) c b"
    ctein::bounded_string<64> inverse; ///< "(d a) c b -> a (b c) d"
    std::size_t axis_count = 0;
    std::array<std::size_t, 6> lengths{};
    std::size_t input_rank = 0;
    std::array<std::size_t, 6> input_extents{};
};

/// splitmix64: a small, good generator that constexpr code can run.
constexpr std::uint64_t next(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// One side: the axes in `order`, a new dimension starting where `starts` says; a dimension of
/// several axes in parentheses, a lone axis sometimes too.
constexpr ctein::bounded_string<32> side(const std::array<std::size_t, 6>& order,
                                         const std::array<bool, 6>& starts, std::size_t n,
                                         std::uint64_t& state) {
    ctein::bounded_string<32> out;
    for (std::size_t i = 0; i < n;) {
        std::size_t end = i + 1;
        while (end < n && !starts[end]) ++end;
        const bool parens = end - i > 1 || next(state) % 4 == 0;
        if (!out.empty()) out.push_back(' ');
        if (parens) out.push_back('(');
        for (std::size_t k = i; k < end; ++k) {
            if (k != i) out.push_back(' ');
            out.push_back(axis_letters[order[k]]);
        }
        if (parens) out.push_back(')');
        i = end;
    }
    return out;
}

constexpr random_pattern make_random_pattern(std::uint64_t seed) {
    random_pattern p;
    std::uint64_t state = seed;
    p.axis_count = 1 + next(state) % 6;
    const std::size_t n = p.axis_count;
    for (std::size_t a = 0; a < n; ++a) p.lengths[a] = 1 + next(state) % 4;

    std::array<std::size_t, 6> left{}, right{};
    std::array<bool, 6> left_starts{}, right_starts{};
    for (std::size_t a = 0; a < n; ++a) left[a] = right[a] = a;
    for (std::size_t a = n; a-- > 1;) { // Fisher-Yates
        const std::size_t b = next(state) % (a + 1);
        const std::size_t t = right[a];
        right[a] = right[b];
        right[b] = t;
    }
    for (std::size_t a = 0; a < n; ++a) {
        left_starts[a] = a == 0 || next(state) % 2 == 0;
        right_starts[a] = a == 0 || next(state) % 2 == 0;
    }
    for (std::size_t a = 0; a < n; ++a) {
        if (left_starts[a]) p.input_extents[p.input_rank++] = 1;
        p.input_extents[p.input_rank - 1] *= p.lengths[a];
    }
    const auto l = side(left, left_starts, n, state);
    const auto r = side(right, right_starts, n, state);
    p.forward.append(l.view());
    p.forward.append(" -> ");
    p.forward.append(r.view());
    p.inverse.append(r.view());
    p.inverse.append(" -> ");
    p.inverse.append(l.view());
    return p;
}

template <std::uint64_t Seed>
struct round_trip {
    static constexpr random_pattern p = make_random_pattern(Seed);
    static constexpr auto forward = ctein::fixed_string<p.forward.size()>(p.forward.view());
    static constexpr auto inverse = ctein::fixed_string<p.inverse.size()>(p.inverse.view());
    template <std::size_t A>
    static constexpr auto name = ctein::fixed_string<1>(axis_letters.substr(A, 1));

    template <std::size_t... K, std::size_t... A>
    static void run(std::index_sequence<K...>, std::index_sequence<A...>) {
        INFO("pattern " << p.forward.view());
        ctein::tensor<int, "", p.input_extents[K]...> x;
        for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<int>(i * 7 + 1);
        // every length given: the inverse must split what the forward pattern merged
        const auto there =
            ctein::eval(ctein::rearrange<forward>(x, ctein::axis_length<name<A>, p.lengths[A]>{}...));
        const auto back =
            ctein::eval(ctein::rearrange<inverse>(there, ctein::axis_length<name<A>, p.lengths[A]>{}...));
        static_assert(
            std::is_same_v<typename decltype(back)::extents_type, typename decltype(x)::extents_type>);
        bool same = true;
        for (std::size_t i = 0; i < x.size(); ++i) same = same && back.data()[i] == x.data()[i];
        CHECK(same);
        // and the dynamic-extents path plans the same
        using dynamic = ctein::dims<sizeof...(K)>;
        const ctein::view<const int, "", dynamic> dx(x.data(), dynamic::from_all(x.extents().values()));
        const auto there_dynamic =
            ctein::eval(ctein::rearrange<forward>(dx, ctein::len<name<A>>(p.lengths[A])...));
        bool same_dynamic = there_dynamic.size() == there.size();
        for (std::size_t i = 0; same_dynamic && i < there.size(); ++i)
            same_dynamic = there_dynamic.data()[i] == there.data()[i];
        CHECK(same_dynamic);
    }
    static void run() {
        run(std::make_index_sequence<p.input_rank>{}, std::make_index_sequence<p.axis_count>{});
    }
};

template <std::uint64_t... Seeds>
void run_all(std::integer_sequence<std::uint64_t, Seeds...>) {
    (round_trip<Seeds + 1000>::run(), ...);
}

} // namespace

TEST_CASE("rearrange then its inverse is the identity, for 40 random patterns", "[property][rearrange]") {
    run_all(std::make_integer_sequence<std::uint64_t, 40>{});
}

TEST_CASE("the random patterns cover permutations, merges and splits") {
    // the generator is only useful if it makes non-trivial patterns: count what the 40 seeds make
    std::size_t permuted = 0, grouped = 0;
    for (std::uint64_t seed = 1000; seed < 1040; ++seed) {
        const random_pattern p = make_random_pattern(seed);
        const std::string_view f = p.forward.view();
        const std::size_t arrow = f.find(" -> ");
        std::string left, right;
        for (char c : f.substr(0, arrow))
            if (c >= 'a' && c <= 'f') left += c;
        for (char c : f.substr(arrow + 4))
            if (c >= 'a' && c <= 'f') right += c;
        permuted += left != right ? 1 : 0;
        grouped += f.find('(') != std::string_view::npos ? 1 : 0;
    }
    CHECK(permuted >= 20);
    CHECK(grouped >= 20);
}
