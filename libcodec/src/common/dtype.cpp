#include "gradcodec/dtype.hpp"

#include <array>
#include <utility>

namespace gradcodec {
namespace {

struct DTypeRow {
    DType type;
    std::string_view name;
    std::size_t size;
    bool floating;
};

constexpr std::array<DTypeRow, 13> kTypes{{
    {DType::f16, "f16", 2, true},
    {DType::bf16, "bf16", 2, true},
    {DType::f32, "f32", 4, true},
    {DType::f64, "f64", 8, true},
    {DType::i8, "i8", 1, false},
    {DType::i16, "i16", 2, false},
    {DType::i32, "i32", 4, false},
    {DType::i64, "i64", 8, false},
    {DType::u8, "u8", 1, false},
    {DType::u16, "u16", 2, false},
    {DType::u32, "u32", 4, false},
    {DType::u64, "u64", 8, false},
    {DType::bool8, "bool", 1, false},
}};

const DTypeRow& row(DType type) {
    for (const auto& r : kTypes)
        if (r.type == type) return r;
    return kTypes[2];  // unreachable for valid enum values: dtype_from_code guards decoding
}

}  // namespace

std::size_t dtype_size(DType type) {
    return row(type).size;
}
bool is_float(DType type) {
    return row(type).floating;
}
std::string_view dtype_name(DType type) {
    return row(type).name;
}

std::optional<DType> dtype_from_name(std::string_view name) {
    for (const auto& r : kTypes)
        if (r.name == name) return r.type;
    return std::nullopt;
}

std::optional<DType> dtype_from_code(std::uint8_t code) {
    for (const auto& r : kTypes)
        if (static_cast<std::uint8_t>(r.type) == code) return r.type;
    return std::nullopt;
}

}  // namespace gradcodec
