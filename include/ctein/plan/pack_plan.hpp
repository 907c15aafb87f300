// The plans of pack and unpack ("b * c"): einops' rules for the pattern (einops/packing.py),
// then where each tensor goes along the packed `*` axis. Constexpr: the compiler plans from
// static extents, the program again from actual ones, with the same functions.
#pragma once

#include "../core/error.hpp"
#include "../core/extents.hpp"
#include "../core/shape_text.hpp"
#include "../pattern/parse.hpp"
#include "recipe.hpp"

#include <array>
#include <cstddef>
#include <span>
#include <string_view>

namespace ctein::plan {

/// At most this many tensors in one pack or unpack.
inline constexpr std::size_t max_packed = 16;

/// A length of a packed shape that unpack infers from the others: einops' -1. Distinct from
/// `dyn`, which in a plan made by the compiler means "known only at run time".
inline constexpr std::size_t infer_length = dyn - 1;

/// A pack pattern's axes: how many come before and after `*`, and the names of the result.
struct pack_axes {
    diagnostic error;
    std::size_t before = 0;
    std::size_t after = 0;
    bounded_string<256> names; ///< the pattern with `*` as `_` ("" if no axis has a name)
};

/// einops' analyze_pattern: names split by spaces, no duplicates, one `*`, valid names.
constexpr pack_axes analyze_pack_pattern(std::string_view text, std::string_view operation) {
    pack_axes result;
    std::array<std::string_view, max_dims + 1> axes{};
    std::size_t count = 0;
    for (std::size_t i = 0; i < text.size();) {
        if (text[i] == ' ' || text[i] == '\t' || text[i] == '\n') {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < text.size() && text[end] != ' ' && text[end] != '\t' && text[end] != '\n') ++end;
        if (count == axes.size()) {
            result.error = make_error(errc::too_many_axes).with_number(max_dims);
            return result;
        }
        axes[count++] = text.substr(i, end - i);
        i = end;
    }
    const auto fail = [&](errc code) -> pack_axes& {
        result.error = make_error(code).with_text(operation).with_text(text);
        return result;
    };
    for (std::size_t i = 0; i < count; ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (axes[i] == axes[j]) return fail(errc::pack_duplicate_axis);
    std::size_t star = count;
    for (std::size_t i = 0; i < count; ++i)
        if (axes[i] == "*") star = i;
    if (star == count) return fail(errc::pack_no_star);
    for (std::size_t i = 0; i < count; ++i) {
        if (i == star || pattern::axis_name_problem(axes[i]).empty()) continue;
        result.error =
            make_error(errc::pack_invalid_name).with_text(axes[i]).with_text(operation).with_text(text);
        return result;
    }
    result.before = star;
    result.after = count - star - 1;
    for (std::size_t i = 0; i < count; ++i) {
        if (i != 0) result.names.push_back(' ');
        result.names.append(i == star ? "_" : axes[i]);
    }
    if (count == 1) result.names = {};
    return result;
}

/// Where pack puts each tensor: the result's extents, and each tensor's extent along `*` (the
/// product of the dimensions it packs; `dyn` where not known yet).
struct pack_plan {
    diagnostic error;
    pack_axes axes;
    std::size_t output_rank = 0;
    std::array<std::size_t, max_dims> output_extents{};
    bounded_string<256> output_names;
    std::size_t input_count = 0;
    std::array<std::size_t, max_packed> packed_lengths{};

    constexpr bool ok() const noexcept { return !error; }
};

/// Plans `pack(inputs, pattern)`, with einops' errors in einops' order (the pattern, then each
/// tensor's rank) and numpy's for tensors whose other axes differ.
constexpr pack_plan make_pack_plan(std::string_view text, std::span<const operand> inputs) {
    pack_plan p;
    p.axes = analyze_pack_pattern(text, "pack");
    if ((p.error = p.axes.error)) return p;
    if (inputs.empty()) {
        p.error = make_error(errc::pack_no_tensors).with_text(text);
        return p;
    }
    if (inputs.size() > max_packed) {
        p.error = make_error(errc::too_many_axes).with_number(max_packed);
        return p;
    }
    const std::size_t before = p.axes.before, after = p.axes.after;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i].rank >= before + after) continue;
        bounded_string<8 * max_dims> shape;
        append_python_tuple(shape, std::span(inputs[i].extents).first(inputs[i].rank));
        bounded_string<200> pattern_text(text);
        p.error = make_error(errc::pack_too_few_dims)
                      .with_number(i)
                      .with_text(shape.view())
                      .with_text(pattern_text.view())
                      .with_number(before + after);
        return p;
    }
    // the other axes, as numpy compares them: array by array, dimension by dimension
    const auto other_axis = [&](const operand& o, std::size_t d) {
        return o.extents[d < before ? d : o.rank - after + (d - before)];
    };
    p.output_rank = before + 1 + after;
    for (std::size_t d = 0; d < before + after; ++d) {
        std::size_t& extent = p.output_extents[d < before ? d : d + 1];
        extent = dyn;
        for (const operand& o : inputs) extent = extent == dyn ? other_axis(o, d) : extent;
    }
    for (std::size_t i = 1; i < inputs.size(); ++i) {
        for (std::size_t d = 0; d < before + after; ++d) {
            const std::size_t first = other_axis(inputs[0], d), here = other_axis(inputs[i], d);
            if (first != dyn && here != dyn && first != here) {
                p.error = make_error(errc::pack_shape_mismatch)
                              .with_number(d < before ? d : d + 1)
                              .with_number(first)
                              .with_number(i)
                              .with_number(here);
                return p;
            }
        }
    }
    std::size_t total = 0;
    p.input_count = inputs.size();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        std::size_t length = 1;
        for (std::size_t d = before; d < inputs[i].rank - after; ++d)
            length = length == dyn || inputs[i].extents[d] == dyn ? dyn : length * inputs[i].extents[d];
        p.packed_lengths[i] = length;
        total = total == dyn || length == dyn ? dyn : total + length;
    }
    p.output_extents[before] = total;
    p.output_names = p.axes.names;
    return p;
}

/// The shape one unpacked tensor takes along `*`: einops' packed shape, with `infer_length` for -1.
struct packed_shape {
    std::size_t rank = 0;
    std::array<std::size_t, max_dims> lengths{};
};

/// Where unpack takes each tensor from: its first index along `*`, its extent there, and its
/// shape with an inferred length filled in (`dyn` where not known yet).
struct unpack_plan {
    diagnostic error;
    pack_axes axes;
    std::size_t piece_count = 0;
    std::array<std::size_t, max_packed> offsets{};
    std::array<std::size_t, max_packed> lengths{};
    std::array<packed_shape, max_packed> shapes{};

    constexpr bool ok() const noexcept { return !error; }
};

/// Plans `unpack(input, shapes, pattern)` with einops' checks in einops' order.
constexpr unpack_plan make_unpack_plan(std::string_view text, const operand& input,
                                       std::span<const packed_shape> shapes) {
    unpack_plan p;
    p.axes = analyze_pack_pattern(text, "unpack");
    if ((p.error = p.axes.error)) return p;
    const std::size_t before = p.axes.before;
    const auto shapes_text = [&] {
        bounded_string<200> out("[");
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            if (i != 0) out.append(", ");
            std::array<std::size_t, max_dims> shown{};
            for (std::size_t d = 0; d < shapes[i].rank; ++d)
                shown[d] = shapes[i].lengths[d] == infer_length ? dyn : shapes[i].lengths[d];
            append_python_list(out, std::span(shown).first(shapes[i].rank));
        }
        out.push_back(']');
        return out;
    };
    if (input.rank != before + 1 + p.axes.after) {
        bounded_string<8 * max_dims> shape;
        append_python_tuple(shape, std::span(input.extents).first(input.rank));
        p.error = make_error(errc::unpack_wrong_ndim).with_text(text).with_text(shape.view());
        return p;
    }
    if (shapes.size() > max_packed) {
        p.error = make_error(errc::too_many_axes).with_number(max_packed);
        return p;
    }
    // each shape's extent along `*`: the product of its lengths, unless one is inferred
    std::size_t inferred = shapes.size(), unknown = 0, known_total = 0;
    p.piece_count = shapes.size();
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        p.shapes[i] = shapes[i];
        std::size_t length = 1;
        bool infers = false;
        for (std::size_t d = 0; d < shapes[i].rank; ++d) {
            const std::size_t l = shapes[i].lengths[d];
            infers = infers || l == infer_length;
            if (l != infer_length) length = length == dyn || l == dyn ? dyn : length * l;
        }
        if (infers && inferred != shapes.size()) {
            p.error =
                make_error(errc::unpack_multiple_unknown).with_text(text).with_text(shapes_text().view());
            return p;
        }
        if (infers) inferred = i;
        p.lengths[i] = length; // for the inferred shape: the product of its other lengths
        if (!infers) known_total = length == dyn || known_total == dyn ? dyn : known_total + length;
        unknown += length == dyn ? 1 : 0;
    }
    const std::size_t axis = input.extents[before];
    if (axis == dyn || unknown != 0) {
        for (std::size_t i = 0; i < shapes.size(); ++i) p.offsets[i] = dyn;
        if (inferred != shapes.size()) p.lengths[inferred] = dyn;
        return p;
    }
    const auto cannot_split = [&] {
        p.error = make_error(errc::unpack_cannot_split)
                      .with_text(text)
                      .with_number(axis)
                      .with_text(shapes_text().view());
        return p;
    };
    if (inferred == shapes.size()) {
        if (known_total != axis) return cannot_split();
    } else {
        const std::size_t rest = known_total <= axis ? axis - known_total : dyn;
        const std::size_t part = p.lengths[inferred];
        if (rest == dyn || (part == 0 ? rest != 0 : rest % part != 0)) return cannot_split();
        for (std::size_t d = 0; d < shapes[inferred].rank; ++d)
            if (shapes[inferred].lengths[d] == infer_length)
                p.shapes[inferred].lengths[d] = part == 0 ? 0 : rest / part;
        p.lengths[inferred] = rest;
    }
    for (std::size_t i = 0, offset = 0; i < shapes.size(); offset += p.lengths[i++]) p.offsets[i] = offset;
    return p;
}

} // namespace ctein::plan
