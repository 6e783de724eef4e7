#pragma once
// Constants of the container layout (format-spec/FORMAT.md, "Stream" and "Records").
#include <array>
#include <cstdint>

namespace gradcodec {

inline constexpr std::array<std::uint8_t, 8> kMagic{0x89, 'G', 'R', 'D', 'C', 0x0D, 0x0A, 0x1A};
inline constexpr std::size_t kHeaderFixedSize = 24;  // magic .. extension length
inline constexpr std::size_t kRecordFrameSize = 12;  // kind, flags, reserved, body length
inline constexpr std::size_t kChecksumSize = 8;
inline constexpr std::uint32_t kMaxHeaderExtension = 1 << 16;
inline constexpr std::uint32_t kMaxPathLength = 1 << 16;
inline constexpr std::uint32_t kMaxSpecLength = 1 << 12;
inline constexpr std::uint8_t kMaxRank = 32;
inline constexpr std::uint16_t kMaxAttributes = 4096;
inline constexpr std::uint32_t kMaxTypeDescription = 1 << 16;

enum RecordKind : std::uint8_t {
    kRecordGroup = 1,
    kRecordTensor = 2,
    kRecordLink = 3,
    kRecordTyped = 4,  // format 1.1; never marked skippable, so 1.0 readers refuse it
    kRecordEnd = 0xFF,
};

inline constexpr std::uint8_t kRecordFlagSkippable = 0x01;  // a reader may skip an unknown kind
inline constexpr std::uint32_t kKnownRequiredFlags = 0;     // format 1.0 defines none

}  // namespace gradcodec
