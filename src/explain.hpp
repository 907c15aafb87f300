// `ctein explain`: what ctein makes of a pattern, from the command line. It runs the same
// constexpr planners the compiler runs, on the pattern as a run-time string, so its messages are
// the ones a program gets at compile time.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace ctein::tool {

struct explanation {
    int status = 0;   ///< 0: planned; 1: the pattern or shapes are wrong; 2: bad command line
    std::string text; ///< what to print: the plan, or "error: " and the message
};

/// Explains `args`, the words after `ctein explain`:
///     PATTERN [--op rearrange|reduce:NAME|repeat|einsum|pack|unpack|parse_shape]
///             [--shape 2,?,512 [--names "b s c"]]... [-a NAME=LENGTH]...
///             [--packed "[[], [3], [2, 3]]"] [--dtype float|int|bool]
///     --op attention --shape Q --shape K --shape V [--shape MASK] [--names ...] [--key-padding-mask]
explanation explain(std::span<const std::string_view> args);

/// The usage text.
std::string_view usage() noexcept;

} // namespace ctein::tool
