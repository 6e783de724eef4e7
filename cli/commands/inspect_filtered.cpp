#include "commands/inspect_filtered.hpp"

#include "gradcodec/gradcodec.hpp"
#include "gradcodec_hdf5/byte_budget.hpp"
#include "gradcodec_hdf5/hdf5_dump.hpp"
#include "io/filtered_dataset.hpp"
#include "support/cli_support.hpp"
#include "support/common_values.hpp"

namespace gradcodec::cli {

using namespace gradcodec::hdf5;  // HDF5 dumps: gradcodec_hdf5_io (hdf5/)
namespace {

// Sums what each chunk's frame says of its payload into the dataset's row.
struct FrameTotals {
    std::uint64_t bytes = 0, position_bits = 0, value_bits = 0, carried = 0;
    bool bit_split = true, has_carried = true;
    double target_density = -1.0;

    void add(std::span<const std::uint8_t> frame, const std::string& where) {
        const FrameInfo info = read_frame_info(frame);
        const TensorMeta meta{where, info.dtype, info.shape};
        const PayloadStats stats = describe_payload(
            info.codec_id, meta, frame.subspan(info.payload_offset, info.payload_size));
        bytes += frame.size();
        bit_split = bit_split && stats.has_bit_split;
        has_carried = has_carried && stats.has_carried;
        position_bits += stats.position_bits;
        value_bits += stats.value_bits;
        carried += stats.carried;
        if (stats.target_density >= 0) target_density = stats.target_density;
    }
};

void describe_filtered(InspectedDataset& out, hid_t dataset, const h5z::FilterParams& params,
                       const std::string& where) {
    FrameTotals totals;
    for (const auto& frame : read_chunk_frames(dataset, where)) totals.add(frame, where);
    InspectRow& row = out.row;
    row.codec = params.spec;
    row.bytes_out = totals.bytes;
    if (totals.has_carried && totals.bytes) row.kept = totals.carried;
    if (totals.bit_split && totals.bytes && row.elements) {
        row.position_bits = double(totals.position_bits) / double(row.elements);
        row.value_bits = double(totals.value_bits) / double(row.elements);
    }
    if (totals.target_density >= 0) row.target_density = totals.target_density;
}

}  // namespace

std::uint64_t inspect_hdf5_file(const std::string& file,
                                const std::function<void(InspectedDataset&)>& visit) {
    register_gradcodec_filter();
    Hid root = open_dump(file);
    // Typed datasets are never filtered: their row gives their serialised size and storage.
    const auto typed = [&](const TypedDataset& d) {
        const TypedRecord record = d.read(file, ByteBudget().tensor_cap());
        std::uint64_t elements = 1;
        for (auto dim : d.shape) elements *= dim;
        InspectedDataset out{{}, TensorRecord{d.path, DType::u8, d.shape, {}, 0, "", {}}, {}};
        out.row = InspectRow{display_name(d.path),
                             "hdf5 " + type_summary(d.type.get()),
                             shape_to_string(d.shape),
                             "unfiltered",
                             d.shape,
                             elements,
                             elements,
                             record.data.size(),
                             H5Dget_storage_size(d.id),
                             {},
                             {},
                             {},
                             {}};
        visit(out);
    };
    walk_dump(file, root.get(),
              {[](const GroupRecord&) {},
               [&](const DumpDataset& d) {
                   const std::string where = file + ": " + display_name(d.path);
                   InspectedDataset out{
                       {}, TensorRecord{d.path, d.dtype, d.shape, {}, 0, "", {}}, d.read(file)};
                   const TensorMeta meta{where, d.dtype, d.shape};
                   out.row = InspectRow{display_name(d.path),
                                        std::string(dtype_name(d.dtype)),
                                        shape_to_string(d.shape),
                                        "unfiltered",
                                        d.shape,
                                        meta.element_count(),
                                        count_nonzero(d.dtype, out.decoded),
                                        meta.byte_count(),
                                        H5Dget_storage_size(d.id),
                                        {},
                                        {},
                                        {},
                                        {}};
                   if (const auto params = gradcodec_filter_of(d.id, where)) {
                       describe_filtered(out, d.id, *params, where);
                   }
                   visit(out);
               },
               [](const LinkRecord&) {}, typed});
    hsize_t size = 0;
    check_status(H5Fget_filesize(root.get(), &size), ErrorKind::io, file, "cannot read its size");
    return size;
}

}  // namespace gradcodec::cli
