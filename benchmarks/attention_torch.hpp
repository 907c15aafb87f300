// attention_torch: PyTorch's attention as the peer of ctein's, over the very buffers ctein reads
// (at::from_blob, no copies). libtorch 2.x runs scaled_dot_product_attention, whose CPU path is
// a fused flash kernel; 1.13 has no such function and runs its math (matmul, softmax, matmul).
// Built only when torch_peer.cmake finds a libtorch (CTEIN_TORCH_PEER names it).
#pragma once

#include "attention_shape.hpp"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace ctein::bench {

/// Sets the threads of PyTorch's CPU kernels. libtorch's own call covers OpenMP and MKL; a
/// libtorch that calls OpenBLAS (Debian's) does not set OpenBLAS's own thread count, so it is
/// set here too when OpenBLAS is in the process.
inline void set_torch_threads(std::size_t threads) {
    at::set_num_threads(static_cast<int>(threads));
    using setter = void (*)(int);
    if (void* openblas = dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))
        reinterpret_cast<setter>(openblas)(static_cast<int>(threads));
}

/// PyTorch's attention of q, k, v laid out as `shape` says; each call returns a new output, as
/// ctein::attention does.
///
///     torch_attention torch(shape, q.data(), k.data(), v.data());
///     at::Tensor out = torch();
class torch_attention {
public:
    torch_attention(const attention_shape& shape, const float* q, const float* k, const float* v)
        : shape_(shape)
        , q_(wrap(q, shape.query_heads, shape.queries))
        , k_(wrap(k, shape.kv_heads, shape.keys))
        , v_(wrap(v, shape.kv_heads, shape.keys)) {
        if (shape.masks_keys() && shape.causal_offset != 0)
            throw std::invalid_argument("torch_attention: a causal offset other than 0 or keys - 1");
#if !CTEIN_TORCH_FUSED
        // The math path groups query heads only by reshaping q, which would mix a causal mask's rows.
        if (shape.masks_keys() && shape.query_heads != shape.kv_heads)
            throw std::invalid_argument("torch_attention: causal grouped-query attention on libtorch 1.x");
        if (shape.masks_keys())
            keep_out_ =
                at::ones({static_cast<std::int64_t>(shape.queries), static_cast<std::int64_t>(shape.keys)},
                         at::kBool)
                    .triu(1);
#endif
    }

    at::Tensor operator()() const {
#if CTEIN_TORCH_FUSED
        return at::scaled_dot_product_attention(q_, k_, v_, {}, 0.0, shape_.masks_keys(), std::nullopt,
                                                shape_.query_heads != shape_.kv_heads);
#else
        // What torch.nn.functional's math path does: q scaled first, the scores materialised.
        const auto n = [](std::size_t x) { return static_cast<std::int64_t>(x); };
        const std::size_t group = shape_.query_heads / shape_.kv_heads;
        const at::Tensor q = (q_ * (1.0 / std::sqrt(static_cast<double>(shape_.head_size))))
                                 .reshape({n(shape_.batch), n(shape_.kv_heads), n(group * shape_.queries),
                                           n(shape_.head_size)});
        at::Tensor scores = at::matmul(q, k_.transpose(-2, -1));
        if (keep_out_.defined()) scores.masked_fill_(keep_out_, -std::numeric_limits<float>::infinity());
        scores = at::softmax(scores, -1);
        return at::matmul(scores, v_)
            .reshape({n(shape_.batch), n(shape_.query_heads), n(shape_.queries), n(shape_.head_size)});
#endif
    }

private:
    at::Tensor wrap(const float* data, std::size_t heads, std::size_t tokens) const {
        const auto n = [](std::size_t x) { return static_cast<std::int64_t>(x); };
        // PyTorch only reads its inputs here; from_blob takes a mutable pointer all the same.
        return at::from_blob(const_cast<float*>(data),
                             {n(shape_.batch), n(heads), n(tokens), n(shape_.head_size)},
                             at::TensorOptions().dtype(at::kFloat));
    }

    attention_shape shape_;
    at::Tensor q_, k_, v_;
    at::Tensor keep_out_; ///< true above the diagonal: keys a causal query may not see (math path)
};

/// The two products of attention on PyTorch's GEMM (oneDNN/MKL in a pip libtorch), no softmax
/// between them, in blocks of `block` queries by `block` keys, as a flash kernel takes them: q·kᵀ
/// of a block pair into a [block][block] matrix (1 MiB, in L2), then that matrix times v's block
/// added to the queries' outputs. What the best GEMM reaches on attention's products on this
/// machine, whatever the softmax costs: the ceiling beside which a fused kernel's percent of the
/// FMA peak reads. One head (the first), into buffers made once; `time_scale()` times its time is
/// the time of every head's products, unmasked (a causal row's are counted whole: `flops()`).
class torch_products {
public:
    static constexpr std::size_t block = 512;

    torch_products(const attention_shape& shape, const float* q, const float* k, const float* v)
        : shape_(shape)
        , q_(wrap(q, shape.queries))
        , k_(wrap(k, shape.keys))
        , v_(wrap(v, shape.keys))
        , scores_(at::empty({n(std::min(block, shape.queries)), n(std::min(block, shape.keys))}, at::kFloat))
        , out_(at::zeros({n(shape.queries), n(shape.head_size)}, at::kFloat)) {}

    void operator()() {
        for (std::size_t i = 0; i < shape_.queries; i += block) {
            const at::Tensor q = rows(q_, i, shape_.queries);
            at::Tensor out = rows(out_, i, shape_.queries);
            for (std::size_t j = 0; j < shape_.keys; j += block) {
                const at::Tensor k = rows(k_, j, shape_.keys), v = rows(v_, j, shape_.keys);
                at::Tensor scores = scores_.narrow(0, 0, q.size(0)).narrow(1, 0, k.size(0));
                at::mm_out(scores, q, k.t());
                at::addmm_out(out, out, scores, v);
            }
        }
    }
    const float* out() const { return out_.data_ptr<float>(); }
    double time_scale() const { return static_cast<double>(shape_.batch * shape_.query_heads); }
    /// Flops of every head's two products: 2 per multiply-add, none halved by a mask.
    double flops() const {
        return 4.0 * static_cast<double>(shape_.batch * shape_.query_heads * shape_.queries * shape_.keys *
                                         shape_.head_size);
    }

private:
    static std::int64_t n(std::size_t x) { return static_cast<std::int64_t>(x); }
    at::Tensor wrap(const float* data, std::size_t tokens) const {
        return at::from_blob(const_cast<float*>(data), {n(tokens), n(shape_.head_size)},
                             at::TensorOptions().dtype(at::kFloat));
    }
    /// Rows [first, first + block) of x, fewer at its end.
    static at::Tensor rows(const at::Tensor& x, std::size_t first, std::size_t count) {
        return x.narrow(0, n(first), n(std::min(block, count - first)));
    }

    attention_shape shape_;
    at::Tensor q_, k_, v_, scores_, out_;
};

} // namespace ctein::bench
