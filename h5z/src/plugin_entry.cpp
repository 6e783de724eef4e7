// The two symbols HDF5 looks up when it loads libH5Zgradcodec.so from HDF5_PLUGIN_PATH.
#include <H5PLextern.h>

#include "filter_class.hpp"

extern "C" H5PL_type_t H5PLget_plugin_type(void) {
    return H5PL_TYPE_FILTER;
}

extern "C" const void* H5PLget_plugin_info(void) {
    return gradcodec::h5z::filter_class();
}
