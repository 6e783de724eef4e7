// Shared positions for the all-reduce transports: random-k's seeded draw and the format's
// position section, as NumPy uint64 arrays and bytes.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <gradcodec/positions.hpp>
#include <span>
#include <vector>

#include "bindings.hpp"

namespace py = pybind11;

namespace gradcodec::python {
namespace {

using PositionArray = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>;

PositionArray to_array(std::vector<std::uint64_t> positions) {
    PositionArray out(static_cast<py::ssize_t>(positions.size()));
    std::copy(positions.begin(), positions.end(), out.mutable_data());
    return out;
}

PositionArray random_positions_array(std::uint64_t n, std::uint64_t k, std::uint64_t seed) {
    std::vector<std::uint64_t> positions;
    {
        py::gil_scoped_release unlocked;
        positions = random_positions(n, k, seed);
    }
    return to_array(std::move(positions));
}

py::bytes encode_section(const PositionArray& positions, std::uint64_t n) {
    const std::span<const std::uint64_t> sorted(positions.data(),
                                                static_cast<std::size_t>(positions.size()));
    const std::vector<std::uint8_t> section = encode_position_section(sorted, n);
    return {reinterpret_cast<const char*>(section.data()), section.size()};
}

PositionArray decode_section(const py::buffer& section, std::uint64_t n) {
    const py::buffer_info info = section.request();
    const std::span<const std::uint8_t> bytes(static_cast<const std::uint8_t*>(info.ptr),
                                              static_cast<std::size_t>(info.size * info.itemsize));
    return to_array(decode_position_section(bytes, n));
}

}  // namespace

void register_positions(py::module_& module) {
    module.def("random_positions", &random_positions_array, py::arg("n"), py::arg("k"),
               py::arg("seed"),
               "The k positions of range(n) that randomk draws from `seed`, ascending (uint64).");
    module.def("encode_positions", &encode_section, py::arg("positions"), py::arg("n"),
               "A position section (format-spec/codec-sparse.md §2) for strictly increasing "
               "positions below n.");
    module.def("decode_positions", &decode_section, py::arg("section"), py::arg("n"),
               "The positions of one position section, as uint64.");
}

}  // namespace gradcodec::python
