#pragma once
// The GPU path (built with GRADCODEC_CUDA): encode and decode tensors that live in device
// memory. Tensors in host memory reach the GPU through the execution policy instead
// (EncodeOptions::execution = Execution::cuda, in codec.hpp). Payloads are the same format the CPU
// codecs write, so either side decodes the other's streams; coefficients may differ in the last
// bits (cuFFT vs FFTW rounding).
//
// What runs where, for the fft codec (id 5) with select=topk on f32 tensors:
//   device: the batched real FFT (cuFFT), bin scores, the exact weighted top-k (radix
//           select over the bit patterns of the scores), the compaction of the kept bin
//           indices (prefix sums), the gather of their values; on decode the scatter into
//           a zeroed spectrum and the inverse FFT.
//   host:   the payload header, the position section (encode_positions picks and writes
//           the smallest coder, Golomb-Rice and Elias-Fano included) and the value section
//           (the rangeq ladder choice and bit packing), from the k indices and values the
//           device hands back; on decode, parsing those two sections.
// For the sparse codec (id 4) with topk or threshold on f32 tensors, the finite screen, the
// selection, the compaction and the gather run on the device, the payload assembly (position
// and value sections, zstd) on the host; sparse payloads decode on the CPU only so far.
#include <cstdint>
#include <span>
#include <string>

#include "gradcodec/codec.hpp"

#pragma GCC visibility push(default)
namespace gradcodec::cuda {

// Empty when a CUDA device is usable, else why not (no driver, no device, ...). Never throws.
std::string device_problem();

// Whether encode_tensor_on_device handles this spec and tensor (f32 with fft select=topk,
// topk or threshold), and decode_tensor_on_device this codec (fft on f32).
bool device_supports(const CodecSpec& spec, const TensorMeta& meta);
bool device_supports_decode(std::uint16_t codec_id, const TensorMeta& meta);

// `device_data` points to meta.byte_count() bytes in device memory. Throws Error(usage) when
// no device is usable or the spec is not one device_supports accepts.
EncodedTensor encode_tensor_on_device(const CodecSpec& spec, const TensorMeta& meta,
                                      const void* device_data, const EncodeOptions& options = {});

// `device_out` points to meta.byte_count() bytes of device memory. Hostile payloads are
// checked on the host exactly as the CPU decoder checks them, before any device work.
void decode_tensor_on_device(std::uint16_t codec_id, const TensorMeta& meta,
                             std::span<const std::uint8_t> payload, void* device_out);

}  // namespace gradcodec::cuda
#pragma GCC visibility pop
