// What the compile-fail tests' precompiled header is made of (CMakeLists.txt): <ctein/ctein.hpp>,
// which every test includes first, and the attention kernel's explicit instantiation
// declarations. The tests only check a user's code (-fsyntax-only, nothing is linked), so the
// kernel need not be instantiated: without the declarations, each test calling attention spent
// 1.3-2 s where it now takes 0.7 s.
#pragma once

#include <ctein/ctein.hpp>
#include <ctein/kernels/attention_instances.hpp>
