#pragma once
// Error statistics between an original tensor and its reconstruction, in double precision.
#include <cstddef>
#include <cstdint>
#include <span>

#include "gradcodec/dtype.hpp"

// Everything declared here is the shared library's API; the rest of it stays hidden.
#pragma GCC visibility push(default)
namespace gradcodec {

struct ErrorMetrics {
    double rel_l2 = 0;       // ||x - y|| / ||x||  (0 when both are zero, inf when only x is)
    double cosine = 1;       // <x, y> / (||x|| ||y||)  (1 when both are zero, 0 when one is)
    double max_abs = 0;      // max |x - y|
    double psnr_db = 0;      // 20 log10(max x - min x) - 10 log10(mse); inf when mse = 0
    double energy_kept = 1;  // ||y||^2 / ||x||^2
    double sum_sq_error = 0, sum_sq_original = 0, sum_sq_decoded = 0, sum_product = 0;
    double min_original = 0, max_original = 0;
    std::uint64_t count = 0;
};

// Accumulates tensor by tensor so a total over a whole dump costs no extra memory.
class MetricsAccumulator {
  public:
    // Both spans hold the same number of little-endian elements of the float type `dtype`.
    void add(DType dtype, std::span<const std::byte> original, std::span<const std::byte> decoded);
    ErrorMetrics result() const;

  private:
    ErrorMetrics sums_;
};

}  // namespace gradcodec
#pragma GCC visibility pop
