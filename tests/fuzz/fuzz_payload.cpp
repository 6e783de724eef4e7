// libFuzzer target over the codec decoders alone, without the container's checksums in the
// way: the input names the tensor and carries the payload (layout in payload_input.hpp).
#include <cstddef>
#include <cstdint>

#include "decode_record.hpp"
#include "payload_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = gcfuzz::parse_payload_input(std::span<const std::uint8_t>(data, size));
    if (input) gcfuzz::describe_and_decode(input->codec_id, input->meta, input->payload);
    return 0;
}
