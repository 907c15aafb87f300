// Included (without include guard) before a kernel's code, with quiet_intrinsics_end.hpp after
// it: g++ 12 reports `__Y` "used uninitialized" in every inlined AVX-512 max/min, whose
// intrinsics pass `_mm512_undefined_ps()` as the unused merge source (GCC bug 105593); and, built
// without AVX-512, that the 64-byte vectors of the in-register transposes would be passed in
// another way (-Wpsabi): those functions are always inlined, so no call ever passes one. The
// pragmas hold for the kernel's code only, not for the code that includes it. They are not
// core/simd_headers.hpp's work done twice: that one quiets the lines of xsimd and the intrinsics,
// but only when ctein is the first to include them; these quiet the kernels wherever the
// intrinsics inline into them (without them, the kernel built after an <immintrin.h> of the
// user's gave 1301 such errors at -O3).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
