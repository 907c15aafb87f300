// xt::xarray has no rank in its type; ctein asks for one instead of failing somewhere deeper.
// expect-error-in-header: the xtensor reader refuses the type in a static_assert
// expect-error: ctein reads tensors whose rank is in their type: use xt::xtensor<T, N>
#include <ctein/ctein.hpp>
#include <ctein/xtensor.hpp>

int main() {
    xt::xarray<float> a = xt::zeros<float>({2, 3, 4});
    xt::xtensor<float, 3> t = a;
#ifdef CTEIN_COMPILE_FAIL
    auto y = ctein::rearrange<"a b c -> c b a">(a);
#else
    auto y = ctein::rearrange<"a b c -> c b a">(t);
#endif
    return static_cast<int>(y.size() == 0);
}
