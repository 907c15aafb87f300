// attention_plan: the shape checks of an attention call, one constexpr function run by the compiler
// on static extents and by the program on actual ones, so both report a mistake with the same text.
#pragma once

#include "../core/error.hpp"
#include "../core/extents.hpp"
#include "attention_names.hpp"
#include "recipe.hpp"

#include <array>
#include <cstddef>
#include <string_view>

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
    std::size_t mask_rank = 0;                              ///< 0 when there is no mask
    std::array<score_axis, score_rank> mask_axes{};         ///< what each mask dimension stands for
    std::array<std::string_view, score_rank> score_names{}; ///< [batch, heads, queries, keys]
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

/// A mask axis of length `mask` broadcasts to `target` when equal or 1 (the keys' must be equal).
constexpr diagnostic check_mask_axis(score_axis axis, std::size_t mask, std::size_t target) noexcept {
    constexpr std::string_view names[] = {"batch", "heads", "queries", "keys"};
    if ((mask == 1 && axis != score_axis::keys) || !disagree(mask, target)) return diagnostic{};
    return make_error(errc::attention_mask_mismatch)
        .with_text(names[static_cast<std::size_t>(axis)])
        .with_number(mask)
        .with_number(target);
}
} // namespace detail

/// What a call passes besides q, k and v: its mask (`rank` 0 when there is none) and how the mask
/// binds, the count of key-padding lengths (`dyn` when none or unknown), and the scores' names
/// when the formula's einsum gives them (empty: taken from q and k).
struct attention_extras {
    operand mask{};
    mask_binding binding = mask_binding::scores;
    std::size_t key_padding_count = dyn;
    std::string_view score_names{};
};

/// Checks q [B, Hq, Tq, D], k and v [B, Hkv, Tk, D] (Hkv divides Hq): their ranks, then their axis
/// names (attention_names.hpp), then their lengths; then binds the mask to the scores [B, Hq, Tq, Tk]
/// (by its names, or from the right: [Tk], [Tq, Tk], [B, Tq, Tk], [B, H, Tq, Tk]; a key-padding mask
/// is [B, Tk]), each of its axes equal to the scores' or 1 (the keys' equal); then the count of
/// key-padding lengths.
constexpr attention_plan make_attention_plan(const operand& q, const operand& k, const operand& v,
                                             const attention_extras& extras = {}) noexcept {
    attention_plan plan;
    const operand* named[] = {&q, &k, &v};
    constexpr std::string_view names[] = {"queries", "keys", "values"};
    for (int i = 0; i < 3; ++i)
        if (named[i]->rank != 4) {
            plan.error =
                make_error(errc::attention_wrong_ndim).with_text(names[i]).with_number(named[i]->rank);
            return plan;
        }
    if ((plan.error = check_attention_names(q.names, k.names, v.names))) return plan;
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
    plan.score_names = score_names(extras.score_names, q.names, k.names);

    const operand& mask = extras.mask;
    if (mask.rank != 0) {
        const mask_roles roles = bind_mask(mask.rank, mask.names, extras.binding, plan.score_names);
        if ((plan.error = roles.error)) return plan;
        plan.mask_rank = mask.rank;
        plan.mask_axes = roles.of;
        const std::size_t target[] = {s.batch, s.query_heads, s.queries, s.keys};
        for (std::size_t i = 0; i < mask.rank; ++i) {
            const score_axis axis = roles.of[i];
            if ((plan.error =
                     detail::check_mask_axis(axis, mask.extents[i], target[static_cast<std::size_t>(axis)])))
                return plan;
        }
    }
    if (disagree(extras.key_padding_count, s.batch))
        plan.error = make_error(errc::attention_key_padding_count)
                         .with_number(extras.key_padding_count)
                         .with_number(s.batch);
    return plan;
}

} // namespace ctein::plan
