#include "gradcodec_hdf5/libhdf5_reading.hpp"

#include <atomic>

#include "gradcodec_hdf5/printable.hpp"

namespace gradcodec::hdf5 {
namespace {

// The printable name of the file libhdf5 reads on this thread, or null. Initial-exec TLS is a
// fixed offset from the thread pointer: reading it in a handler calls nothing.
__attribute__((tls_model("initial-exec"))) thread_local const char* volatile t_hdf5_input = nullptr;

void set_hdf5_input(const char* name) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    t_hdf5_input = name;
    std::atomic_signal_fence(std::memory_order_seq_cst);
}

}  // namespace

const char* libhdf5_input() {
    return t_hdf5_input;
}

Libhdf5Reading::Libhdf5Reading(const std::string& file)
    : name_(printable(file)), previous_(t_hdf5_input) {
    set_hdf5_input(name_.c_str());
}

Libhdf5Reading::~Libhdf5Reading() {
    set_hdf5_input(previous_);
}

Libhdf5Paused::Libhdf5Paused() : previous_(t_hdf5_input) {
    set_hdf5_input(nullptr);
}

Libhdf5Paused::~Libhdf5Paused() {
    set_hdf5_input(previous_);
}

}  // namespace gradcodec::hdf5
