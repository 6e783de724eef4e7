#pragma once
// Tests of refusals check the gradcodec::Error a call throws, its kind and its message; a call
// that returns instead must fail the test case rather than skip those checks.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <utility>

#include "gradcodec/error.hpp"

namespace gradcodec::testing {

// The gradcodec::Error that call() throws; fails the test case when it throws none. Any other
// exception passes through, so Catch reports it as the unexpected exception it is.
//
// Catch would place that failure here, so the message names the caller's line instead
// (__builtin_FILE/LINE: clang 14 has no std::source_location).
template <class Call>
Error thrown_error(Call&& call, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    try {
        std::forward<Call>(call)();
    } catch (const Error& e) {
        return e;
    }
    FAIL("no gradcodec::Error was thrown by the call at " << file << ":" << line);
    std::abort();  // not reached, FAIL throws: this only tells the compiler nothing returns here
}

}  // namespace gradcodec::testing
