// The worst relative error of each version of the kernels' 2^x (kernels/exp2.hpp) against 2^x in
// double precision, over every float of [-126, 127], where exp2_max_relative_error is stated.
// tests/kernels/exp2_test.cpp checks samples of that range; this reads all 2.2e9 floats (about
// 12 s a version on one Zen 3 core), for a change to 2^x or to its bound.
//
//   exp2_every_float    (run.sh builds it for the machine it runs on; exit status 1 when a
//                       version exceeds the bound)
#include <ctein/kernels/exp2.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

/// Prints the worst relative error of `version` over the floats of [-126, 127], and where it is;
/// whether it is within the bound.
template <class Batch, class Version>
bool report(const char* name, Version version) {
    alignas(64) float xs[Batch::size], ys[Batch::size];
    double worst = 0.0;
    float at = 0.0f;
    for (std::uint32_t sign : {0u, 0x80000000u}) {
        // 0x42FE0000 is 127.0f; the floats below it in magnitude, batch by batch
        for (std::uint32_t bits = 0; bits <= 0x42FE0000u; bits += Batch::size) {
            for (std::size_t i = 0; i < Batch::size; ++i) {
                const std::uint32_t b = (bits + static_cast<std::uint32_t>(i)) | sign;
                std::memcpy(&xs[i], &b, sizeof b);
            }
            version(Batch::load_aligned(xs)).store_aligned(ys);
            for (std::size_t i = 0; i < Batch::size; ++i) {
                if (!(xs[i] >= -126.0f && xs[i] <= 127.0f)) continue;
                const double exact = std::exp2(static_cast<double>(xs[i]));
                const double error = std::abs(ys[i] - exact) / exact;
                if (error > worst) {
                    worst = error;
                    at = xs[i];
                }
            }
        }
    }
    std::printf("%-10s worst relative error %.4g at x = %.9g (bound %.3g): %s\n", name, worst,
                static_cast<double>(at), ctein::kernels::exp2_max_relative_error,
                worst <= ctein::kernels::exp2_max_relative_error ? "within" : "BEYOND");
    return worst <= ctein::kernels::exp2_max_relative_error;
}

} // namespace

int main() {
    using batch = xsimd::batch<float>;
    bool within = report<batch>("polynomial", [](batch x) { return ctein::kernels::exp2_polynomial(x); });
#if XSIMD_WITH_FMA3_AVX2
    using avx2_batch = xsimd::batch<float, xsimd::fma3<xsimd::avx2>>;
    within &= report<avx2_batch>("table", [](avx2_batch x) { return ctein::kernels::exp2_table(x); });
#endif
    return within ? 0 : 1;
}
