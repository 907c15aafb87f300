// Compiled to assembly by requests_kept.cmake: a function whose only effect is asking for cache
// lines (prefetch_lines, request_line) keeps its calls where it is not inlined. g++ 12 had taken
// such a function for one without effects and dropped its calls, and with them a kernel's
// requests ahead, unseen (attention_rows.hpp, request_line).
#include <ctein/kernels/attention_rows.hpp>

using ctein::kernels::attention_detail::cache_level;
using ctein::kernels::attention_detail::prefetch_lines;

[[gnu::noinline]] void only_requests(const char* at) {
    prefetch_lines(at, 256);
    prefetch_lines<cache_level::l2>(at + 4096, 256);
}

int reads_after_requests(const char* at) {
    only_requests(at);
    return at[0];
}
