// The axis-name checks of attention (plan/attention_names.hpp) and of einsum (bind_names in
// plan/einsum_plan.hpp), run by the compiler: every rule with the case that passes beside the one
// that fails.
#include <ctein/plan/attention_plan.hpp>
#include <ctein/plan/einsum_plan.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <string_view>

using namespace ctein::plan;
using ctein::errc;

namespace {
constexpr std::array<std::string_view, score_rank> bhqk{"b", "h", "q", "k"};

/// The score axes a mask binds to, as the letters b h q k ("!" and the error code when it fails).
constexpr ctein::bounded_string<8> roles(std::size_t rank, std::string_view names,
                                         const std::array<std::string_view, score_rank>& scores = bhqk,
                                         mask_binding binding = mask_binding::scores) {
    const mask_roles r = bind_mask(rank, names, binding, scores);
    ctein::bounded_string<8> out;
    if (r.error) {
        out.push_back('!');
        return out;
    }
    for (std::size_t i = 0; i < rank; ++i) out.push_back("bhqk"[static_cast<std::size_t>(r.of[i])]);
    return out;
}
constexpr errc mask_error(std::size_t rank, std::string_view names,
                          const std::array<std::string_view, score_rank>& scores = bhqk) {
    return bind_mask(rank, names, mask_binding::scores, scores).error.code;
}
} // namespace

TEST_CASE("an unnamed mask broadcasts as PyTorch's attn_mask, by its rank", "[plan][attention]") {
    STATIC_REQUIRE(roles(1, "") == "k");
    STATIC_REQUIRE(roles(2, "") == "qk");  // (Tq, Tk), not [batch, keys]
    STATIC_REQUIRE(roles(3, "") == "bqk"); // per batch, as the seeds unsqueeze it
    STATIC_REQUIRE(roles(4, "") == "bhqk");
    STATIC_REQUIRE(roles(2, "_ _") == "qk");
    STATIC_REQUIRE(mask_error(5, "") == errc::attention_mask_ndim);
    STATIC_REQUIRE(mask_error(0, "") == errc::attention_mask_ndim);
}

TEST_CASE("a named mask binds by its names, in the scores' order", "[plan][attention]") {
    STATIC_REQUIRE(roles(2, "b k") == "bk"); // key padding as a mask
    STATIC_REQUIRE(roles(3, "h q k") == "hqk");
    STATIC_REQUIRE(roles(3, "b 1 k") == "bqk"); // a unit takes the next axis to the left
    STATIC_REQUIRE(roles(4, "b 1 q k") == "bhqk");
    STATIC_REQUIRE(roles(3, "b _ k") == "bqk");
    STATIC_REQUIRE(mask_error(2, "k q") == errc::attention_mask_order);
    STATIC_REQUIRE(mask_error(2, "b x") == errc::attention_mask_unknown_name);
    STATIC_REQUIRE(mask_error(3, "_ b k") == errc::attention_mask_order); // nothing left of the batch
    // self-attention of q and k both named "b h s d": the scores are "b h s s"
    constexpr std::array<std::string_view, score_rank> self{"b", "h", "s", "s"};
    STATIC_REQUIRE(roles(2, "b s", self) == "bk");
    STATIC_REQUIRE(roles(2, "q k", self) == "qk"); // q and k name the queries and keys there
    STATIC_REQUIRE(mask_error(2, "k q", self) == errc::attention_mask_order);
    // cross attention "b h s d" against "b h t d": the scores are "b h s t", q and k are free names
    constexpr std::array<std::string_view, score_rank> cross{"b", "h", "s", "t"};
    STATIC_REQUIRE(roles(2, "s t", cross) == "qk");
    STATIC_REQUIRE(roles(2, "q k", cross) == "qk");
    STATIC_REQUIRE(mask_error(2, "t s", cross) == errc::attention_mask_order);
}

TEST_CASE("a key padding mask is batch x keys", "[plan][attention]") {
    STATIC_REQUIRE(roles(2, "", bhqk, mask_binding::key_padding) == "bk");
    STATIC_REQUIRE(roles(2, "x y", bhqk, mask_binding::key_padding) == "bk");
    STATIC_REQUIRE(bind_mask(3, "", mask_binding::key_padding, bhqk).error.code ==
                   errc::attention_key_padding_mask_ndim);
}

TEST_CASE("the scores are named by the formula's einsum, or by q and k", "[plan][attention]") {
    STATIC_REQUIRE(score_names("", "b h s d", "b h t d") ==
                   std::array<std::string_view, 4>{"b", "h", "s", "t"});
    STATIC_REQUIRE(score_names("", "", "") == bhqk);
    STATIC_REQUIRE(score_names("", "_ h s d", "b g _ d") ==
                   std::array<std::string_view, 4>{"b", "h", "s", "k"});
    STATIC_REQUIRE(score_names("x y i j", "b h s d", "b h s d") ==
                   std::array<std::string_view, 4>{"x", "y", "i", "j"});
}

TEST_CASE("q, k and v names: heads before tokens, batch and features alike", "[plan][attention]") {
    STATIC_REQUIRE(!check_attention_names("b h s d", "b h s d", "b h s d"));
    STATIC_REQUIRE(!check_attention_names("b h s d", "b g t d", "b g t d")); // grouped-query, cross
    STATIC_REQUIRE(!check_attention_names("", "b h s d", "_ _ _ _"));        // unnamed binds anything
    STATIC_REQUIRE(!check_attention_names("b (g r) s d", "b g s d", "b g s d"));
    STATIC_REQUIRE(check_attention_names("b s h d", "b s h d", "b s h d").code == errc::attention_axis_roles);
    STATIC_REQUIRE(check_attention_names("b h s d", "b t h d", "b t h d").code == errc::attention_axis_roles);
    STATIC_REQUIRE(check_attention_names("b heads seq d", "b heads seq d", "b heads seq d").code ==
                   errc::none);
    STATIC_REQUIRE(check_attention_names("b seq heads d", "b h s d", "b h s d").code ==
                   errc::attention_axis_roles);
    STATIC_REQUIRE(check_attention_names("b h s d", "c h s d", "c h s d").code ==
                   errc::attention_names_mismatch);
    STATIC_REQUIRE(check_attention_names("b h s d", "b h s e", "b h s e").code ==
                   errc::attention_names_mismatch);
    STATIC_REQUIRE(check_attention_names("b h s d", "b h s d", "b h t d").code ==
                   errc::attention_names_mismatch);
    STATIC_REQUIRE(check_attention_roles("queries", "b s h d").message().view() ==
                   "Axis names of attention queries \"b s h d\" put tokens where the heads belong (attention "
                   "reads [batch, heads, tokens, features]): rearrange<\"b s h d -> b h s d\"> first");
}

TEST_CASE("einsum: named operands must not be permuted against the pattern", "[plan][einsum]") {
    const auto plan = [](std::string_view q, std::string_view k) {
        const std::array<operand, 2> ops{{{4, {2, 8, 64, 64}, q}, {4, {2, 8, 64, 64}, k}}};
        return make_einsum_plan("b h q d, b h k d -> b h q k", ops);
    };
    STATIC_REQUIRE(plan("b h s d", "b h s d").ok()); // the letters are the pattern's own
    STATIC_REQUIRE(plan("b h s d", "b h t d").ok());
    STATIC_REQUIRE(plan("b h s d", "").ok());
    STATIC_REQUIRE(plan("b h s d", "_ _ t d").ok());  // `_` binds anything
    STATIC_REQUIRE(!plan("b h s d", "_ _ d s").ok()); // still a swap: d stands at letters d and k
    STATIC_REQUIRE(plan("b h s d", "b h d s").error.code == errc::einsum_names_mismatch);
    STATIC_REQUIRE(plan("b h s d", "b h d s").error.message().view() ==
                   "Axis names disagree in einsum for axis d: operand #0 names it d, operand #1 names it s");
    // weights named by their scores against values named by their tensor: a renaming, not a swap
    constexpr std::array<operand, 2> wv{{{4, {2, 8, 64, 64}, "b h q k"}, {4, {2, 8, 64, 64}, "b h s d"}}};
    STATIC_REQUIRE(make_einsum_plan("b h q k, b h k d -> b h q d", wv).ok());
}
