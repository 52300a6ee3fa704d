#include "env/unzip.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <set>
#include <string_view>

#include "util/error.hpp"
#include "util/fs.hpp"

namespace envbisect {

namespace {

constexpr std::uint32_t k_eocd_signature = 0x06054b50;
constexpr std::uint32_t k_zip64_locator_signature = 0x07064b50;
constexpr std::uint32_t k_zip64_eocd_signature = 0x06064b50;
constexpr std::uint32_t k_central_signature = 0x02014b50;
constexpr std::uint32_t k_local_signature = 0x04034b50;
constexpr std::size_t k_out_chunk = 1 << 18;

// A read-only memory map of a whole file, unmapped on destruction.
class MappedFile {
public:
  explicit MappedFile(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      throw Error(path + ": cannot read: " + std::strerror(errno), ExitCode::bad_input);
    }
    struct stat st {};
    ::fstat(fd, &st);
    m_size = static_cast<std::size_t>(st.st_size);
    if (m_size > 0) {
      void* p = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        ::close(fd);
        throw Error(path + ": cannot map: " + std::strerror(errno), ExitCode::environment);
      }
      m_data = static_cast<const unsigned char*>(p);
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (m_data != nullptr) {
      ::munmap(const_cast<unsigned char*>(m_data), m_size);
    }
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const unsigned char* data() const { return m_data; }
  std::size_t size() const { return m_size; }

private:
  const unsigned char* m_data = nullptr;
  std::size_t m_size = 0;
};

std::uint64_t le(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) {
    v = (v << 8) | p[i];
  }
  return v;
}

// One file of the archive as the central directory describes it.
struct Entry {
  std::string name;
  std::uint16_t method = 0;
  std::uint32_t crc = 0;
  std::uint64_t compressed = 0;
  std::uint64_t uncompressed = 0;
  std::uint64_t local_offset = 0;
  bool executable = false;
};

// Return true when the archive path is safe to write under the destination.
bool safe_name(std::string_view name) {
  if (name.empty() || name.front() == '/' || name.find('\\') != std::string_view::npos) {
    return false;
  }
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('/', start);
    if (end == std::string_view::npos) {
      end = name.size();
    }
    if (name.substr(start, end - start) == "..") {
      return false;
    }
    start = end + 1;
  }
  return true;
}

std::vector<Entry> read_central_directory(const MappedFile& file, const std::string& zip_path) {
  const unsigned char* d = file.data();
  const std::size_t n = file.size();
  auto bad = [&](const std::string& why) { return Error(zip_path + ": not a valid wheel (zip): " + why, ExitCode::bad_input); };
  if (n < 22) {
    throw bad("too short");
  }
  // The end-of-central-directory record sits in the last 64 KiB + 22 bytes (after an optional comment).
  std::size_t eocd = std::string::npos;
  const std::size_t lowest = n > 65557 ? n - 65557 : 0;
  for (std::size_t i = n - 22 + 1; i-- > lowest;) {
    if (le(d + i, 4) == k_eocd_signature) {
      eocd = i;
      break;
    }
  }
  if (eocd == std::string::npos) {
    throw bad("no end of central directory");
  }
  std::uint64_t count = le(d + eocd + 10, 2);
  std::uint64_t cd_offset = le(d + eocd + 16, 4);
  if ((count == 0xFFFF || cd_offset == 0xFFFFFFFF) && eocd >= 20 && le(d + eocd - 20, 4) == k_zip64_locator_signature) {
    const std::uint64_t z64 = le(d + eocd - 20 + 8, 8);
    if (z64 + 56 > n || le(d + z64, 4) != k_zip64_eocd_signature) {
      throw bad("broken zip64 record");
    }
    count = le(d + z64 + 32, 8);
    cd_offset = le(d + z64 + 48, 8);
  }
  std::vector<Entry> entries;
  entries.reserve(count);
  std::size_t p = cd_offset;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (p + 46 > n || le(d + p, 4) != k_central_signature) {
      throw bad("broken central directory");
    }
    Entry e;
    e.method = static_cast<std::uint16_t>(le(d + p + 10, 2));
    e.crc = static_cast<std::uint32_t>(le(d + p + 16, 4));
    e.compressed = le(d + p + 20, 4);
    e.uncompressed = le(d + p + 24, 4);
    const std::size_t name_len = le(d + p + 28, 2);
    const std::size_t extra_len = le(d + p + 30, 2);
    const std::size_t comment_len = le(d + p + 32, 2);
    const std::uint64_t attributes = le(d + p + 38, 4);
    e.local_offset = le(d + p + 42, 4);
    e.executable = ((attributes >> 16) & 0111) != 0;
    if (p + 46 + name_len + extra_len > n) {
      throw bad("broken central directory");
    }
    e.name.assign(reinterpret_cast<const char*>(d + p + 46), name_len);
    // Zip64: the extra field 0x0001 holds, in order, the fields that overflowed.
    const unsigned char* x = d + p + 46 + name_len;
    for (std::size_t k = 0; k + 4 <= extra_len;) {
      const std::uint64_t id = le(x + k, 2);
      const std::size_t size = le(x + k + 2, 2);
      if (id == 1) {
        std::size_t q = k + 4;
        if (e.uncompressed == 0xFFFFFFFF && q + 8 <= k + 4 + size) {
          e.uncompressed = le(x + q, 8);
          q += 8;
        }
        if (e.compressed == 0xFFFFFFFF && q + 8 <= k + 4 + size) {
          e.compressed = le(x + q, 8);
          q += 8;
        }
        if (e.local_offset == 0xFFFFFFFF && q + 8 <= k + 4 + size) {
          e.local_offset = le(x + q, 8);
        }
      }
      k += 4 + size;
    }
    if (!safe_name(e.name)) {
      throw Error(zip_path + ": refusing entry '" + e.name + "' (absolute path or '..')", ExitCode::bad_input);
    }
    entries.push_back(std::move(e));
    p += 46 + name_len + extra_len + comment_len;
  }
  return entries;
}

void write_all(int fd, const unsigned char* data, std::size_t size, const std::string& path) {
  while (size > 0) {
    ssize_t w = ::write(fd, data, size);
    if (w < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw Error(path + ": write failed: " + std::strerror(errno), ExitCode::environment);
    }
    data += w;
    size -= static_cast<std::size_t>(w);
  }
}

}  // namespace

std::vector<std::string> extract_zip(const std::string& zip_path, const std::string& dest_dir) {
  const MappedFile file(zip_path);
  const std::vector<Entry> entries = read_central_directory(file, zip_path);
  const unsigned char* d = file.data();
  const std::size_t n = file.size();

  make_dirs(dest_dir);
  std::set<std::string> made_dirs;
  // Create every missing parent of `rel` (relative to dest_dir), remembering what exists.
  auto make_parents = [&](const std::string& rel) {
    for (std::size_t slash = rel.find('/'); slash != std::string::npos; slash = rel.find('/', slash + 1)) {
      std::string dir = rel.substr(0, slash);
      if (made_dirs.insert(dir).second) {
        std::string full = dest_dir + "/" + dir;
        if (::mkdir(full.c_str(), 0755) != 0 && errno != EEXIST) {
          throw Error(full + ": cannot create directory: " + std::strerror(errno), ExitCode::environment);
        }
      }
    }
  };

  std::vector<std::string> written;
  std::vector<unsigned char> out(k_out_chunk);
  for (const Entry& e : entries) {
    if (e.name.back() == '/') {
      make_parents(e.name);
      continue;
    }
    if (e.method != 0 && e.method != 8) {
      throw Error(zip_path + ": entry '" + e.name + "' uses compression method " + std::to_string(e.method) +
                      " (only stored and deflated are supported)", ExitCode::bad_input);
    }
    if (e.local_offset + 30 > n || le(d + e.local_offset, 4) != k_local_signature) {
      throw Error(zip_path + ": broken local header of '" + e.name + "'", ExitCode::bad_input);
    }
    const std::uint64_t start = e.local_offset + 30 + le(d + e.local_offset + 26, 2) + le(d + e.local_offset + 28, 2);
    if (start + e.compressed > n) {
      throw Error(zip_path + ": entry '" + e.name + "' runs past the end of the file", ExitCode::bad_input);
    }
    make_parents(e.name);
    const std::string target = dest_dir + "/" + e.name;
    int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, e.executable ? 0755 : 0644);
    if (fd < 0) {
      throw Error(target + ": cannot create: " + std::strerror(errno), ExitCode::environment);
    }
    uLong crc = ::crc32(0L, Z_NULL, 0);
    try {
      if (e.method == 0) {
        write_all(fd, d + start, e.compressed, target);
        crc = ::crc32_z(crc, d + start, e.compressed);
      } else {
        z_stream zs{};
        if (::inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
          throw Error(zip_path + ": cannot start inflating", ExitCode::environment);
        }
        zs.next_in = const_cast<unsigned char*>(d + start);
        zs.avail_in = static_cast<uInt>(e.compressed);  // wheels' members are far below 4 GiB compressed
        int rc = Z_OK;
        while (rc != Z_STREAM_END) {
          zs.next_out = out.data();
          zs.avail_out = static_cast<uInt>(out.size());
          rc = ::inflate(&zs, Z_NO_FLUSH);
          if (rc != Z_OK && rc != Z_STREAM_END) {
            ::inflateEnd(&zs);
            throw Error(zip_path + ": entry '" + e.name + "' is corrupt (inflate " + std::to_string(rc) + ")",
                        ExitCode::bad_input);
          }
          const std::size_t produced = out.size() - zs.avail_out;
          write_all(fd, out.data(), produced, target);
          crc = ::crc32_z(crc, out.data(), produced);
        }
        ::inflateEnd(&zs);
      }
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
    if (static_cast<std::uint32_t>(crc) != e.crc) {
      throw Error(zip_path + ": entry '" + e.name + "' fails its CRC check", ExitCode::bad_input);
    }
    written.push_back(e.name);
  }
  return written;
}

}  // namespace envbisect
