#pragma once
#include <cstdint>
#include <string>
#include <vector>

// Everything declared here is the shared library's API; the rest of it stays hidden.
#pragma GCC visibility push(default)
namespace gradcodec {

inline constexpr std::uint16_t kFormatMajor = 1;
inline constexpr std::uint16_t kFormatMinor = 2;  // 1.2: codec ids 7-11

const char* library_version();
std::string format_version_string();      // "1.0"
std::vector<std::string> fft_backends();  // compiled-in transform backends, e.g. {"fftw3f"}

}  // namespace gradcodec
#pragma GCC visibility pop
