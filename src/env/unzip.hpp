#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace envbisect {

// Bounds on what one archive may unpack to; a wheel past them is refused, not unpacked.
struct ZipLimits {
  std::uint64_t max_total_bytes = std::uint64_t{64} << 30;  // sum of the declared sizes (64 GiB: several torch builds)
  std::uint64_t max_entries = 10'000'000;
};

// Return the limits for this process: the defaults, with max_total_bytes from
// ENVBISECT_MAX_UNPACKED ("68719476736", "64G", "512M") when set. Throw Error (bad_input) naming the
// variable when its value is not a size.
ZipLimits zip_limits_from_env();

// One member of an archive as its central directory describes it, checked against the file.
struct ZipMember {
  std::string name;                 // safe relative path; a trailing '/' marks a folder
  std::uint16_t method = 0;         // 0 stored, 8 deflated
  std::uint32_t crc = 0;
  std::uint64_t compressed = 0;
  std::uint64_t uncompressed = 0;   // the declared size; unpacking never produces more
  std::uint64_t data_offset = 0;    // where the member's bytes start (past its local header)
  bool executable = false;
};

// Return the members of the zip image `data` (`size` bytes), every offset and size checked against
// the image, names unique and safe (no absolute path, "..", "." or empty part, no backslash, NUL or
// line break, no part longer than 255 bytes, no name that is both a file and a folder), their
// declared sizes summing to at most `limits`. Throw Error (bad_input) naming `label` when the image
// is not such an archive.
std::vector<ZipMember> read_zip_directory(const unsigned char* data, std::size_t size, const std::string& label,
                                          const ZipLimits& limits);

// Pass the bytes of `member` of the image `data` to `sink` in chunks, inflating deflated members, and
// check their count and CRC against the central directory. Throw Error (bad_input) naming `label`
// when the member uses another method, is corrupt, or inflates past its declared size (then
// inflating stops there).
void unpack_member(const unsigned char* data, std::size_t size, const ZipMember& member, const std::string& label,
                   const std::function<void(const unsigned char*, std::size_t)>& sink);

// Extract every member of the zip archive at `zip_path` (stored or deflated, as wheels are) under
// `dest_dir` (created), keeping the executable bit, creating each file new (never through a link),
// on one thread per core when the archive holds more than 64 MiB; return the relative paths of the
// files written, in the archive's order. Throw Error (bad_input) naming the archive when
// read_zip_directory or unpack_member refuses it or a member's path is longer than the system allows
// under `dest_dir`; Error (environment) when writing fails otherwise.
std::vector<std::string> extract_zip(const std::string& zip_path, const std::string& dest_dir,
                                     const ZipLimits& limits = zip_limits_from_env());

// Return the bytes of the wheel's METADATA (the member "X.dist-info/METADATA" of its one top-level
// dist-info folder), found through the central directory and read alone: nothing is unpacked. Throw
// Error (bad_input) naming the wheel when read_zip_directory or unpack_member refuses it, or when it
// has no dist-info folder, two of them, or no METADATA in it.
std::string read_wheel_metadata(const std::string& zip_path, const ZipLimits& limits = zip_limits_from_env());

}  // namespace envbisect
