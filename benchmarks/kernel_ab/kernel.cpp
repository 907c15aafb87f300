// One version of the attention kernel, compiled under its own namespace (-DCTEIN_AB_NAMESPACE)
// so that two versions link into one program (run.sh).
#define ctein CTEIN_AB_NAMESPACE
#include <ctein/kernels/attention.hpp>

#define CTEIN_AB_JOIN2(a, b) a##b
#define CTEIN_AB_JOIN(a, b) CTEIN_AB_JOIN2(a, b)

extern "C" void CTEIN_AB_JOIN(run_, CTEIN_AB_NAMESPACE)(const void* problem) {
    ctein::kernels::attention(*static_cast<const ctein::kernels::attention_problem*>(problem));
}
