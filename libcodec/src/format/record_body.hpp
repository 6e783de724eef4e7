#pragma once
// Serialisation of record bodies. The tensor body is split into a head and its payload so
// the writer can stream a large payload without copying it.
#include <cstdint>
#include <span>
#include <vector>

#include "common/byte_io.hpp"
#include "gradcodec/stream.hpp"

namespace gradcodec {

std::vector<std::uint8_t> group_body(const GroupRecord& record);
std::vector<std::uint8_t> link_body(const LinkRecord& record);
// Up to the payload length, which is `payload_size` (record.payload is not read).
std::vector<std::uint8_t> tensor_head(const TensorRecord& record, std::uint64_t payload_size);
std::vector<std::uint8_t> typed_head(const TypedRecord& record);  // up to the data length

GroupRecord parse_group(ByteReader& r);
LinkRecord parse_link(ByteReader& r);
TensorRecord parse_tensor(std::vector<std::uint8_t>&& body, const std::string& what,
                          const ReadLimits& limits);
TypedRecord parse_typed(std::vector<std::uint8_t>&& body, const std::string& what,
                        const ReadLimits& limits);

// Best effort: the path at the start of a body, for naming a damaged record.
std::string peek_path(std::span<const std::uint8_t> body);

}  // namespace gradcodec
