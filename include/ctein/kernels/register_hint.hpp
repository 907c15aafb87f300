// register_hint: a batch the compiler must hold in a register, so that a value loaded once for
// several fused multiply-adds stays one load.
#pragma once

namespace ctein::kernels {

/// `x`, unchanged, but opaque to the compiler: it cannot re-read `x` from memory in place of
/// the register. Without this, g++ 12 folds a batch's load into each multiply-add that uses it
/// (a memory operand) whenever it can: a 2-row tile of the AVX2 build then makes 10 loads per 8
/// multiply-adds instead of 6, more than two 256-bit loads per cycle can feed (Zen 3: the
/// prefill's products ran at about 74 % of the FMA peak).
template <class B>
[[gnu::always_inline]] inline B in_register(B x) noexcept {
#if defined(__x86_64__) || defined(__i386__)
    auto r = static_cast<typename B::register_type>(x);
#if defined(__AVX512F__)
    asm("" : "+v"(r)); // any of the 32 vector registers
#else
    asm("" : "+x"(r));
#endif
    return B(r);
#else
    return x;
#endif
}

} // namespace ctein::kernels
