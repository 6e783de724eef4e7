#pragma once
// The regularised incomplete gamma functions and the exact inverse that SIDCo's gamma
// threshold needs (docs/algorithms.md §6.2: eta = beta * P^-1(alpha, 1 - delta)).
namespace gradcodec {

// P(a, x) = gamma(a, x) / Gamma(a) and Q = 1 - P, for a > 0, x >= 0; each computed directly
// (series below a + 1, continued fraction above), so a small Q keeps its relative precision.
double regularized_lower_gamma(double a, double x);
double regularized_upper_gamma(double a, double x);

// The x >= 0 with Q(a, x) = q, for a > 0 and q in [0, 1] (q = 0 gives +inf, q = 1 gives 0).
// Bracketed Halley iteration to a relative error near 1e-14.
double inverse_regularized_upper_gamma(double a, double q);

// An approximate upper standard normal quantile (|error| < 5e-4): a starting point only.
double approximate_normal_upper_quantile(double q);

}  // namespace gradcodec
