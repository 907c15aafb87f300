// Error codes, their message texts, and the run-time exception types.
// One table (CTEIN_ERROR_TABLE) holds every message; the compile-time reporter
// (core/diagnose.hpp), the run-time exceptions and the `ctein explain` tool all format from it,
// so a mistake reads the same whether the compiler or the program finds it.
#pragma once

#include "bounded_string.hpp"
#include "text_search.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ctein {

// X(code, format): `{}` marks where an argument goes. Texts are einops' own wherever einops has
// the error (einops/parsing.py, einops/einops.py), so users can search for them.
#define CTEIN_ERROR_TABLE(X)                                                                                 \
    /* the pattern text */                                                                                   \
    X(no_arrow, "Pattern must contain '->' exactly once, it contains it {} times")                           \
    X(bad_dots, "Expression may contain dots only inside ellipsis (...)")                                    \
    X(ellipsis_multiple,                                                                                     \
      "Expression may contain dots only inside ellipsis (...); only one ellipsis for tensor ")               \
    X(duplicate_axis, "Indexing expression contains duplicate dimension \"{}\"")                             \
    X(anonymous_axis_nonpositive, "Anonymous axis should have positive length, not {}")                      \
    X(invalid_axis_identifier, "Invalid axis identifier: {}\n{}")                                            \
    X(nested_parens, "Axis composition is one-level (brackets inside brackets not allowed)")                 \
    X(brackets_not_balanced, "Brackets are not balanced")                                                    \
    X(imbalanced_parentheses, "Imbalanced parentheses in expression: \"{}\"")                                \
    X(unknown_character, "Unknown character '{}'")                                                           \
    X(too_many_axes, "Expression has more than {} axes or dimensions, ctein's limit")                        \
    /* the pattern against the operation */                                                                  \
    X(ellipsis_right_only, "Ellipsis found in right side, but not left side of a pattern {}")                \
    X(ellipsis_parenthesized_left, "Ellipsis inside parenthesis in the left side is not allowed: {}")        \
    X(rearrange_anonymous_axis,                                                                              \
      "Non-unitary anonymous axes are not supported in rearrange (exception is length 1)")                   \
    X(identifiers_one_side, "Identifiers only on one side of expression (should be on both): {}")            \
    X(repeat_left_axis, "Unexpected identifiers on the left side of repeat: {}")                             \
    X(repeat_missing_size, "Specify sizes for new axes in repeat: {}")                                       \
    X(reduce_unknown_right, "Unexpected identifiers on the right side of reduce {}: {}")                     \
    /* the pattern against the tensor and the given lengths */                                               \
    X(wrong_ndim, "Wrong shape: expected {} dims. Received {}-dim tensor.")                                  \
    X(wrong_ndim_ellipsis, "Wrong shape: expected >={} dims. Received {}-dim tensor.")                       \
    X(axis_names_mismatch, "pattern axes \"{}\" do not match tensor axes \"{}\"")                            \
    X(invalid_axis_names, "Invalid axis names \"{}\" for a tensor of {} dimensions: {}")                     \
    X(invalid_length_name, "Invalid name for an axis: {}")                                                   \
    X(length_given_twice, "Length of axis {} is given more than once")                                       \
    X(unused_axis_length, "Axis {} is not used in transform")                                                \
    X(cannot_infer, "Could not infer sizes for {}")                                                          \
    X(length_mismatch, "Shape mismatch, {} != {}")                                                           \
    X(not_divisible, "Shape mismatch, can't divide axis of length {} in chunks of {}")                       \
    /* reduce */                                                                                             \
    X(unknown_reduction,                                                                                     \
      "Unknown reduction {}. Expect one of ('min', 'max', 'sum', 'mean', 'prod', 'any', 'all').")            \
    X(mean_non_float, "reduce_mean is not available for non-floating tensors")                               \
    /* einsum */                                                                                             \
    X(einsum_no_operands, "ctein::einsum takes at least one tensor")                                         \
    X(einsum_no_arrow, "Einsum pattern must contain '->'.")                                                  \
    X(einsum_singleton, "Singleton () axes are not yet supported in einsum.")                                \
    X(einsum_composition, "Shape rearrangement is not yet supported in einsum.")                             \
    X(einsum_anonymous, "Anonymous axes are not yet supported in einsum.")                                   \
    X(einsum_unknown_right_axis, "Unknown axis {} on right side of einsum {}.")                              \
    X(einsum_more_operands,                                                                                  \
      "more operands provided to einstein sum function than specified in the subscripts string")             \
    X(einsum_fewer_operands,                                                                                 \
      "fewer operands provided to einstein sum function than specified in the subscripts string")            \
    X(einsum_wrong_ndim, "Wrong shape of einsum operand #{}: expected {} dims. Received {}-dim tensor.")     \
    X(einsum_wrong_ndim_ellipsis,                                                                            \
      "Wrong shape of einsum operand #{}: expected >={} dims. Received {}-dim tensor.")                      \
    X(einsum_length_mismatch, "Shape mismatch in einsum for axis {}: {} != {}")                              \
    X(einsum_names_mismatch, "Axis names disagree in einsum for axis {}: {}")                                \
    /* pack and unpack */                                                                                    \
    X(pack_duplicate_axis, "Duplicates in axes names in {}(..., \"{}\")")                                    \
    X(pack_no_star, "No *-axis in {}(..., \"{}\")")                                                          \
    X(pack_invalid_name, "Invalid axis name {} in {}(..., \"{}\")")                                          \
    X(pack_no_tensors, "pack(..., \"{}\") needs at least one tensor")                                        \
    X(pack_too_few_dims, "packed tensor #{} (enumeration starts with 0) has shape {}, while pattern {} "     \
                         "assumes at least {} axes")                                                         \
    X(pack_shape_mismatch,                                                                                   \
      "all the input array dimensions except for the concatenation axis must match exactly, but along "      \
      "dimension {}, the array at index 0 has size {} and the array at index {} has size {}")                \
    X(unpack_wrong_ndim, "unpack(..., {}) received input of wrong dim with shape {}")                        \
    X(unpack_multiple_unknown, "unpack(..., {}) received more than one -1 in {} and can't infer dimensions") \
    X(unpack_cannot_split,                                                                                   \
      "Error during unpack(..., \"{}\"): could not split axis of size {} into requested {}")                 \
    /* parse_shape */                                                                                        \
    X(parse_shape_composite, "Can't parse shape with composite axes: {} {}")                                 \
    X(parse_shape_ndim, "Can't parse shape with different number of dimensions: {} {}")                      \
    X(parse_shape_ellipsis_ndim, "Can't parse shape with this number of dimensions: {} {}")                  \
    X(parse_shape_unit_axis, "Length of axis is not 1: {} {}")                                               \
    X(parse_shape_anonymous_mismatch, "Length of anonymous axis does not match: {} {}")                      \
    /* attention */                                                                                          \
    X(attention_wrong_ndim, "Wrong shape of attention {}: expected 4 dims [batch, heads, tokens, "           \
                            "features]. Received {}-dim tensor.")                                            \
    X(attention_length_mismatch, "Shape mismatch in attention, {}: {} != {}")                                \
    X(attention_head_groups,                                                                                 \
      "Shape mismatch in attention: {} query heads are not a multiple of {} key/value heads")                \
    X(attention_mask_ndim, "Wrong shape of attention mask: expected 1 to 4 dims, broadcast against the "     \
                           "scores [batch, heads, queries, keys]. Received {}-dim tensor.")                  \
    X(attention_key_padding_mask_ndim,                                                                       \
      "Wrong shape of attention key padding mask: expected 2 dims [batch, keys]. Received {}-dim tensor.")   \
    X(attention_axis_roles,                                                                                  \
      "Axis names of attention {} \"{}\" put tokens where the heads belong "                                 \
      "(attention reads [batch, heads, tokens, features]): rearrange<\"{} -> {}\"> first")                   \
    X(attention_names_mismatch, "Axis names of attention {} disagree on the {} axis: \"{}\" against \"{}\"") \
    X(attention_mask_unknown_name, "Axis {} of attention mask \"{}\" names no axis of the scores \"{}\"")    \
    X(attention_mask_order, "Axes of attention mask \"{}\" are not in the order of the scores \"{}\"")       \
    X(attention_mask_mismatch, "Shape mismatch in attention mask, {} axis: {} does not broadcast to {}")     \
    X(attention_key_padding_count, "Shape mismatch in attention key padding: {} lengths for a batch of {}")  \
    X(dropout_probability, "Dropout probability must be in [0, 1), not {}")                                  \
    /* slice, index, chunk */                                                                                \
    X(axis_not_in_tensor, "Axis {} is not an axis of the tensor named \"{}\"")                               \
    X(slice_out_of_range, "Slice [{}, {}) is out of range for axis {} of length {}")                         \
    X(index_out_of_range, "Index {} is out of range for axis {} of length {}")                               \
    X(chunk_not_divisible, "Axis {} of length {} does not split into {} equal chunks")                       \
    /* element-wise expressions and concat */                                                              \
    X(broadcast_shapes, "operands could not be broadcast together with shapes {} {}")                        \
    X(broadcast_length_mismatch, "Shape mismatch in element-wise expression for axis {}: {} != {}")          \
    X(broadcast_unnamed_axis, "Dimension {} of \"{}\" has no name: named operands of an element-wise "      \
                              "expression meet by their names (name every axis, or none)")                   \
    X(concat_names_mismatch, "Axes of concat operands differ: \"{}\" against \"{}\"")                        \
    X(concat_length_mismatch, "Shape mismatch in concat along {} for axis {}: {} != {}")                      \
    /* attention blocks (nn/) */                                                                           \
    X(linear_input_features, "Linear layer of {} input features given an input whose last axis has {}")     \
    X(block_heads, "Attention block: d_model {} is not a multiple of {} heads")                              \
    X(block_kv_heads, "Attention block: {} query heads are not a multiple of {} key/value heads")           \
    X(block_rope_odd_head, "Attention block: RoPE rotates pairs of features, and the head size {} is odd")   \
    X(cache_overflow, "KV cache of capacity {} cannot take {} more tokens after {}")                         \
    /* tensors */                                                                                            \
    X(assign_shape, "Shape mismatch in assignment, dimension {}: a length of {} given to one of {}")        \
    X(size_overflow,                                                                                         \
      "A tensor of shape {} does not fit in memory: its size overflows at axis {} (dimension {})")           \
    X(operand_size_overflow,                                                                                 \
      "The {} of shape {} does not fit in memory: its size overflows at dimension {}")                       \
    X(adapt_null, "ctein::adapt: a null pointer for a buffer of {} elements")                                 \
    X(adapt_short, "ctein::adapt: a buffer of {} elements for a view of shape {}, which needs {}")            \
    X(adapt_misaligned, "ctein::adapt: address {} is not aligned for its element type (a multiple of {})")

/// What went wrong; `none` means nothing did.
enum class errc : unsigned char {
    none,
#define CTEIN_ERROR_ENUM(code, format) code,
    CTEIN_ERROR_TABLE(CTEIN_ERROR_ENUM)
#undef CTEIN_ERROR_ENUM
};

/// The number of error codes, `none` aside.
inline constexpr std::size_t error_code_count = 0
#define CTEIN_ERROR_COUNT(code, format) +1
    CTEIN_ERROR_TABLE(CTEIN_ERROR_COUNT)
#undef CTEIN_ERROR_COUNT
    ;

/// The message format of an error code, with `{}` where arguments go.
constexpr std::string_view error_format(errc code) noexcept {
    switch (code) {
#define CTEIN_ERROR_CASE(code, format)                                                                       \
    case errc::code:                                                                                         \
        return format;
        CTEIN_ERROR_TABLE(CTEIN_ERROR_CASE)
#undef CTEIN_ERROR_CASE
    case errc::none:
        break;
    }
    return "";
}

/// One argument of a message: a number, a text, or a set of axis names (printed as einops
/// prints a Python set, `{'d', 'c'}`; the names are kept space-separated, an anonymous axis
/// as `2-axis`).
struct error_arg {
    enum class kind : unsigned char { text, number, name_set };
    kind type = kind::text;
    bounded_string<128> text;

    constexpr void print(bounded_string<512>& out) const noexcept {
        if (type != kind::name_set) {
            out.append(text.view());
            return;
        }
        out.push_back('{');
        std::string_view names = text.view();
        bool first = true;
        while (!names.empty()) {
            const std::size_t end = detail::find(names, " ");
            std::string_view name = names.substr(0, end);
            if (!first) out.append(", ");
            // einops prints an anonymous axis unquoted ("2-axis"); names never start with a digit
            const bool quoted = !(name.front() >= '0' && name.front() <= '9');
            if (quoted) out.push_back('\'');
            out.append(name);
            if (quoted) out.push_back('\'');
            first = false;
            names = end == std::string_view::npos ? std::string_view{} : names.substr(end + 1);
        }
        out.push_back('}');
    }
};

/// An error found by the pattern engine: its code, its arguments, and the column of the pattern
/// where it was found (`npos` when it concerns the tensor rather than one place of the pattern).
struct diagnostic {
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_args = 4;

    errc code = errc::none;
    std::size_t column = npos;
    std::size_t arg_count = 0;
    error_arg args[max_args]{};

    constexpr explicit operator bool() const noexcept { return code != errc::none; }

    constexpr diagnostic& with_text(std::string_view text) noexcept {
        return add(error_arg::kind::text).append_to_last(text);
    }
    constexpr diagnostic& with_number(std::size_t value) noexcept {
        add(error_arg::kind::number);
        args[arg_count - 1].text.append_number(value);
        return *this;
    }
    /// Starts a set argument; names are added with `with_name`.
    constexpr diagnostic& with_set() noexcept { return add(error_arg::kind::name_set); }
    constexpr diagnostic& with_name(std::string_view name) noexcept {
        auto& set = args[arg_count - 1].text;
        if (!set.empty()) set.push_back(' ');
        set.append(name);
        return *this;
    }

    /// The full message: the format with its arguments filled in.
    constexpr bounded_string<512> message() const noexcept {
        bounded_string<512> out;
        std::string_view format = error_format(code);
        std::size_t next = 0;
        for (std::size_t i = 0; i < format.size(); ++i) {
            if (format[i] == '{' && i + 1 < format.size() && format[i + 1] == '}') {
                if (next < arg_count) args[next++].print(out);
                ++i;
            } else {
                out.push_back(format[i]);
            }
        }
        return out;
    }

private:
    constexpr diagnostic& add(error_arg::kind type) noexcept {
        if (arg_count < max_args) args[arg_count++].type = type;
        return *this;
    }
    constexpr diagnostic& append_to_last(std::string_view text) noexcept {
        args[arg_count - 1].text.append(text);
        return *this;
    }
};

/// Makes a diagnostic; chain `with_*` calls to add its arguments.
constexpr diagnostic make_error(errc code, std::size_t column = diagnostic::npos) noexcept {
    diagnostic d;
    d.code = code;
    d.column = column;
    return d;
}

/// Base of every exception ctein throws. `what()` starts with the same text the compiler prints
/// when it finds the mistake at compile time.
class error : public std::runtime_error {
public:
    error(errc code, std::string message, std::string context = {})
        : std::runtime_error(context.empty() ? message : message + "\n" + context)
        , code_(code)
        , message_(std::move(message)) {}

    errc code() const noexcept { return code_; }
    /// The message without context lines: einops' text where einops has the error.
    const std::string& message() const noexcept { return message_; }

private:
    errc code_;
    std::string message_;
};

/// A pattern that cannot be parsed or does not suit the operation.
class pattern_error : public error {
    using error::error;
};

/// Extents, given lengths and a pattern that disagree; thrown for dynamic extents, where the
/// compiler could not check them.
class shape_error : public error {
    using error::error;
};

/// An argument outside the values an operation accepts (a dropout probability of 1.5).
class argument_error : public error {
    using error::error;
};

/// Throws the exception that fits `d`: shape errors for lengths, pattern errors otherwise.
[[noreturn]] inline void throw_error(const diagnostic& d, std::string context = {}) {
    std::string message(d.message().view());
    switch (d.code) {
    case errc::wrong_ndim:
    case errc::wrong_ndim_ellipsis:
    case errc::length_mismatch:
    case errc::not_divisible:
    case errc::einsum_wrong_ndim:
    case errc::einsum_wrong_ndim_ellipsis:
    case errc::einsum_length_mismatch:
    case errc::pack_too_few_dims:
    case errc::pack_shape_mismatch:
    case errc::unpack_wrong_ndim:
    case errc::unpack_multiple_unknown:
    case errc::unpack_cannot_split:
    case errc::parse_shape_ndim:
    case errc::parse_shape_ellipsis_ndim:
    case errc::parse_shape_unit_axis:
    case errc::parse_shape_anonymous_mismatch:
    case errc::attention_wrong_ndim:
    case errc::attention_length_mismatch:
    case errc::attention_head_groups:
    case errc::attention_mask_ndim:
    case errc::attention_key_padding_mask_ndim:
    case errc::attention_mask_mismatch:
    case errc::attention_key_padding_count:
    case errc::slice_out_of_range:
    case errc::index_out_of_range:
    case errc::chunk_not_divisible:
    case errc::linear_input_features:
    case errc::cache_overflow:
    case errc::broadcast_shapes:
    case errc::broadcast_length_mismatch:
    case errc::concat_length_mismatch:
    case errc::size_overflow:
    case errc::operand_size_overflow:
    case errc::assign_shape:
        throw shape_error(d.code, std::move(message), std::move(context));
    case errc::dropout_probability:
    case errc::adapt_null:
    case errc::adapt_short:
    case errc::adapt_misaligned:
        throw argument_error(d.code, std::move(message), std::move(context));
    default:
        throw pattern_error(d.code, std::move(message), std::move(context));
    }
}

} // namespace ctein
