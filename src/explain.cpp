// `ctein explain`: parses its command line, runs the planner of the operation asked for, and
// describes the plan or prints the planner's message.
#include "explain.hpp"

#include <ctein/core/shape_text.hpp>
#include <ctein/pattern/axis_names.hpp>
#include <ctein/plan/attention_plan.hpp>
#include <ctein/plan/einsum_plan.hpp>
#include <ctein/plan/pack_plan.hpp>
#include <ctein/plan/parse_shape_plan.hpp>
#include <ctein/plan/recipe.hpp>
#include <ctein/plan/view_plan.hpp>

#include <charconv>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace ctein::tool {
namespace {

using shape = std::vector<std::size_t>;

struct request {
    std::string pattern;
    std::string op = "rearrange";
    std::string reduction;
    std::vector<shape> shapes;
    std::vector<std::string> names; ///< per --shape, in order; "" for an unnamed tensor
    bool key_padding_mask = false;  ///< --op attention: the fourth shape is a [batch, keys] key padding mask
    std::vector<std::string> length_names;
    std::vector<std::size_t> length_values;
    std::vector<std::vector<long>> packed;
    bool floating_point = true;
};

struct usage_error {
    std::string what;
};

std::size_t number(std::string_view text) {
    if (text == "?") return dyn; // a length known only at run time: planned as the compiler plans it
    std::size_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size())
        throw usage_error{"not a length: " + std::string(text)};
    return value;
}

/// "2,5,512"; "" or "()" for a tensor of no dimensions.
shape shape_of(std::string_view text) {
    shape out;
    if (text == "()") return out;
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        out.push_back(number(text.substr(0, comma)));
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    }
    return out;
}

/// einops' packed shapes, "[[], [-1], [2, 3]]".
std::vector<std::vector<long>> packed_of(std::string_view text) {
    std::vector<std::vector<long>> out;
    int depth = 0;
    std::string token;
    const auto end_token = [&] {
        if (token.empty()) return;
        out.back().push_back(token == "-1" ? -1 : static_cast<long>(number(token)));
        token.clear();
    };
    for (char c : text) {
        if (c == '[') {
            if (++depth == 2) out.emplace_back();
        } else if (c == ']' || c == ',') {
            if (depth == 2) end_token();
            if (c == ']') --depth;
        } else if (c != ' ') {
            if (depth != 2) throw usage_error{"packed shapes are written [[2], [3, 4]]"};
            token += c;
        }
    }
    if (depth != 0) throw usage_error{"unbalanced brackets in packed shapes"};
    return out;
}

request read(std::span<const std::string_view> args) {
    request r;
    bool have_pattern = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view word = args[i];
        const auto value = [&]() -> std::string_view {
            if (i + 1 == args.size()) throw usage_error{std::string(word) + " needs a value"};
            return args[++i];
        };
        if (word == "--op") {
            const std::string_view op = value();
            r.op = std::string(op.substr(0, op.find(':')));
            if (op.find(':') != std::string_view::npos)
                r.reduction = std::string(op.substr(op.find(':') + 1));
            if (r.op == "reduce" && r.reduction.empty())
                throw usage_error{"--op reduce:NAME, e.g. reduce:mean"};
        } else if (word == "--shape") {
            r.shapes.push_back(shape_of(value()));
        } else if (word == "--names") {
            if (r.shapes.empty()) throw usage_error{"--names follows the --shape it names"};
            r.names.resize(r.shapes.size());
            r.names.back() = std::string(value());
        } else if (word == "--key-padding-mask") {
            r.key_padding_mask = true;
        } else if (word == "-a" || word == "--axis") {
            const std::string_view given = value();
            const std::size_t eq = given.find('=');
            if (eq == std::string_view::npos) throw usage_error{"-a takes NAME=LENGTH"};
            r.length_names.emplace_back(given.substr(0, eq));
            r.length_values.push_back(number(given.substr(eq + 1)));
        } else if (word == "--packed") {
            r.packed = packed_of(value());
        } else if (word == "--dtype") {
            const std::string_view type = value();
            if (type != "float" && type != "int" && type != "bool")
                throw usage_error{"--dtype float|int|bool"};
            r.floating_point = type == "float";
        } else if (!have_pattern) {
            r.pattern = std::string(word);
            have_pattern = true;
        } else {
            throw usage_error{"unexpected argument: " + std::string(word)};
        }
    }
    if (r.op == "attention" && !have_pattern) {
        have_pattern = true; // attention takes no pattern
    }
    if (!have_pattern) throw usage_error{"no pattern"};
    r.names.resize(r.shapes.size());
    return r;
}

plan::operand operand_of(const shape& s, std::string_view names, bool floating_point) {
    if (s.size() > plan::max_dims) throw usage_error{"more dimensions than ctein's limit"};
    plan::operand o;
    o.rank = s.size();
    for (std::size_t r = 0; r < s.size(); ++r) o.extents[r] = s[r];
    o.names = names;
    o.floating_point = floating_point;
    return o;
}

std::string tuple_text(std::span<const std::size_t> s) {
    bounded_string<8 * plan::max_dims> text;
    append_python_tuple(text, s);
    return std::string(text.view());
}

/// ctein::attention's plan: the lengths, the scores' names, how the mask binds, the output.
diagnostic describe_attention(std::ostream& out, const request& q,
                              const std::vector<plan::operand>& operands) {
    if (q.shapes.size() != 3 && q.shapes.size() != 4)
        throw usage_error{"--op attention takes --shape q, k, v and optionally a mask"};
    plan::attention_extras extras;
    if (operands.size() == 4) extras.mask = operands[3];
    extras.binding = q.key_padding_mask ? plan::mask_binding::key_padding : plan::mask_binding::scores;
    const plan::attention_plan p = plan::make_attention_plan(operands[0], operands[1], operands[2], extras);
    if (p.error) return p.error;
    const plan::attention_shape& s = p.shape;
    const auto length = [](std::size_t n) { return n == dyn ? std::string("?") : std::to_string(n); };
    out << "lengths:   batch=" << length(s.batch) << " heads=" << length(s.query_heads)
        << " kv_heads=" << length(s.kv_heads) << " queries=" << length(s.queries)
        << " keys=" << length(s.keys) << " head_size=" << length(s.head_size) << "\n";
    out << "scores:    \"" << p.score_names[0] << " " << p.score_names[1] << " " << p.score_names[2] << " "
        << p.score_names[3] << "\" [batch, heads, queries, keys]\n";
    if (p.mask_rank != 0) {
        constexpr std::string_view axes[] = {"batch", "heads", "queries", "keys"};
        out << "mask:      ";
        for (std::size_t i = 0; i < p.mask_rank; ++i)
            out << (i ? ", " : "") << "dimension " << i << " is the "
                << axes[static_cast<std::size_t>(p.mask_axes[i])];
        out << (q.key_padding_mask ? " (key padding)" : "") << "\n";
    }
    const std::size_t extents[] = {s.batch, s.query_heads, s.queries, s.head_size};
    out << "output:    " << tuple_text(extents) << " \""
        << (q.names[0].empty() ? std::string("b h q d") : q.names[0]) << "\"\n";
    out << "plan:      one fused kernel call (online softmax, no " << length(s.queries) << " x "
        << length(s.keys) << " scores)\n";
    return diagnostic{};
}

/// How elementary axis `a` of a recipe is written: its name, a number, or `…k` for the k-th axis
/// the ellipsis stands for.
std::string axis_name(const plan::recipe& r, std::string_view pattern, std::size_t a) {
    const std::string_view written = r.axes[a].where.in(pattern);
    if (written != "..." && written != "\xE2\x80\xA6") return std::string(written);
    std::size_t k = 0;
    for (std::size_t b = 0; b < a; ++b) k += r.axes[b].where.begin == r.axes[a].where.begin ? 1 : 0;
    return "\xE2\x80\xA6" + std::to_string(k);
}

void describe_recipe(std::ostream& out, const request& q, const plan::recipe& r) {
    out << "axes:      ";
    for (std::size_t a = 0; a < r.axis_count; ++a)
        out << (a ? " " : "") << axis_name(r, q.pattern, a) << "="
            << (r.lengths[a] == dyn ? std::string("?") : std::to_string(r.lengths[a]));
    out << "\n";
    std::vector<std::size_t> extents(r.output_extents.begin(), r.output_extents.begin() + r.output_rank);
    out << "output:    " << tuple_text(extents)
        << (r.output_names.empty() ? "" : " \"" + std::string(r.output_names.view()) + "\"") << "\n";
    if (r.op == plan::operation::reduce) {
        out << "plan:      " << q.reduction << " over";
        bool any = false;
        for (std::size_t a = 0; a < r.axis_count; ++a) {
            if (r.axes[a].on_right) continue;
            out << " " << axis_name(r, q.pattern, a);
            any = true;
        }
        out << (any ? "" : " nothing (a copy)") << ", into a new contiguous tensor (vectorised kernel)\n";
    }
    bool dynamic = false;
    for (const std::size_t n : q.shapes[0]) dynamic = dynamic || n == dyn;
    // the strides of each axis in a contiguous input, and how the result walks them
    std::vector<std::ptrdiff_t> input_strides(plan::max_dims), strides(plan::max_axes);
    for (std::size_t k = r.input_rank, stride = 1; k-- > 0;) {
        input_strides[k] = static_cast<std::ptrdiff_t>(stride);
        stride *= q.shapes[0][k];
    }
    plan::axis_strides(r, input_strides, r.lengths, strides);
    if (r.op != plan::operation::reduce) {
        const plan::view_kind kind = plan::view_kind_of(r, true);
        out << "plan:      "
            << (kind == plan::view_kind::contiguous ? "contiguous view of the input (a reshape), no copy"
                : kind == plan::view_kind::strided
                    ? "strided view of the input, no copy"
                    : "grouped view of the input, no copy; ctein::eval copies it "
                      "out with the tiled SIMD copy")
            << "\n";
    }
    if (dynamic) {
        out << "walk:      strides known once the ? lengths are\n";
    } else {
        out << "walk:      ";
    }
    for (std::size_t k = 0; k < r.output_rank && !dynamic; ++k) {
        const plan::group g = r.output_dims[k];
        out << (k ? " | " : "") << (g.count == 0 ? "1" : "");
        for (std::size_t i = 0; i < g.count; ++i) {
            const std::size_t a = r.output_axes[g.first + i];
            out << (i ? " " : "") << axis_name(r, q.pattern, a) << ":" << strides[a];
        }
    }
    if (!dynamic) out << "   (axis:stride in the input, by output dimension)\n";
    if (r.op == plan::operation::repeat) {
        out << "new axes:  ";
        bool any = false;
        for (std::size_t a = 0; a < r.axis_count; ++a) {
            if (r.axes[a].on_left) continue;
            out << (any ? " " : "") << axis_name(r, q.pattern, a);
            any = true;
        }
        out << (any ? " (stride 0: every copy reads the same element)" : "none") << "\n";
    }
}

explanation plan_and_describe(const request& q) {
    std::ostringstream out;
    if (q.op != "attention") out << "pattern:   " << q.pattern << "\n";
    out << "operation: " << q.op << (q.reduction.empty() ? "" : " " + q.reduction) << "\n";
    for (std::size_t i = 0; i < q.shapes.size(); ++i)
        out << "input:     " << tuple_text(q.shapes[i])
            << (q.names[i].empty() ? "" : " \"" + q.names[i] + "\"") << "\n";
    for (std::size_t i = 0; i < q.length_names.size(); ++i)
        out << "length:    " << q.length_names[i] << "=" << q.length_values[i] << "\n";
    std::vector<plan::operand> operands;
    for (std::size_t i = 0; i < q.shapes.size(); ++i) {
        if (const diagnostic d = pattern::check_axis_names(q.names[i], q.shapes[i].size()))
            return {1, out.str() + "error:     " + std::string(d.message().view()) + "\n"};
        operands.push_back(operand_of(q.shapes[i], q.names[i], q.floating_point));
    }
    const auto one_input = [&] {
        if (q.shapes.size() != 1) throw usage_error{"--op " + q.op + " takes one --shape"};
        return operands[0];
    };

    diagnostic error;
    if (q.op == "attention") {
        error = describe_attention(out, q, operands);
    } else if (q.op == "rearrange" || q.op == "reduce" || q.op == "repeat") {
        const plan::operation op = q.op == "rearrange" ? plan::operation::rearrange
                                   : q.op == "reduce"  ? plan::operation::reduce
                                                       : plan::operation::repeat;
        std::vector<plan::given_length> given;
        for (std::size_t i = 0; i < q.length_names.size(); ++i)
            given.push_back({q.length_names[i], q.length_values[i]});
        const plan::recipe r = plan::make_recipe(q.pattern, op, one_input(), given, q.reduction);
        if (!(error = r.error)) describe_recipe(out, q, r);
    } else if (q.op == "einsum") {
        const plan::einsum_plan p = plan::make_einsum_plan(q.pattern, operands);
        if (!(error = p.error)) {
            out << "axes:      ";
            for (std::size_t a = 0; a < p.axis_count; ++a) {
                const std::string name =
                    a < p.axis_count - p.ellipsis_rank
                        ? std::string(p.where[a].in(q.pattern))
                        : "\xE2\x80\xA6" + std::to_string(a - (p.axis_count - p.ellipsis_rank));
                out << (a ? " " : "") << name << "=" << p.lengths[a] << (p.in_output(a) ? "" : " (summed)");
            }
            out << "\n";
            std::vector<std::size_t> extents(p.output_extents.begin(),
                                             p.output_extents.begin() + p.output_rank);
            out << "output:    " << tuple_text(extents) << (p.output_names.empty() ? "" : " \"")
                << p.output_names.view() << (p.output_names.empty() ? "" : "\"") << "\n";
            out << "plan:      " << p.axis_count << " axes, " << p.output_rank << " in the output, "
                << p.axis_count - p.output_rank << " summed; reference loops into a new contiguous tensor\n";
        }
    } else if (q.op == "pack") {
        const plan::pack_plan p = plan::make_pack_plan(q.pattern, operands);
        if (!(error = p.error)) {
            std::vector<std::size_t> extents(p.output_extents.begin(),
                                             p.output_extents.begin() + p.output_rank);
            out << "output:    " << tuple_text(extents) << "\n";
            out << "plan:      each tensor copied into its run of the packed axis, at";
            for (std::size_t i = 0, at = 0; i < p.input_count; at += p.packed_lengths[i++]) out << " " << at;
            out << "\n";
        }
    } else if (q.op == "unpack") {
        std::vector<plan::packed_shape> packed;
        for (const auto& s : q.packed) {
            plan::packed_shape ps;
            if (s.size() > plan::max_dims) throw usage_error{"more dimensions than ctein's limit"};
            ps.rank = s.size();
            for (std::size_t d = 0; d < s.size(); ++d)
                ps.lengths[d] = s[d] < 0 ? plan::infer_length : static_cast<std::size_t>(s[d]);
            packed.push_back(ps);
        }
        const plan::unpack_plan p = plan::make_unpack_plan(q.pattern, one_input(), packed);
        if (!(error = p.error)) {
            for (std::size_t i = 0; i < p.piece_count; ++i) {
                std::vector<std::size_t> s(q.shapes[0].begin(), q.shapes[0].begin() + p.axes.before);
                s.insert(s.end(), p.shapes[i].lengths.begin(),
                         p.shapes[i].lengths.begin() + p.shapes[i].rank);
                s.insert(s.end(), q.shapes[0].begin() + p.axes.before + 1, q.shapes[0].end());
                out << "output:    " << tuple_text(s) << " from " << p.offsets[i] << " along *, a view\n";
            }
        }
    } else if (q.op == "parse_shape") {
        const plan::operand input = one_input();
        const plan::parse_shape_plan p = plan::make_parse_shape_plan(q.pattern, input);
        if (!(error = p.error)) {
            out << "output:    {";
            std::string_view names = p.output_names.view();
            for (std::size_t k = 0; k < p.count; ++k) {
                const std::size_t space = names.find(' ');
                out << (k ? ", " : "") << "'" << names.substr(0, space) << "': " << input.extents[p.dims[k]];
                names = space == std::string_view::npos ? std::string_view{} : names.substr(space + 1);
            }
            out << "}\n";
        }
    } else {
        throw usage_error{"unknown operation: " + q.op};
    }
    if (error) return {1, out.str() + "error:     " + std::string(error.message().view()) + "\n"};
    return {0, out.str()};
}

} // namespace

std::string_view usage() noexcept {
    return "usage: ctein explain PATTERN [--op rearrange|reduce:NAME|repeat|einsum|pack|unpack|parse_shape]\n"
           "                     [--shape 2,?,512 [--names \"b s c\"]]... [-a NAME=LENGTH]...\n"
           "                     [--packed \"[[], [3], [2, 3]]\"] [--dtype float|int|bool]\n"
           "       ctein explain --op attention --shape Q --shape K --shape V [--shape MASK]\n"
           "                     [--names ...] [--key-padding-mask]\n"
           "  A ? in --shape is a length known only at run time; --names gives the tensor before it axis\n"
           "  names (\"\" for none), checked as the compiler checks a named tensor's.\n"
           "  Prints what ctein makes of PATTERN for tensors of these shapes: the axes and their lengths,\n"
           "  the result's shape and the plan, or the error the compiler would give.\n"
           "  example: ctein explain \"b s (h d) -> b h s d\" --shape 2,5,512 -a h=8\n";
}

explanation explain(std::span<const std::string_view> args) {
    try {
        return plan_and_describe(read(args));
    } catch (const usage_error& e) {
        return {2, "ctein explain: " + e.what + "\n" + std::string(usage())};
    }
}

} // namespace ctein::tool
