// ctein: einops patterns parsed at compile time, producing statically shaped tensor views.
// Include this header for the whole public API.
#pragma once

#include "core/axis_length.hpp"
#include "core/error.hpp"
#include "core/extents.hpp"
#include "core/fixed_string.hpp"
#include "expr/as_view.hpp"
#include "expr/attention.hpp"
#include "expr/attention_formula.hpp"
#include "expr/attention_options.hpp"
#include "expr/describe.hpp"
#include "expr/einsum.hpp"
#include "expr/eval.hpp"
#include "expr/pack.hpp"
#include "expr/parse_shape.hpp"
#include "expr/rearrange.hpp"
#include "expr/reduce.hpp"
#include "expr/repeat.hpp"
#include "expr/tensor.hpp"
#include "expr/view.hpp"
#include "kernels/thread_pool.hpp"
