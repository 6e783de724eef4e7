#pragma once
// Element types a gradient dump may hold. The numeric values are format constants: they are
// written into streams and MUST NOT change (format-spec/FORMAT.md, "Data types").
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

// Everything declared here is the shared library's API; the rest of it stays hidden.
#pragma GCC visibility push(default)
namespace gradcodec {

enum class DType : std::uint8_t {
    f16 = 1,   // IEEE binary16, as h5py writes float16
    bf16 = 2,  // bfloat16: the top half of a binary32
    f32 = 3,
    f64 = 4,
    i8 = 16,
    i16 = 17,
    i32 = 18,
    i64 = 19,
    u8 = 24,
    u16 = 25,
    u32 = 26,
    u64 = 27,
    bool8 = 32,  // h5py's bool: an 8-bit enum FALSE=0, TRUE=1
};

std::size_t dtype_size(DType type);
bool is_float(DType type);
std::string_view dtype_name(DType type);
std::optional<DType> dtype_from_name(std::string_view name);
std::optional<DType> dtype_from_code(std::uint8_t code);

}  // namespace gradcodec
#pragma GCC visibility pop
