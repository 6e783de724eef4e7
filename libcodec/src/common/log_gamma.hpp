#pragma once
// ln|Gamma(x)| for code that runs on many threads at once. std::lgamma stores the sign of
// Gamma(x) in the process-wide `signgam`, so concurrent calls race on it (ThreadSanitizer
// reports it from parallel SIDCo fits); the reentrant lgamma_r hands the sign back instead.
#include <math.h>

namespace gradcodec {

inline double log_gamma(double x) {
    int sign = 0;
    return ::lgamma_r(x, &sign);
}

}  // namespace gradcodec
