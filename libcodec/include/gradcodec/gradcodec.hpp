#pragma once
// The whole public API in one include.
#include "gradcodec/codec.hpp"
#include "gradcodec/codec_spec.hpp"
#include "gradcodec/dtype.hpp"
#include "gradcodec/error.hpp"
#include "gradcodec/frame.hpp"
#include "gradcodec/group.hpp"
#include "gradcodec/metrics.hpp"
#include "gradcodec/pointwise.hpp"
#include "gradcodec/positions.hpp"
#include "gradcodec/stream.hpp"
#include "gradcodec/tensor.hpp"
#include "gradcodec/version.hpp"
