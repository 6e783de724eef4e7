#pragma once
// The builds of a hand-vectorised kernel. The portable build defines the result and the others
// must match it, which tests check by running every path the CPU has; the library runs the
// widest.
namespace gradcodec {

enum class VectorPath { portable, avx2, avx512 };

// Whether this CPU and this build can run `path`; the portable path runs everywhere.
bool cpu_supports(VectorPath path);
VectorPath widest_vector_path();

}  // namespace gradcodec
