#pragma once
// Counts the heap allocations made through operator new (plain and aligned), which is how the
// library's scratch cache allocates. Linking allocation_counter.cpp replaces the global
// operator new and delete of the whole program, so only a program of its own may link it (not
// one built with sanitizers, which replace them too).
#include <cstdint>

namespace gradcodec::testing {

// Allocations since the program started; take the difference around the code of interest.
std::uint64_t heap_allocations();

}  // namespace gradcodec::testing
