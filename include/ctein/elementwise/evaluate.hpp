// Evaluation of an element-wise expression in one pass: every node gets an evaluator bound to the
// result's dimensions (a stride per dimension for each tensor read, 0 where it broadcasts); the
// trailing dimensions that every operand walks with one stride are merged into one long row; each
// row is cut into chunks, the operands read in strides other than 1 are gathered once per chunk,
// and the chunk is computed with xsimd batches (Eigen's expression/evaluator split).
#pragma once

#include "../core/diagnose.hpp"
#include "../core/simd_headers.hpp"
#include "../expr/as_view.hpp"
#include "../expr/tensor.hpp"
#include "expression.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace ctein::detail {

/// Elements per chunk of a row: long enough that the per-chunk bookkeeping costs little against a
/// pass over memory (512 was ~5 % slower than xtensor on a 3-operand chain), short enough that a
/// gathered operand stays in the L1 or L2 cache.
inline constexpr std::size_t elementwise_chunk = 2048;
inline constexpr std::size_t no_dim = plan::broadcast_plan::none;

/// The dimensions the evaluation walks: the result's, without those of length 1 (at least one).
/// `Capacity` is the result's rank + 1.
template <std::size_t Capacity>
struct loop_dims {
    std::array<std::size_t, Capacity> extents{};
    std::size_t rank = 0;
};

/// Where a node's dimensions are in the loop: the loop dimension of each node dimension (`no_dim`
/// for one of length 1), and the loop coordinate where the node's coordinate 0 is (non-zero only
/// along a concatenated axis, for its second operand).
template <std::size_t Capacity>
struct placement {
    std::array<std::size_t, plan::max_dims> loop_dim{};
    std::array<std::ptrdiff_t, Capacity> origin{};
};

/// The placement of an operand whose dimensions sit at result dimensions `source` of its node.
template <std::size_t Capacity>
placement<Capacity> placed_operand(const placement<Capacity>& node, std::size_t node_rank,
                                   const std::array<std::size_t, plan::max_dims>& source) {
    placement<Capacity> p;
    p.origin = node.origin;
    p.loop_dim.fill(no_dim);
    for (std::size_t r = 0; r < node_rank; ++r)
        if (source[r] != no_dim) p.loop_dim[source[r]] = node.loop_dim[r];
    return p;
}

/// The SIMD type of a node of `Value`s in an expression computed in batches of `T`: comparisons
/// give masks.
template <class Value, class T>
using simd_of = std::conditional_t<std::is_same_v<Value, bool>, xsimd::batch_bool<T>, xsimd::batch<Value>>;

template <class Node, std::size_t Capacity>
class evaluator;

/// A tensor read in place: its row's address, or a copy of a chunk where its stride is not 1.
template <class V, std::size_t Capacity>
class evaluator<operand<V>, Capacity> {
    using T = typename V::value_type;

public:
    evaluator(const operand<V>& x, const placement<Capacity>& at, const loop_dims<Capacity>&)
        : base_(x.view().data())
        , origin_(at.origin) {
        const V& v = x.view();
        for (std::size_t d = 0; d < V::rank(); ++d) {
            const std::size_t r = at.loop_dim[d];
            if (r != no_dim && v.extent(d) != 1) stride_[r] = v.stride(d); // else 0: broadcast
        }
    }

    /// A copy (the evaluators are moved into their parents' tuples) leaves the scratch buffer out:
    /// its contents mean nothing between chunks, and copying it would cost more than a small pass.
    evaluator(const evaluator& other) noexcept
        : base_(other.base_)
        , stride_(other.stride_)
        , origin_(other.origin_) {}
    evaluator& operator=(const evaluator&) = delete;

    bool mergeable(std::size_t r, const loop_dims<Capacity>& loop) const noexcept {
        return stride_[r] == stride_[r + 1] * static_cast<std::ptrdiff_t>(loop.extents[r + 1]);
    }
    /// Rows walk loop dimensions [0, outer): the first row's offset, and how the offset moves when
    /// dimension r steps (and every dimension after it goes back to 0).
    void start_rows(std::size_t outer, const loop_dims<Capacity>& loop) noexcept {
        row_ = 0;
        std::ptrdiff_t rewind = 0; // from the last position of dimensions (r, outer) back to 0
        for (std::size_t r = outer; r-- > 0;) {
            row_ -= origin_[r] * stride_[r];
            step_[r] = stride_[r] - rewind;
            rewind += static_cast<std::ptrdiff_t>(loop.extents[r] - 1) * stride_[r];
        }
    }
    void next_row(const std::array<std::size_t, Capacity>&, std::size_t stepped) noexcept {
        row_ += step_[stepped];
    }
    void prepare(std::size_t begin, std::size_t length, std::size_t inner) noexcept {
        const std::ptrdiff_t step = stride_[inner];
        const T* first = base_ + row_ + (static_cast<std::ptrdiff_t>(begin) - origin_[inner]) * step;
        if (step == 1) {
            at_ = first;
            return;
        }
        for (std::size_t i = 0; i < length; ++i) buffer_[i] = first[static_cast<std::ptrdiff_t>(i) * step];
        at_ = buffer_.data();
    }
    std::size_t next_break(std::size_t) const noexcept { return std::numeric_limits<std::size_t>::max(); }

    template <class B>
    simd_of<T, B> batch(std::size_t i) const noexcept {
        return simd_of<T, B>::load_unaligned(at_ + i);
    }
    T value(std::size_t i) const noexcept { return at_[i]; }

private:
    const T* base_;
    std::array<std::ptrdiff_t, Capacity> stride_{};
    std::array<std::ptrdiff_t, Capacity> origin_{};
    std::array<std::ptrdiff_t, Capacity> step_{};
    std::ptrdiff_t row_ = 0;
    const T* at_ = nullptr;
    alignas(64) std::array<T, elementwise_chunk> buffer_;
};

template <class T, std::size_t Capacity>
class evaluator<constant<T>, Capacity> {
public:
    evaluator(const constant<T>& c, const placement<Capacity>&, const loop_dims<Capacity>&)
        : value_(c.value()) {}
    bool mergeable(std::size_t, const loop_dims<Capacity>&) const noexcept { return true; }
    void start_rows(std::size_t, const loop_dims<Capacity>&) noexcept {}
    void next_row(const std::array<std::size_t, Capacity>&, std::size_t) noexcept {}
    void prepare(std::size_t, std::size_t, std::size_t) noexcept {}
    std::size_t next_break(std::size_t) const noexcept { return std::numeric_limits<std::size_t>::max(); }
    template <class B>
    simd_of<T, B> batch(std::size_t) const noexcept {
        return simd_of<T, B>(value_);
    }
    T value(std::size_t) const noexcept { return value_; }

private:
    T value_;
};

template <class Op, class... Args, std::size_t Capacity>
class evaluator<elementwise<Op, Args...>, Capacity> {
    using node = elementwise<Op, Args...>;
    using value_type = typename node::value_type;
    static constexpr auto& combined = combined_static_shape<Args...>;

public:
    evaluator(const node& e, const placement<Capacity>& at, const loop_dims<Capacity>& loop)
        : operands_(make(e, at, loop, std::index_sequence_for<Args...>{})) {}

    bool mergeable(std::size_t r, const loop_dims<Capacity>& loop) const noexcept {
        return std::apply([&](const auto&... o) { return (o.mergeable(r, loop) && ...); }, operands_);
    }
    void start_rows(std::size_t outer, const loop_dims<Capacity>& loop) noexcept {
        std::apply([&](auto&... o) { (o.start_rows(outer, loop), ...); }, operands_);
    }
    void next_row(const std::array<std::size_t, Capacity>& index, std::size_t stepped) noexcept {
        std::apply([&](auto&... o) { (o.next_row(index, stepped), ...); }, operands_);
    }
    void prepare(std::size_t begin, std::size_t length, std::size_t inner) noexcept {
        std::apply([&](auto&... o) { (o.prepare(begin, length, inner), ...); }, operands_);
    }
    std::size_t next_break(std::size_t begin) const noexcept {
        return std::apply([&](const auto&... o) { return std::min({o.next_break(begin)...}); }, operands_);
    }
    template <class B>
    simd_of<value_type, B> batch(std::size_t i) const noexcept {
        return std::apply([&](const auto&... o) { return Op{}(o.template batch<B>(i)...); }, operands_);
    }
    value_type value(std::size_t i) const noexcept {
        return std::apply([&](const auto&... o) { return Op{}(o.value(i)...); }, operands_);
    }

private:
    template <std::size_t... I>
    static std::tuple<evaluator<Args, Capacity>...> make(const node& e, const placement<Capacity>& at,
                                                         const loop_dims<Capacity>& loop,
                                                         std::index_sequence<I...>) {
        return {evaluator<Args, Capacity>(std::get<I>(e.operands()),
                                          placed_operand(at, node::rank(), combined.source[I]), loop)...};
    }

    std::tuple<evaluator<Args, Capacity>...> operands_;
};

/// Whether an expression computes in batches of T: every tensor it reads holds T, every
/// operation on T gives T or a mask, and every operation has a batch form.
template <class Node, class T>
struct computes_in_batches_of : std::false_type {};
template <class V, class T>
struct computes_in_batches_of<operand<V>, T> : std::is_same<typename V::value_type, T> {};
template <class C, class T>
struct computes_in_batches_of<constant<C>, T>
    : std::bool_constant<std::is_same_v<C, T> || std::is_same_v<C, bool>> {};
template <class Op, class... Args, class T>
struct computes_in_batches_of<elementwise<Op, Args...>, T>
    : std::bool_constant<Op::batches && (computes_in_batches_of<Args, T>::value && ...)> {};

template <class E>
inline constexpr bool
    in_batches = (std::is_same_v<typename E::value_type, float> ||
                  std::is_same_v<typename E::value_type,
                                 double>)&&computes_in_batches_of<E, typename E::value_type>::value;

// g++ 12 warns of `__Y` "maybe uninitialized" inside the AVX-512 intrinsics xsimd's exp, sin and
// cos use (the deliberately undefined register of _mm512_undefined_*), wherever they are inlined.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/// Writes the elements of `e`, whose actual extents are `extents`, to contiguous row-major `out`.
/// `out` may be a tensor `e` reads at the same positions (x = x * 2), not one it reads elsewhere.
template <class E, class Out>
void evaluate_elementwise(const E& e, Out* out, const std::array<std::size_t, E::rank()>& extents) {
    constexpr std::size_t capacity = E::rank() + 1;
    loop_dims<capacity> loop;
    placement<capacity> at;
    at.loop_dim.fill(no_dim);
    std::size_t total = 1;
    for (std::size_t r = 0; r < E::rank(); ++r) {
        total *= extents[r];
        if (extents[r] == 1) continue; // walked by no loop: its coordinate is always 0
        at.loop_dim[r] = loop.rank;
        loop.extents[loop.rank++] = extents[r];
    }
    if (total == 0) return;
    if (loop.rank == 0) loop.extents[loop.rank++] = 1;

    evaluator<E, capacity> ev(e, at, loop);
    const std::size_t inner = loop.rank - 1;
    std::size_t outer = inner; // loop dimensions [outer, inner] are walked as one row
    while (outer > 0 && ev.mergeable(outer - 1, loop)) --outer;
    std::size_t row_length = 1;
    for (std::size_t r = outer; r < loop.rank; ++r) row_length *= loop.extents[r];

    // The row's chunks: fixed when no concatenation breaks a row (then computed as they come, rows
    // may be the whole tensor), else listed once, each chunk on one side of every join.
    const bool joins_in_row = ev.next_break(0) < row_length;
    std::vector<std::size_t> chunk_ends;
    if (joins_in_row)
        for (std::size_t begin = 0; begin < row_length; begin = chunk_ends.back())
            chunk_ends.push_back(std::min({row_length, begin + elementwise_chunk, ev.next_break(begin)}));

    const auto compute = [&](Out* o, std::size_t begin, std::size_t length) {
        ev.prepare(begin, length, inner);
        std::size_t i = 0;
        if constexpr (in_batches<E>) {
            using B = xsimd::batch<typename E::value_type>;
            for (; i + B::size <= length; i += B::size)
                ev.template batch<typename E::value_type>(i).store_unaligned(o + i);
        }
        for (; i < length; ++i) o[i] = static_cast<Out>(ev.value(i));
    };

    std::array<std::size_t, capacity> index{};
    ev.start_rows(outer, loop);
    for (Out* row = out;;) {
        if (joins_in_row) {
            std::size_t begin = 0;
            for (const std::size_t end : chunk_ends) {
                compute(row + begin, begin, end - begin);
                begin = end;
            }
        } else {
            for (std::size_t begin = 0; begin < row_length; begin += elementwise_chunk)
                compute(row + begin, begin, std::min(elementwise_chunk, row_length - begin));
        }
        row += row_length;
        if (row == out + total) break;
        std::size_t stepped = outer - 1; // the outer dimensions' odometer
        while (++index[stepped] == loop.extents[stepped]) index[stepped--] = 0;
        ev.next_row(index, stepped);
    }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/// The tensor an expression evaluates to.
template <class E>
using evaluated_tensor = tensor_of<typename E::value_type, E::names, typename E::extents_type>;

/// How the rest of ctein reads an expression (expr/as_view.hpp's `computed`): by evaluating it.
template <class E>
struct elementwise_adaptor {
    static constexpr bool owning = true;
    using computed_view =
        ctein::view<const typename E::value_type, E::names, typename E::extents_type, layout_computed>;

    static evaluated_tensor<E> evaluate(const E& e) {
        const auto extents = e.extents();
        evaluated_tensor<E> out(extents, uninitialized);
        evaluate_elementwise(e, out.data(), extents.values());
        return out;
    }
    /// Into `out`, a contiguous view whose extents have been checked against e's.
    template <class Out>
    static void evaluate_into(const Out& out, const E& e) {
        evaluate_elementwise(e, out.data(), out.extents().values());
    }
};

} // namespace ctein::detail

namespace ctein {
template <class Op, class... Args>
struct view_adaptor<elementwise<Op, Args...>> : detail::elementwise_adaptor<elementwise<Op, Args...>> {};
} // namespace ctein
