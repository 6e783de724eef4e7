#pragma once
// Names from files (paths, dataset names) as they may be printed.
#include <string>

namespace gradcodec::hdf5 {

// Control characters (escape sequences included) as \xNN, so a hostile name cannot drive
// the terminal it is printed on.
std::string printable(const std::string& text);

}  // namespace gradcodec::hdf5
