#pragma once
// RAII for HDF5 identifiers, and one place that turns HDF5 failures into gradcodec errors.
#include <hdf5.h>

#include <string>
#include <utility>

#include "gradcodec/error.hpp"

namespace gradcodec::hdf5 {

class Hid {
  public:
    Hid() = default;
    explicit Hid(hid_t id) : id_(id) {}
    Hid(Hid&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)) {}
    Hid& operator=(Hid&& o) noexcept {
        if (this != &o) {
            reset();
            id_ = std::exchange(o.id_, H5I_INVALID_HID);
        }
        return *this;
    }
    Hid(const Hid&) = delete;
    Hid& operator=(const Hid&) = delete;
    ~Hid() { reset(); }
    hid_t get() const { return id_; }
    bool valid() const { return id_ >= 0; }
    hid_t release() { return std::exchange(id_, H5I_INVALID_HID); }
    void reset() {
        if (id_ >= 0) H5Idec_ref(id_);
        id_ = H5I_INVALID_HID;
    }

  private:
    hid_t id_ = H5I_INVALID_HID;
};

// Throws Error(kind) "<where>: <what>" when `id` is negative; returns it owned otherwise.
inline Hid checked(hid_t id, ErrorKind kind, const std::string& where, const std::string& what) {
    if (id < 0) fail(kind, where + ": " + what);
    return Hid(id);
}

// The CLI's HDF5 set-up, once per process, before its first HDF5 call: no clean-up at exit (after a
// failed write, a full disk, HDF5 1.10 keeps a half-closed file whose close callback crashes in
// H5_term_library; every file that matters is closed explicitly before success is reported),
// and no error stack on stderr (our messages replace it). Every way the CLI reaches a file
// through HDF5 (probing, opening, creating) calls it first, and everything else works on what
// those returned, so a command that never touches HDF5 (raw input, streams) never starts the
// library, whose start-up and shut-down cost milliseconds per process.
inline void start_hdf5() {
    static const bool started = [] {
        H5dont_atexit();
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        return true;
    }();
    (void)started;
}

inline void check_status(herr_t status, ErrorKind kind, const std::string& where,
                         const std::string& what) {
    if (status < 0) fail(kind, where + ": " + what);
}

}  // namespace gradcodec::hdf5
