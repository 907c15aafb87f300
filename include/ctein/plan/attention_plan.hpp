// attention_plan: the shape checks of an attention call, one constexpr function run by the compiler
// on static extents and by the program on actual ones, so both report a mistake with the same text.
#pragma once

#include "../core/error.hpp"
#include "../core/extents.hpp"
#include "recipe.hpp"

#include <cstddef>

namespace ctein::plan {

/// The lengths of one attention call; `dyn` where the compiler does not know them.
struct attention_shape {
    std::size_t batch = dyn;
    std::size_t query_heads = dyn;
    std::size_t kv_heads = dyn;
    std::size_t queries = dyn;
    std::size_t keys = dyn;
    std::size_t head_size = dyn;
};

struct attention_plan {
    diagnostic error;
    attention_shape shape;
};

namespace detail {
constexpr bool disagree(std::size_t a, std::size_t b) noexcept {
    return a != dyn && b != dyn && a != b;
}
constexpr std::size_t known(std::size_t a, std::size_t b) noexcept {
    return a != dyn ? a : b;
}

constexpr diagnostic mismatch(std::string_view what, std::size_t a, std::size_t b) noexcept {
    return make_error(errc::attention_length_mismatch).with_text(what).with_number(a).with_number(b);
}

/// A mask axis of length `mask` broadcasts to `target` when equal or 1.
constexpr diagnostic check_mask_axis(std::string_view axis, std::size_t mask, std::size_t target) noexcept {
    if (mask == 1 || !disagree(mask, target)) return diagnostic{};
    return make_error(errc::attention_mask_mismatch).with_text(axis).with_number(mask).with_number(target);
}
} // namespace detail

/// Checks q [B, Hq, Tq, D], k and v [B, Hkv, Tk, D] (Hkv divides Hq), a mask of rank 2 [B, Tk],
/// 3 [B, Tq, Tk] or 4 [B, H, Tq, Tk] (each axis but the keys' may also be 1; `mask.rank` 0 when
/// there is none), and the count of key-padding lengths (`dyn` when none or unknown).
constexpr attention_plan make_attention_plan(const operand& q, const operand& k, const operand& v,
                                             const operand& mask = {},
                                             std::size_t key_padding_count = dyn) noexcept {
    attention_plan plan;
    const operand* named[] = {&q, &k, &v};
    constexpr std::string_view names[] = {"queries", "keys", "values"};
    for (int i = 0; i < 3; ++i)
        if (named[i]->rank != 4) {
            plan.error =
                make_error(errc::attention_wrong_ndim).with_text(names[i]).with_number(named[i]->rank);
            return plan;
        }
    using detail::disagree, detail::known, detail::mismatch;
    if (disagree(q.extents[0], k.extents[0]))
        plan.error = mismatch("batch of queries and keys", q.extents[0], k.extents[0]);
    else if (disagree(k.extents[0], v.extents[0]))
        plan.error = mismatch("batch of keys and values", k.extents[0], v.extents[0]);
    else if (disagree(k.extents[1], v.extents[1]))
        plan.error = mismatch("heads of keys and values", k.extents[1], v.extents[1]);
    else if (disagree(k.extents[2], v.extents[2]))
        plan.error = mismatch("tokens of keys and values", k.extents[2], v.extents[2]);
    else if (disagree(q.extents[3], k.extents[3]))
        plan.error = mismatch("features of queries and keys", q.extents[3], k.extents[3]);
    else if (disagree(k.extents[3], v.extents[3]))
        plan.error = mismatch("features of keys and values", k.extents[3], v.extents[3]);
    else if (q.extents[1] != dyn && k.extents[1] != dyn &&
             (k.extents[1] == 0 || q.extents[1] % k.extents[1] != 0))
        plan.error =
            make_error(errc::attention_head_groups).with_number(q.extents[1]).with_number(k.extents[1]);
    if (plan.error) return plan;

    attention_shape& s = plan.shape;
    s.batch = known(q.extents[0], known(k.extents[0], v.extents[0]));
    s.query_heads = q.extents[1];
    s.kv_heads = known(k.extents[1], v.extents[1]);
    s.queries = q.extents[2];
    s.keys = known(k.extents[2], v.extents[2]);
    s.head_size = known(q.extents[3], known(k.extents[3], v.extents[3]));

    if (mask.rank != 0) {
        if (mask.rank < 2 || mask.rank > 4) {
            plan.error = make_error(errc::attention_mask_ndim).with_number(mask.rank);
            return plan;
        }
        const std::size_t r = mask.rank;
        diagnostic d = detail::check_mask_axis("batch", mask.extents[0], s.batch);
        if (!d) d = detail::check_mask_axis("keys", mask.extents[r - 1], s.keys);
        if (!d && r >= 3) d = detail::check_mask_axis("queries", mask.extents[r - 2], s.queries);
        if (!d && r == 4) d = detail::check_mask_axis("heads", mask.extents[1], s.query_heads);
        plan.error = d;
        if (d) return plan;
    }
    if (disagree(key_padding_count, s.batch))
        plan.error =
            make_error(errc::attention_key_padding_count).with_number(key_padding_count).with_number(s.batch);
    return plan;
}

} // namespace ctein::plan
