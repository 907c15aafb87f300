// The reductions of `ctein::reduce`, named as einops names them. The planner reads the name
// from the pattern's call; the kernels take the enumerator.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace ctein {

enum class reduction : unsigned char { min, max, sum, mean, prod, any, all };

/// einops' names, in einops' order (the order its "Unknown reduction" message lists them).
inline constexpr std::array<std::string_view, 7> reduction_names{"min",  "max", "sum", "mean",
                                                                 "prod", "any", "all"};

constexpr std::string_view name_of(reduction r) noexcept {
    return reduction_names[static_cast<std::size_t>(r)];
}

/// The reduction called `name`, or nothing if einops has none by that name.
constexpr std::optional<reduction> reduction_named(std::string_view name) noexcept {
    for (std::size_t i = 0; i < reduction_names.size(); ++i)
        if (reduction_names[i] == name) return static_cast<reduction>(i);
    return std::nullopt;
}

} // namespace ctein
