#include "io/slab_output.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "gradcodec/error.hpp"

namespace gradcodec::cli {

SlabLayout slab_layout(std::span<const std::uint64_t> shape, std::size_t element_size) {
    const std::uint64_t slab_elements = std::max<std::uint64_t>(1, kSlabBytes / element_size);
    SlabLayout layout;
    if (shape.empty()) {
        layout.rows = 1;
        return layout;  // a scalar: one slab of one element
    }
    // The last dimension `split` whose later dimensions together fit one slab.
    std::uint64_t inner = 1;  // elements per index of `split`
    std::size_t split = shape.size() - 1;
    while (split > 0 && shape[split] <= slab_elements / inner) {
        inner *= shape[split];
        --split;
    }
    layout.split = split;
    layout.rows = std::clamp<std::uint64_t>(slab_elements / inner, 1, shape[split]);
    layout.chunk.assign(shape.size(), 1);
    layout.chunk[split] = layout.rows;
    for (std::size_t d = split + 1; d < shape.size(); ++d) layout.chunk[d] = shape[d];
    return layout;
}

void write_raw_slabs(SlabDecoder& decoder, DType dtype, std::FILE* out, const std::string& output) {
    const std::size_t size = dtype_size(dtype);
    const std::uint64_t slab_elements = std::max<std::uint64_t>(1, kSlabBytes / size);
    std::vector<std::byte> slab(slab_elements * size);
    const std::vector<std::byte> zeros(slab.size());
    while (decoder.position() < decoder.element_count()) {
        const std::uint64_t first = decoder.position();
        const std::uint64_t count = std::min(slab_elements, decoder.element_count() - first);
        std::span<const std::byte> bytes = std::span(zeros).first(count * size);
        if (decoder.next_kept() < first + count) {
            const std::span<std::byte> values = std::span(slab).first(count * size);
            decoder.next(values);
            bytes = values;
        } else {
            decoder.skip(count);
        }
        if (std::fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size())
            fail(ErrorKind::io, output + ": write failed: " + std::strerror(errno));
    }
}

void write_hdf5_slabs(hdf5::DumpWriter& writer, const TensorRecord& record, SlabDecoder& decoder) {
    const std::vector<std::uint64_t>& shape = record.shape;
    const std::size_t size = dtype_size(record.dtype);
    const SlabLayout layout = slab_layout(shape, size);
    writer.write_slabs(record, layout.chunk, [&](const hdf5::DumpWriter::SlabWrite& write) {
        std::uint64_t inner = 1;
        for (std::size_t d = layout.split + 1; d < shape.size(); ++d) inner *= shape[d];
        std::vector<std::byte> slab;
        std::vector<std::uint64_t> start(shape.size(), 0);
        std::vector<std::uint64_t> count = layout.chunk;
        // start[0..split) counts through the earlier dimensions; start[split] along `split`.
        while (decoder.position() < decoder.element_count()) {
            count[layout.split] = std::min(layout.rows, shape[layout.split] - start[layout.split]);
            const std::uint64_t elements = count[layout.split] * inner;
            if (decoder.next_kept() < decoder.position() + elements) {
                slab.resize(elements * size);
                decoder.next(slab);
                write(start, count, slab);
            } else {
                decoder.skip(elements);
            }
            start[layout.split] += count[layout.split];
            for (std::size_t d = layout.split; d > 0 && start[d] == shape[d]; --d) {
                start[d] = 0;
                ++start[d - 1];
            }
        }
    });
}

}  // namespace gradcodec::cli
