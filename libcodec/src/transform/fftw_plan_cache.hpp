#pragma once
// FFTW plans, made once per (kind, size) and shared. FFTW's planner is not thread-safe, so
// every planner call (create and destroy) runs under one mutex; executing a plan on new
// arrays is thread-safe and needs no lock.
#include <fftw3.h>

#include <cstddef>
#include <memory>

namespace gradcodec {

enum class FftwKind { r2c, c2r, redft10, redft01 };

struct FftwPlan {
    fftwf_plan plan = nullptr;
    ~FftwPlan();
};

// The plan for one transform of `size` values, out-of-place, planned on SIMD-aligned arrays
// (so it may only run on arrays with fftwf_alignment_of() == 0). Kept alive by the caller's
// reference even if the cache evicts it.
std::shared_ptr<const FftwPlan> fftw_plan_for(FftwKind kind, std::size_t size);

// Planner rigour: FFTW_ESTIMATE unless changed (bench/transform.cpp compares the two).
void set_fftw_planner_flags(unsigned flags);

}  // namespace gradcodec
