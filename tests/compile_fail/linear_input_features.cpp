// A projection of 64 input features given tokens of 48: the weight's static shape and the input's
// disagree.
// expect-error-in-header: the layer checks its input in its call operator
// expect-error: Linear layer of
// expect-error-gcc: Linear layer of 64 input features given an input whose last axis has 48
#include <ctein/ctein.hpp>
#include <ctein/nn.hpp>

int main() {
    ctein::nn::linear<64, 32> projection;
#ifdef CTEIN_COMPILE_FAIL
    ctein::tensor<float, "b s e", 2, 5, 48> x;
#else
    ctein::tensor<float, "b s e", 2, 5, 64> x;
#endif
    auto y = projection(x);
    return static_cast<int>(ctein::eval(y).size() == 0);
}
