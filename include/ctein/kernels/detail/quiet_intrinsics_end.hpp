// The end of the region quiet_intrinsics_begin.hpp opened.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
