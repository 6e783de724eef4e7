#include "gradcodec_hdf5/dtype_of_hdf5.hpp"

namespace gradcodec::hdf5 {
namespace {

std::optional<DType> float_dtype(hid_t type, std::size_t size) {
    std::size_t spos = 0, epos = 0, esize = 0, mpos = 0, msize = 0;
    if (H5Tget_fields(type, &spos, &epos, &esize, &mpos, &msize) < 0) return std::nullopt;
    if (size == 2 && esize == 5 && msize == 10) return DType::f16;
    if (size == 2 && esize == 8 && msize == 7) return DType::bf16;
    if (size == 4 && esize == 8 && msize == 23) return DType::f32;
    if (size == 8 && esize == 11 && msize == 52) return DType::f64;
    return std::nullopt;
}

std::optional<DType> integer_dtype(hid_t type, std::size_t size) {
    const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
    switch (size) {
        case 1:
            return is_signed ? DType::i8 : DType::u8;
        case 2:
            return is_signed ? DType::i16 : DType::u16;
        case 4:
            return is_signed ? DType::i32 : DType::u32;
        case 8:
            return is_signed ? DType::i64 : DType::u64;
        default:
            return std::nullopt;
    }
}

}  // namespace

std::optional<DType> dtype_of_number_type(hid_t type) {
    const std::size_t size = H5Tget_size(type);
    switch (H5Tget_class(type)) {
        case H5T_FLOAT:
            return float_dtype(type, size);
        case H5T_INTEGER:
            return integer_dtype(type, size);
        default:
            return std::nullopt;
    }
}

}  // namespace gradcodec::hdf5
