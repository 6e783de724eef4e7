#pragma once
// RAII for HDF5 identifiers, and one place that turns HDF5 failures into gradcodec errors.
#include <hdf5.h>

#include <string>
#include <utility>

#include "gradcodec/error.hpp"

namespace gradcodec::cli {

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

inline void check_status(herr_t status, ErrorKind kind, const std::string& where,
                         const std::string& what) {
    if (status < 0) fail(kind, where + ": " + what);
}

}  // namespace gradcodec::cli
