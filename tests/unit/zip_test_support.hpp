#pragma once

// A zip writer for the unzip tests and the fuzz corpus: every field under the test's control, so
// hostile archives (a bomb, zip64 offsets near 2^64, absurd counts) can be written byte by byte.

#include <zlib.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace envbisect::zip_test {

// One member as it will be written.
struct Member {
  Member(std::string name_, std::string data_, bool deflate_ = false,
         std::optional<std::uint32_t> declared_ = std::nullopt, std::uint32_t mode_ = 0100644)
      : name(std::move(name_)), data(std::move(data_)), deflate(deflate_), declared(declared_), mode(mode_) {}
  std::string name;
  std::string data;                         // the bytes it unpacks to
  bool deflate = false;
  std::optional<std::uint32_t> declared;    // the uncompressed size to declare (default: the truth)
  std::uint32_t mode = 0100644;
};

inline void put(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    out += static_cast<char>((value >> (8 * i)) & 0xFF);
  }
}

inline std::string raw_deflate(const std::string& data) {
  z_stream zs{};
  deflateInit2(&zs, 9, Z_DEFLATED, -MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, data.size()) + 16, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// Return the central directory records of `members` (local headers and data appended to `out`).
inline std::string write_members(std::string& out, const std::vector<Member>& members) {
  std::string central;
  for (const Member& m : members) {
    const std::string stored = m.deflate ? raw_deflate(m.data) : m.data;
    const std::uint32_t crc = static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(m.data.data()),
                                                               static_cast<uInt>(m.data.size())));
    const std::uint32_t size = m.declared.value_or(static_cast<std::uint32_t>(m.data.size()));
    const std::uint64_t offset = out.size();
    put(out, 0x04034b50, 4);
    put(out, 20, 2);
    put(out, 0, 2);
    put(out, m.deflate ? 8 : 0, 2);
    put(out, 0, 4);
    put(out, crc, 4);
    put(out, stored.size(), 4);
    put(out, size, 4);
    put(out, m.name.size(), 2);
    put(out, 0, 2);
    out += m.name + stored;
    put(central, 0x02014b50, 4);
    put(central, 0x031e, 2);
    put(central, 20, 2);
    put(central, 0, 2);
    put(central, m.deflate ? 8 : 0, 2);
    put(central, 0, 4);
    put(central, crc, 4);
    put(central, stored.size(), 4);
    put(central, size, 4);
    put(central, m.name.size(), 2);
    put(central, 0, 2);
    put(central, 0, 2);
    put(central, 0, 2);
    put(central, 0, 2);
    put(central, static_cast<std::uint64_t>(m.mode) << 16, 4);
    put(central, offset, 4);
    central += m.name;
  }
  return central;
}

// Return an end-of-central-directory record.
inline std::string eocd(std::uint64_t count, std::uint64_t cd_size, std::uint64_t cd_offset) {
  std::string out;
  put(out, 0x06054b50, 4);
  put(out, 0, 4);
  put(out, count, 2);
  put(out, count, 2);
  put(out, cd_size, 4);
  put(out, cd_offset, 4);
  put(out, 0, 2);
  return out;
}

// Return a well-formed archive of `members`.
inline std::string make_zip(const std::vector<Member>& members) {
  std::string out;
  const std::string central = write_members(out, members);
  const std::uint64_t cd_offset = out.size();
  out += central;
  out += eocd(members.size(), central.size(), cd_offset);
  return out;
}

// Return an archive of `members` whose zip64 end record claims `count` entries, a central directory
// of `cd_size` bytes at `cd_offset`, or whose locator points at `z64_offset` when given.
inline std::string make_zip64(const std::vector<Member>& members, std::optional<std::uint64_t> count,
                              std::optional<std::uint64_t> cd_offset, std::optional<std::uint64_t> z64_offset,
                              std::optional<std::uint64_t> cd_size = std::nullopt) {
  std::string out;
  const std::string central = write_members(out, members);
  const std::uint64_t real_cd = out.size();
  out += central;
  const std::uint64_t z64 = out.size();
  put(out, 0x06064b50, 4);
  put(out, 44, 8);
  put(out, 45, 2);
  put(out, 45, 2);
  put(out, 0, 4);
  put(out, 0, 4);
  put(out, count.value_or(members.size()), 8);
  put(out, count.value_or(members.size()), 8);
  put(out, cd_size.value_or(central.size()), 8);
  put(out, cd_offset.value_or(real_cd), 8);
  put(out, 0x07064b50, 4);
  put(out, 0, 4);
  put(out, z64_offset.value_or(z64), 8);
  put(out, 1, 4);
  out += eocd(0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF);
  return out;
}

}  // namespace envbisect::zip_test
