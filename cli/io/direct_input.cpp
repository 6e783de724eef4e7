#include "io/direct_input.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "gradcodec_hdf5/hdf5_types.hpp"

namespace gradcodec::cli {

using namespace gradcodec::hdf5;  // HDF5 dumps: gradcodec_hdf5_io (hdf5/)
namespace {

// The file descriptor behind a dump opened with HDF5's default (sec2) driver; -1 for any other
// driver (standard input is read into memory by the core driver).
int sec2_descriptor(hid_t file) {
    Hid fapl(H5Fget_access_plist(file));
    if (!fapl.valid() || H5Pget_driver(fapl.get()) != H5FD_SEC2) return -1;
    void* handle = nullptr;
    if (H5Fget_vfd_handle(file, fapl.get(), &handle) < 0 || handle == nullptr) return -1;
    return *static_cast<int*>(handle);
}

// The values are stored as H5Dread would return them into a buffer of `dataset.dtype`: one
// contiguous run, written, in the file itself, unfiltered and of exactly the memory type.
bool stored_as_read(const DumpDataset& dataset, std::uint64_t bytes) {
    Hid dcpl(H5Dget_create_plist(dataset.id));
    if (!dcpl.valid() || H5Pget_layout(dcpl.get()) != H5D_CONTIGUOUS ||
        H5Pget_external_count(dcpl.get()) != 0 || H5Pget_nfilters(dcpl.get()) != 0) {
        return false;
    }
    Hid stored(H5Dget_type(dataset.id));
    Hid wanted = hdf5_type_of(dataset.dtype);
    if (!stored.valid() || H5Tequal(stored.get(), wanted.get()) <= 0) return false;
    H5D_space_status_t status{};
    if (H5Dget_space_status(dataset.id, &status) < 0 || status != H5D_SPACE_STATUS_ALLOCATED)
        return false;
    return H5Dget_storage_size(dataset.id) == bytes;
}

}  // namespace

DirectInput::DirectInput(hid_t file, const std::string& name) : name_(name) {
    const int hdf5_fd = sec2_descriptor(file);
    if (hdf5_fd < 0) return;
    // Our own descriptor: mappings may still be made while HDF5 closes its file.
    const int fd = fcntl(hdf5_fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return;
    struct stat st {};
    haddr_t eoa = 0;
    hsize_t userblock = 0;
    Hid fcpl(H5Fget_create_plist(file));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || H5Fget_eoa(file, &eoa) < 0 ||
        !fcpl.valid() || H5Pget_userblock(fcpl.get(), &userblock) < 0) {
        close(fd);
        return;
    }
    // HDF5's addresses count from the end of the user block; H5Dget_offset's do not.
    end_ = std::min(static_cast<std::uint64_t>(st.st_size), std::uint64_t{userblock} + eoa);
    fd_ = fd;
    map_file();
}

DirectInput::~DirectInput() {
    if (mapping_ != nullptr) munmap(mapping_, end_);
    if (fd_ >= 0) close(fd_);
}

// A file that shrinks under the mapping raises SIGBUS, which the handler reports for the file
// it is told of; without a name to give it (a path too long), the file is read instead.
void DirectInput::map_file() {
    if (end_ == 0 || !mapped_name_.emplace(name_).named()) return;
    void* p = mmap(nullptr, end_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (p == MAP_FAILED) {
        mapped_name_.reset();
        return;
    }
    mapping_ = static_cast<std::byte*>(p);
}

std::optional<FileExtent> DirectInput::extent_of(const DumpDataset& dataset) const {
    const std::uint64_t bytes = dataset.byte_count();
    if (fd_ < 0 || bytes == 0 || !stored_as_read(dataset, bytes)) return std::nullopt;
    const haddr_t offset = H5Dget_offset(dataset.id);
    if (offset == HADDR_UNDEF) return std::nullopt;
    // A misaligned run would send every codec down its copying path: H5Dread aligns it once.
    if (offset % dtype_size(dataset.dtype) != 0) return std::nullopt;
    if (offset > end_ || bytes > end_ - offset) {
        fail(ErrorKind::bad_input,
             name_ + ": " + dataset.path + ": its values (" + std::to_string(bytes) +
                 " bytes at offset " + std::to_string(offset) + ") lie past the end of the file (" +
                 std::to_string(end_) + " bytes of data); the file is truncated or damaged");
    }
    return FileExtent{offset, bytes};
}

void DirectInput::prefetch(FileExtent extent) const {
    // RWF_NOWAIT reads only what is cached, and fails at once otherwise.
    std::byte last{};
    iovec probe{&last, 1};
    if (extent.size != 0 &&
        preadv2(fd_, &probe, 1, static_cast<off_t>(extent.offset + extent.size - 1), RWF_NOWAIT) ==
            1) {
        return;
    }
    posix_fadvise(fd_, static_cast<off_t>(extent.offset), static_cast<off_t>(extent.size),
                  POSIX_FADV_WILLNEED);
}

std::span<const std::byte> DirectInput::values(FileExtent extent, PooledBuffer& into,
                                               BufferPool& buffers,
                                               const std::string& where) const {
    if (mapping_ != nullptr) return {mapping_ + extent.offset, extent.size};
    into = buffers.take(extent.size);
    read(extent, into.bytes(), where);
    return into.bytes();
}

void DirectInput::release(FileExtent extent) const {
    if (mapping_ == nullptr) return;
    const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
    const std::uint64_t first = (extent.offset + page - 1) / page * page;
    const std::uint64_t end = (extent.offset + extent.size) / page * page;
    if (end > first) madvise(mapping_ + first, end - first, MADV_DONTNEED);
}

void DirectInput::read(FileExtent extent, std::span<std::byte> out,
                       const std::string& where) const {
    std::size_t done = 0;
    while (done < extent.size) {
        const ssize_t n = pread(fd_, out.data() + done, extent.size - done,
                                static_cast<off_t>(extent.offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail(ErrorKind::io, where + ": read failed: " + std::strerror(errno));
        if (n == 0) fail(ErrorKind::bad_input, where + ": the file ends inside its values");
        done += static_cast<std::size_t>(n);
    }
}

ExtentPieces::ExtentPieces(const DirectInput& input, FileExtent extent, std::string where,
                           std::span<std::byte> buffer)
    : input_(input), extent_(extent), where_(std::move(where)), buffer_(buffer) {}

std::span<const std::byte> ExtentPieces::next() {
    const auto size =
        static_cast<std::size_t>(std::min<std::uint64_t>(buffer_.size(), extent_.size - done_));
    const std::span<std::byte> piece = buffer_.first(size);
    input_.read({extent_.offset + done_, size}, piece, where_);
    done_ += size;
    return piece;
}

}  // namespace gradcodec::cli
