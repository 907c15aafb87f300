// An xt::view of a preallocated cache: ctein refuses it with a reason and points at ctein::slice.
// expect-error-in-header: the xtensor reader refuses the type in a static_assert
// expect-error: ctein does not read xt::view or xt::strided_view in place
#include <ctein/ctein.hpp>
#include <ctein/xtensor.hpp>

int main() {
    xt::xtensor<float, 4> cache({1, 2, 16, 8});
    const std::size_t length = 5;
#ifdef CTEIN_COMPILE_FAIL
    auto k = ctein::eval(xt::view(cache, xt::all(), xt::all(), xt::range(0, length), xt::all()));
#else
    auto k = ctein::eval(ctein::slice<"s">(ctein::named<"b h s d">(cache), 0, length));
#endif
    return static_cast<int>(k.size() == 0);
}
