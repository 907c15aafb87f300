// Turns a diagnostic found in constexpr code into one compile error whose first line carries the
// message. g++ prints string template arguments as text, so the message goes into the name of an
// incomplete type; clang 14 prints them as numbers but prints characters and static_assert
// literals, so there each error code has a static_assert with the message format, and the
// arguments appear as character lists in the failed requirement.
#pragma once

#include "error.hpp"
#include "fixed_string.hpp"

#include <cstddef>
#include <utility>

namespace ctein {

/// Never defined: naming it is the compile error, and its argument is the message.
template <fixed_string Message>
struct compile_time_error;

namespace detail {

/// For a static_assert that fails whenever it is instantiated: `static_assert(always_false<T>, "why")`.
template <class T>
inline constexpr bool always_false = false;

/// What an operation returns after reporting a compile error. It converts to anything and has
/// the members code most often uses on a result, so that such code adds no errors of its own.
/// (Declared only: a program that names it has already failed to compile.)
struct failed_operation {
    template <class T>
    operator T() const;
    template <class... A>
    failed_operation operator()(A&&...) const;
    std::size_t size() const;
    std::size_t extent(std::size_t) const;
    failed_operation* data() const;
    // arithmetic on a failed result (the scores of an attention formula) adds no error either
    template <class T>
    friend failed_operation operator*(const failed_operation&, const T&);
    template <class T>
    friend failed_operation operator*(const T&, const failed_operation&);
    template <class T>
    friend failed_operation operator/(const failed_operation&, const T&);
    template <class T>
    friend failed_operation operator+(const failed_operation&, const T&);
    template <class T>
    friend failed_operation operator+(const T&, const failed_operation&); // scores + a failed mask
    friend failed_operation operator+(const failed_operation&, const failed_operation&);
};

/// The message of `D` as a type-level string.
template <const diagnostic& D>
inline constexpr auto message_text = fixed_string<D.message().size()>(D.message().view());

template <char... C>
struct text {};
template <class... Arguments>
struct error_arguments {};
template <class Arguments>
inline constexpr bool failed_with = false;

template <const diagnostic& D, std::size_t I, std::size_t... C>
auto argument_text(std::index_sequence<C...>) -> text<D.args[I].text.chars[C]...>;

template <const diagnostic& D, std::size_t... I>
auto argument_list(std::index_sequence<I...>)
    -> error_arguments<decltype(argument_text<D, I>(std::make_index_sequence<D.args[I].text.size()>{}))...>;

#if defined(__clang__)
/// Instantiating it is the compile error: a static_assert with the format of `Code`, whose failed
/// requirement prints the arguments.
template <errc Code, class Arguments>
struct reported_as;
#define CTEIN_REPORT_CASE(name, format)                                                                      \
    template <class Arguments>                                                                               \
    struct reported_as<errc::name, Arguments> {                                                              \
        static_assert(failed_with<Arguments>, format);                                                       \
    };
CTEIN_ERROR_TABLE(CTEIN_REPORT_CASE)
#undef CTEIN_REPORT_CASE

#endif

/// What a call gives after its mistake was reported at the call itself: a failed result whose type
/// names the message (`Error` is `compile_time_error<"...">`).
template <class Error>
struct failed : failed_operation {};

/// g++ reports a mistake at the user's own line: each entry point has a deleted overload, chosen
/// when the mistake is there, whose return type carries the message, so the diagnostic opens with
/// "user.cpp: In function ...", then "user.cpp:LINE: error: use of deleted function
/// 'ctein::detail::failed<ctein::compile_time_error<...{"message"}> > ...'". clang names a deleted
/// function without its return type, so there the entry point's body reports it (report below).
#if defined(__clang__)
inline constexpr bool reports_at_call = false;
#else
inline constexpr bool reports_at_call = true;
#endif

/// Whether the call whose mistake is `D` takes its entry point's deleted overload.
template <const diagnostic& D>
inline constexpr bool fails_at_call = reports_at_call&& static_cast<bool>(D);

/// The return type of the deleted overload for mistake `D`.
template <const diagnostic& D>
using reported_at_call = failed<compile_time_error<message_text<D>>>;

/// Reports `D`, if it is an error, as one compile error. Call it once, at the entry point that
/// found the mistake, and return without instantiating anything else, so that the error does
/// not cascade. In a class body, `using checked = decltype(detail::report<D>());` does the same
/// (the deduced return type makes the compiler instantiate the body).
template <const diagnostic& D>
constexpr auto report() {
    if constexpr (static_cast<bool>(D)) {
#if defined(__clang__)
        using arguments = decltype(argument_list<D>(std::make_index_sequence<D.arg_count>{}));
        static_cast<void>(sizeof(reported_as<D.code, arguments>));
#else
        static_cast<void>(sizeof(compile_time_error<message_text<D>>));
#endif
    }
    return true;
}

} // namespace detail
} // namespace ctein
