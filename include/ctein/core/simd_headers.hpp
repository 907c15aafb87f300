// simd_headers: xsimd and the x86 intrinsics headers, included with the warnings g++ 12 raises
// inside them turned off. Every ctein header includes SIMD code (xsimd, and the intrinsics of
// <immintrin.h> on x86) through this one.
//
// g++ 12 reports `__Y` "used uninitialized" inside AVX-512 intrinsics that pass
// `_mm512_undefined_ps()` as an unused merge source (GCC bug 105593), even though they are system
// headers; at -O2 a user's file that calls ctein's element-wise sin or cos (xsimd's trigonometric
// reduction) then failed to build under -Werror. The pragmas cover these headers' own lines
// (g++ then leaves quiet what it inlines into xsimd's functions), and nothing of the user's code.
// They take effect only if this is where the headers are first included: in a file that
// includes xsimd before ctein, xsimd's functions compiled out of line, such as its sin and cos,
// can still warn (measured: <immintrin.h> first is harmless); ctein's kernels stay quiet either
// way (kernels/detail/quiet_intrinsics_begin.hpp covers their own code).
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#include <xsimd/xsimd.hpp>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
