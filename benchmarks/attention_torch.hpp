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

} // namespace ctein::bench
