#include "support/dump_groups.hpp"

#include <algorithm>

#include "gradcodec/error.hpp"
#include "gradcodec_hdf5/hdf5_dump.hpp"
#include "support/cli_support.hpp"

namespace gradcodec::cli {

using namespace gradcodec::hdf5;  // HDF5 dumps: gradcodec_hdf5_io (hdf5/)

std::string parent_group(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

std::vector<DumpGroup> float_groups(const std::string& file, hid_t root,
                                    const std::vector<std::string>& select) {
    std::vector<DumpGroup> groups;
    walk_dump(file, root,
              {[](const GroupRecord&) {},
               [&](const DumpDataset& d) {
                   if (!is_float(d.dtype) || !selected(d.path, select)) return;
                   const std::string group = parent_group(d.path);
                   auto it = std::find_if(groups.begin(), groups.end(),
                                          [&](const DumpGroup& g) { return g.path == group; });
                   if (it == groups.end()) it = groups.insert(groups.end(), DumpGroup{group, {}});
                   it->tensors.push_back(
                       {d.path, TensorMeta{file + ": " + display_name(d.path), d.dtype, d.shape},
                        d.attributes});
               },
               [](const LinkRecord&) {}});
    return groups;
}

std::vector<std::byte> load_tensor(const std::string& file, hid_t root, const UnitTensor& t) {
    DType dtype{};
    std::vector<std::uint64_t> shape;
    auto data = read_dataset_at(file, root, t.path, dtype, shape);
    if (dtype != t.meta.dtype || shape != t.meta.shape) {
        fail(ErrorKind::bad_input, t.meta.name + ": changed while being read");
    }
    return data;
}

}  // namespace gradcodec::cli
