// attention_names: what the axis names of q, k, v and a mask say about their roles in attention
// ([batch, heads, tokens, features] for q, k, v; [batch, heads, queries, keys] for the scores and
// their masks). Constexpr, so the compiler checks static types and `ctein explain` the same text.
#pragma once

#include "../core/error.hpp"
#include "../pattern/axis_names.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ctein::plan {

/// The axes of the attention scores, which a mask broadcasts against.
enum class score_axis : std::uint8_t { batch, heads, queries, keys };
inline constexpr std::size_t score_rank = 4;

/// How a mask's axes are bound to the scores: as PyTorch's attn_mask (by names when the mask is
/// named, otherwise from the right), or as nn.MultiheadAttention's key_padding_mask, [batch, keys].
enum class mask_binding : std::uint8_t { scores, key_padding };

namespace detail {
constexpr bool among(std::string_view name, std::initializer_list<std::string_view> words) noexcept {
    for (const std::string_view w : words)
        if (w == name) return true;
    return false;
}
} // namespace detail

/// Names that say "a sequence of tokens" and "heads": how ctein tells `b s h d` (heads not yet moved
/// in front of the tokens) from `b h s d`. Documented in the README's "Axis names in attention".
constexpr bool is_token_name(std::string_view n) noexcept {
    return detail::among(n, {"s",      "t",     "l",       "n",   "q",      "k",   "i",   "j",   "seq",
                             "tokens", "token", "time",    "len", "length", "tq",  "tk",  "sq",  "sk",
                             "kv_len", "query", "queries", "key", "keys",   "pos", "ctx", "src", "tgt"});
}
constexpr bool is_head_name(std::string_view n) noexcept {
    return detail::among(n, {"h", "g", "heads", "head", "hq", "hkv", "kv", "kv_heads", "groups", "nh"});
}

/// Why the names of one of q, k, v (`which`) put a token axis where the heads belong (or heads
/// where the tokens belong), or no error. The message points at the rearrange that fixes it.
constexpr diagnostic check_attention_roles(std::string_view which, std::string_view names) {
    const pattern::dim_names n = pattern::split_dim_names(names);
    if (n.count != 4) return diagnostic{};
    if (!(is_token_name(n[1]) || is_head_name(n[2]))) return diagnostic{};
    bounded_string<128> fixed;
    for (const std::size_t i : {0, 2, 1, 3}) {
        if (!fixed.empty()) fixed.push_back(' ');
        fixed.append(n[i]);
    }
    return make_error(errc::attention_axis_roles)
        .with_text(which)
        .with_text(names)
        .with_text(names)
        .with_text(fixed.view());
}

/// Whether two named operands name axis `axis` of theirs alike (unnamed axes agree with anything).
constexpr bool names_agree(const pattern::dim_names& a, const pattern::dim_names& b,
                           std::size_t axis) noexcept {
    return !a.names(axis) || !b.names(axis) || a[axis] == b[axis];
}

constexpr diagnostic names_disagree(std::string_view operands, std::string_view axis, std::string_view a,
                                    std::string_view b) {
    return make_error(errc::attention_names_mismatch)
        .with_text(operands)
        .with_text(axis)
        .with_text(a)
        .with_text(b);
}

/// The names of q, k and v against each other: the same batch and features names in all three,
/// k and v named alike, and no token axis where the heads belong.
constexpr diagnostic check_attention_names(std::string_view q, std::string_view k, std::string_view v) {
    if (diagnostic d = check_attention_roles("queries", q)) return d;
    if (diagnostic d = check_attention_roles("keys", k)) return d;
    if (diagnostic d = check_attention_roles("values", v)) return d;
    const pattern::dim_names nq = pattern::split_dim_names(q), nk = pattern::split_dim_names(k),
                             nv = pattern::split_dim_names(v);
    if (!names_agree(nq, nk, 0)) return names_disagree("queries and keys", "batch", q, k);
    if (!names_agree(nq, nk, 3)) return names_disagree("queries and keys", "features", q, k);
    constexpr std::string_view roles[] = {"batch", "heads", "tokens", "features"};
    for (std::size_t a = 0; a < 4; ++a)
        if (!names_agree(nk, nv, a)) return names_disagree("keys and values", roles[a], k, v);
    return diagnostic{};
}

/// The scores' names, [batch, heads, queries, keys]: given (the formula's einsum names them), or
/// q's first three and k's tokens, with b h q k standing in for an unnamed axis.
constexpr std::array<std::string_view, score_rank> score_names(std::string_view given, std::string_view q,
                                                               std::string_view k) {
    const pattern::dim_names g = pattern::split_dim_names(given), nq = pattern::split_dim_names(q),
                             nk = pattern::split_dim_names(k);
    std::array<std::string_view, score_rank> out{"b", "h", "q", "k"};
    for (std::size_t a = 0; a < score_rank; ++a) {
        if (g.count == score_rank && g.names(a)) {
            out[a] = g[a];
        } else if (g.count != score_rank) {
            const pattern::dim_names& from = a == 3 ? nk : nq;
            const std::size_t dim = a == 3 ? 2 : a;
            if (from.names(dim)) out[a] = from[dim];
        }
    }
    return out;
}

/// Which score axis each dimension of a mask stands for.
struct mask_roles {
    diagnostic error;
    std::array<score_axis, score_rank> of{};
};

/// Whether a mask axis named `name` stands for score axis `a`: the scores' own name, or `q` for
/// the queries and `k` for the keys where no score axis is named so (self-attention of q and k
/// both named "b h s d" has scores "b h s s": a (T, T) mask is then "q k").
constexpr bool names_score_axis(const std::array<std::string_view, score_rank>& scores, std::size_t a,
                                std::string_view name) noexcept {
    if (scores[a] == name) return true;
    const std::string_view alias = a == static_cast<std::size_t>(score_axis::queries) ? "q"
                                   : a == static_cast<std::size_t>(score_axis::keys)  ? "k"
                                                                                      : "";
    if (alias.empty() || name != alias) return false;
    for (const std::string_view s : scores)
        if (s == alias) return false;
    return true;
}

/// Binds a mask of `rank` dimensions named `names` to the scores named `scores`:
/// - key padding: [batch, keys];
/// - unnamed (or every axis `_`): [keys], [queries, keys], [batch, queries, keys] (the seeds' and
///   nn.MultiheadAttention users' per-batch masks), [batch, heads, queries, keys];
/// - named: each name must be a score axis's (or `q`, `k`: names_score_axis), in the scores'
///   order; `_` and `1` take the next score axis to the left.
constexpr mask_roles bind_mask(std::size_t rank, std::string_view names, mask_binding binding,
                               const std::array<std::string_view, score_rank>& scores) {
    using enum score_axis;
    mask_roles r;
    if (binding == mask_binding::key_padding) {
        if (rank != 2) r.error = make_error(errc::attention_key_padding_mask_ndim).with_number(rank);
        r.of = {batch, keys};
        return r;
    }
    if (rank < 1 || rank > score_rank) {
        r.error = make_error(errc::attention_mask_ndim).with_number(rank);
        return r;
    }
    const pattern::dim_names n = pattern::split_dim_names(names);
    bool named = false;
    for (std::size_t i = 0; i < n.count; ++i) named = named || n.names(i);
    if (!named) {
        constexpr std::array<std::array<score_axis, score_rank>, score_rank> by_rank{
            {{keys}, {queries, keys}, {batch, queries, keys}, {batch, heads, queries, keys}}};
        r.of = by_rank[rank - 1];
        return r;
    }
    bounded_string<128> score_text;
    for (const std::string_view s : scores) {
        if (!score_text.empty()) score_text.push_back(' ');
        score_text.append(s);
    }
    // from the right: a name takes its score axis, which must lie left of the one taken before
    std::size_t free = score_rank; // score axes [0, free) are still free
    for (std::size_t i = rank; i-- > 0;) {
        std::size_t axis = score_rank;
        if (n.names(i)) {
            for (std::size_t a = free; a-- > 0 && axis == score_rank;)
                if (names_score_axis(scores, a, n[i])) axis = a;
            if (axis == score_rank) {
                bool elsewhere = false;
                for (std::size_t a = 0; a < score_rank; ++a)
                    elsewhere = elsewhere || names_score_axis(scores, a, n[i]);
                r.error =
                    elsewhere
                        ? make_error(errc::attention_mask_order).with_text(names).with_text(score_text.view())
                        : make_error(errc::attention_mask_unknown_name)
                              .with_text(n[i])
                              .with_text(names)
                              .with_text(score_text.view());
                return r;
            }
        } else if (free > 0) {
            axis = free - 1;
        } else {
            r.error = make_error(errc::attention_mask_order).with_text(names).with_text(score_text.view());
            return r;
        }
        r.of[i] = static_cast<score_axis>(axis);
        free = axis;
    }
    return r;
}

} // namespace ctein::plan
