#include "env/unzip.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <set>
#include <string_view>
#include <thread>

#include "util/error.hpp"
#include "util/fd.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

constexpr std::uint32_t k_eocd_signature = 0x06054b50;
constexpr std::uint32_t k_zip64_locator_signature = 0x07064b50;
constexpr std::uint32_t k_zip64_eocd_signature = 0x06064b50;
constexpr std::uint32_t k_central_signature = 0x02014b50;
constexpr std::uint32_t k_local_signature = 0x04034b50;
constexpr std::size_t k_central_size = 46;  // a central record without its name, extra and comment
constexpr std::size_t k_local_size = 30;
constexpr std::size_t k_out_chunk = 1 << 18;
constexpr std::uint64_t k_in_chunk = 1 << 30;  // zlib's avail_in is 32 bits
constexpr std::uint64_t k_parallel_bytes = std::uint64_t{64} << 20;  // below this, threads cost more than they save

// A read-only memory map of a whole file, unmapped on destruction.
class MappedFile {
public:
  explicit MappedFile(const std::string& path) {
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) {
      throw Error(path + ": cannot read: " + std::strerror(errno), ExitCode::bad_input);
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
      throw Error(path + ": not a regular file", ExitCode::bad_input);
    }
    m_size = static_cast<std::size_t>(st.st_size);
    if (m_size > 0) {
      void* p = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
      if (p == MAP_FAILED) {
        throw Error(path + ": cannot map: " + std::strerror(errno), ExitCode::environment);
      }
      m_data = static_cast<const unsigned char*>(p);
    }
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

// Return true when [offset, offset + length) lies inside an image of `size` bytes (no overflow).
bool fits(std::uint64_t offset, std::uint64_t length, std::size_t size) {
  return offset <= size && length <= size - offset;
}

constexpr std::size_t k_max_part = 255;  // NAME_MAX on Linux filesystems: a longer part cannot be created

// Return why the archive path is not safe to write under the destination, "" when it is: it must be
// relative, without "..", "." or empty parts (a trailing '/' of a folder aside), backslash, NUL,
// line break (the store's manifest is one name a line), or a part longer than a file name can be.
std::string name_problem(std::string_view name) {
  if (name.empty()) {
    return "an empty name";
  }
  if (name.front() == '/') {
    return "an absolute path";
  }
  if (name.find('\\') != std::string_view::npos) {
    return "a backslash";
  }
  if (name.find('\0') != std::string_view::npos) {
    return "a NUL byte";
  }
  if (name.find_first_of("\n\r") != std::string_view::npos) {
    return "a line break";
  }
  if (name.back() == '/') {
    name.remove_suffix(1);
  }
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('/', start);
    if (end == std::string_view::npos) {
      end = name.size();
    }
    const std::string_view part = name.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") {
      return "'..', '.' or an empty part";
    }
    if (part.size() > k_max_part) {
      return "a part of " + std::to_string(part.size()) + " bytes, longer than a file name may be (" +
             std::to_string(k_max_part) + ")";
    }
    start = end + 1;
  }
  return "";
}

// Return the name as a message shows it: escaped as escape_control does (a line break as \x0a, so the
// message stays one line), cut after 120 bytes.
std::string printable(std::string_view name) {
  const std::string out = escape_control(name.substr(0, 120));
  return name.size() > 120 ? out + "... (" + std::to_string(name.size()) + " bytes)" : out;
}

// Refuse two members with one name and a name that is a file in one member and a folder in another.
void check_names(const std::vector<ZipMember>& members, const std::string& label) {
  std::set<std::string_view> files;
  std::set<std::string_view> folders;
  for (const ZipMember& m : members) {
    std::string_view name = m.name;
    const bool folder = name.back() == '/';
    if (folder) {
      name.remove_suffix(1);
    }
    if (!(folder ? folders : files).insert(name).second && !folder) {
      throw Error(label + ": holds the entry '" + m.name + "' twice", ExitCode::bad_input);
    }
    for (std::size_t slash = name.find('/'); slash != std::string_view::npos; slash = name.find('/', slash + 1)) {
      folders.insert(name.substr(0, slash));
    }
  }
  for (const std::string_view file : files) {
    if (folders.count(file) != 0) {
      throw Error(label + ": '" + std::string(file) + "' is both a file and a folder", ExitCode::bad_input);
    }
  }
}

// Return the refusal of an entry whose path under the destination is longer than the system allows
// (ENAMETOOLONG): the wheel's name, not the machine, is at fault.
Error too_long(const std::string& label, const std::string& name) {
  return Error(label + ": refusing entry '" + printable(name) + "' (the path it unpacks to is longer than the system allows)",
               ExitCode::bad_input);
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

ZipLimits zip_limits_from_env() {
  ZipLimits limits;
  const char* text = std::getenv("ENVBISECT_MAX_UNPACKED");
  if (text == nullptr || *text == '\0') {
    return limits;
  }
  const std::string value = text;
  std::size_t digits = 0;
  while (digits < value.size() && value[digits] >= '0' && value[digits] <= '9') {
    ++digits;
  }
  const std::string suffix = value.substr(digits);
  int shift = suffix.empty() ? 0 : suffix == "K" ? 10 : suffix == "M" ? 20 : suffix == "G" ? 30 : suffix == "T" ? 40 : -1;
  if (digits == 0 || digits > 15 || shift < 0) {
    throw Error("ENVBISECT_MAX_UNPACKED: expected a size in bytes (e.g. 68719476736, 64G, 512M), got '" + value + "'",
                ExitCode::bad_input);
  }
  limits.max_total_bytes = std::stoull(value.substr(0, digits)) << shift;
  return limits;
}

std::vector<ZipMember> read_zip_directory(const unsigned char* d, std::size_t n, const std::string& label,
                                          const ZipLimits& limits) {
  auto bad = [&](const std::string& why) { return Error(label + ": not a valid wheel (zip): " + why, ExitCode::bad_input); };
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
  std::uint64_t cd_size = le(d + eocd + 12, 4);
  std::uint64_t cd_offset = le(d + eocd + 16, 4);
  std::uint64_t cd_end_limit = eocd;  // the central directory ends before its end record
  if ((count == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF) && eocd >= 20 &&
      le(d + eocd - 20, 4) == k_zip64_locator_signature) {
    const std::uint64_t z64 = le(d + eocd - 20 + 8, 8);
    if (!fits(z64, 56, eocd - 20) || le(d + z64, 4) != k_zip64_eocd_signature) {
      throw bad("broken zip64 record");
    }
    count = le(d + z64 + 32, 8);
    cd_size = le(d + z64 + 40, 8);
    cd_offset = le(d + z64 + 48, 8);
    cd_end_limit = z64;
  }
  if (!fits(cd_offset, cd_size, cd_end_limit)) {
    throw bad("central directory outside the file");
  }
  // Each record takes at least 46 bytes: a count the directory cannot hold is refused before any
  // memory is reserved for it.
  if (count > cd_size / k_central_size || count > limits.max_entries) {
    throw bad("claims " + std::to_string(count) + " entries, more than its central directory can hold");
  }
  std::vector<ZipMember> members;
  members.reserve(count);
  const std::uint64_t cd_end = cd_offset + cd_size;
  std::uint64_t p = cd_offset;
  std::uint64_t total = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (!fits(p, k_central_size, cd_end) || le(d + p, 4) != k_central_signature) {
      throw bad("broken central directory");
    }
    ZipMember e;
    e.method = static_cast<std::uint16_t>(le(d + p + 10, 2));
    e.crc = static_cast<std::uint32_t>(le(d + p + 16, 4));
    e.compressed = le(d + p + 20, 4);
    e.uncompressed = le(d + p + 24, 4);
    const std::size_t name_len = le(d + p + 28, 2);
    const std::size_t extra_len = le(d + p + 30, 2);
    const std::size_t comment_len = le(d + p + 32, 2);
    const std::uint64_t attributes = le(d + p + 38, 4);
    std::uint64_t local_offset = le(d + p + 42, 4);
    e.executable = ((attributes >> 16) & 0111) != 0;
    if (!fits(p + k_central_size, name_len + extra_len + comment_len, cd_end)) {
      throw bad("broken central directory");
    }
    e.name.assign(reinterpret_cast<const char*>(d + p + k_central_size), name_len);
    // Zip64: the extra field 0x0001 holds, in order, the fields that overflowed.
    const unsigned char* x = d + p + k_central_size + name_len;
    for (std::size_t k = 0; k + 4 <= extra_len;) {
      const std::uint64_t id = le(x + k, 2);
      const std::size_t field = le(x + k + 2, 2);
      if (field > extra_len - k - 4) {
        throw bad("broken extra field of '" + e.name + "'");
      }
      if (id == 1) {
        std::size_t q = k + 4;
        const std::size_t field_end = q + field;
        for (std::uint64_t* value : {&e.uncompressed, &e.compressed, &local_offset}) {
          if (*value == 0xFFFFFFFF && q + 8 <= field_end) {
            *value = le(x + q, 8);
            q += 8;
          }
        }
      }
      k += 4 + field;
    }
    if (const std::string problem = name_problem(e.name); !problem.empty()) {
      throw Error(label + ": refusing entry '" + printable(e.name) + "' (" + problem + ")", ExitCode::bad_input);
    }
    if (e.name.back() != '/') {
      if (e.method != 0 && e.method != 8) {
        throw Error(label + ": entry '" + e.name + "' uses compression method " + std::to_string(e.method) +
                        " (only stored and deflated are supported)", ExitCode::bad_input);
      }
      if (e.method == 0 && e.compressed != e.uncompressed) {
        throw bad("stored entry '" + e.name + "' declares two sizes");
      }
      if (!fits(local_offset, k_local_size, n) || le(d + local_offset, 4) != k_local_signature) {
        throw Error(label + ": broken local header of '" + e.name + "'", ExitCode::bad_input);
      }
      const std::uint64_t start = local_offset + k_local_size + le(d + local_offset + 26, 2) + le(d + local_offset + 28, 2);
      if (!fits(start, e.compressed, n)) {
        throw Error(label + ": entry '" + e.name + "' runs past the end of the file", ExitCode::bad_input);
      }
      e.data_offset = start;
      if (e.uncompressed > limits.max_total_bytes - total) {
        throw Error(label + ": unpacks to more than " + std::to_string(limits.max_total_bytes) +
                        " bytes (the limit; set ENVBISECT_MAX_UNPACKED to raise it)", ExitCode::bad_input);
      }
      total += e.uncompressed;
    }
    members.push_back(std::move(e));
    p += k_central_size + name_len + extra_len + comment_len;
  }
  check_names(members, label);
  return members;
}

void unpack_member(const unsigned char* d, std::size_t n, const ZipMember& e, const std::string& label,
                   const std::function<void(const unsigned char*, std::size_t)>& sink) {
  if (!fits(e.data_offset, e.compressed, n)) {
    throw Error(label + ": entry '" + e.name + "' runs past the end of the file", ExitCode::bad_input);
  }
  const unsigned char* in = d + e.data_offset;
  uLong crc = ::crc32(0L, Z_NULL, 0);
  std::uint64_t produced = 0;
  if (e.method == 0) {
    for (std::uint64_t done = 0; done < e.compressed;) {
      const std::size_t piece = static_cast<std::size_t>(std::min<std::uint64_t>(e.compressed - done, k_out_chunk));
      sink(in + done, piece);
      crc = ::crc32_z(crc, in + done, piece);
      done += piece;
    }
    produced = e.compressed;
  } else if (e.method == 8) {
    z_stream zs{};
    if (::inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
      throw Error(label + ": cannot start inflating", ExitCode::environment);
    }
    // Small members (most of a wheel) need no 256 KiB buffer.
    std::vector<unsigned char> out(static_cast<std::size_t>(std::min<std::uint64_t>(k_out_chunk, e.uncompressed + 1)));
    std::uint64_t fed = 0;
    int rc = Z_OK;
    try {
      while (rc != Z_STREAM_END) {
        if (zs.avail_in == 0 && fed < e.compressed) {
          const std::uint64_t piece = std::min(e.compressed - fed, k_in_chunk);
          zs.next_in = const_cast<unsigned char*>(in + fed);
          zs.avail_in = static_cast<uInt>(piece);
          fed += piece;
        }
        // Never ask for more than the declared size (+1 to see a bomb): a member declaring 1 byte
        // that inflates to 1 GiB stops after 2 bytes.
        const std::uint64_t room = e.uncompressed - produced + 1;
        zs.next_out = out.data();
        zs.avail_out = static_cast<uInt>(std::min<std::uint64_t>(out.size(), room));
        rc = ::inflate(&zs, Z_NO_FLUSH);
        const std::size_t got = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), room)) - zs.avail_out;
        if (rc != Z_OK && rc != Z_STREAM_END) {
          throw Error(label + ": entry '" + e.name + "' is corrupt (inflate " + std::to_string(rc) + ")", ExitCode::bad_input);
        }
        if (got > e.uncompressed - produced) {
          throw Error(label + ": entry '" + e.name + "' inflates past its declared size of " +
                          std::to_string(e.uncompressed) + " bytes", ExitCode::bad_input);
        }
        if (got == 0 && rc == Z_OK && zs.avail_in == 0 && fed == e.compressed) {
          throw Error(label + ": entry '" + e.name + "' is truncated", ExitCode::bad_input);
        }
        sink(out.data(), got);
        crc = ::crc32_z(crc, out.data(), got);
        produced += got;
      }
    } catch (...) {
      ::inflateEnd(&zs);
      throw;
    }
    ::inflateEnd(&zs);
  } else {
    throw Error(label + ": entry '" + e.name + "' uses compression method " + std::to_string(e.method) +
                    " (only stored and deflated are supported)", ExitCode::bad_input);
  }
  if (produced != e.uncompressed) {
    throw Error(label + ": entry '" + e.name + "' holds " + std::to_string(produced) + " bytes, not the " +
                    std::to_string(e.uncompressed) + " it declares", ExitCode::bad_input);
  }
  if (static_cast<std::uint32_t>(crc) != e.crc) {
    throw Error(label + ": entry '" + e.name + "' fails its CRC check", ExitCode::bad_input);
  }
}

std::vector<std::string> extract_zip(const std::string& zip_path, const std::string& dest_dir, const ZipLimits& limits) {
  const MappedFile file(zip_path);
  const std::vector<ZipMember> members = read_zip_directory(file.data(), file.size(), zip_path, limits);
  // At this point every name is unique, safe and never both a file and a folder.
  // A path past PATH_MAX could be created only part way, and not removed again by path: refused first.
  for (const ZipMember& e : members) {
    if (dest_dir.size() + 1 + e.name.size() >= PATH_MAX) {
      throw too_long(zip_path, e.name);
    }
  }

  make_dirs(dest_dir);
  std::set<std::string> made_dirs;
  // Create every missing parent of `rel` (relative to dest_dir), remembering what exists.
  auto make_parents = [&](const std::string& rel) {
    for (std::size_t slash = rel.find('/'); slash != std::string::npos; slash = rel.find('/', slash + 1)) {
      std::string dir = rel.substr(0, slash);
      if (made_dirs.insert(dir).second) {
        std::string full = dest_dir + "/" + dir;
        if (::mkdir(full.c_str(), 0755) != 0 && errno != EEXIST) {
          throw errno == ENAMETOOLONG ? too_long(zip_path, rel)
                                      : Error(full + ": cannot create directory: " + std::strerror(errno), ExitCode::environment);
        }
      }
    }
  };

  // Folders first, on this thread: after this, every member's parent exists and writes are independent.
  std::vector<const ZipMember*> files;
  std::uint64_t total = 0;
  for (const ZipMember& e : members) {
    make_parents(e.name);
    if (e.name.back() != '/') {
      files.push_back(&e);
      total += e.uncompressed;
    }
  }
  // Large archives (torch's 1.5 GB of .so files) inflate on every core; a member is one task, taken
  // largest first so one huge member does not finish last alone.
  const std::size_t threads = total < k_parallel_bytes ? 1
                              : std::min<std::size_t>(files.size(), std::max(1U, std::thread::hardware_concurrency()));
  std::vector<const ZipMember*> order = files;
  if (threads > 1) {
    std::stable_sort(order.begin(), order.end(),
                     [](const ZipMember* a, const ZipMember* b) { return a->uncompressed > b->uncompressed; });
  }
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  auto work = [&] {
    for (std::size_t i = next++; i < order.size(); i = next++) {
      const ZipMember& e = *order[i];
      const std::string target = dest_dir + "/" + e.name;
      try {
        // A new file, never through a link: the folder is fresh and every name is unique.
        const UniqueFd fd(
            ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, e.executable ? 0755 : 0644));
        if (!fd.valid()) {
          throw errno == ENAMETOOLONG ? too_long(zip_path, e.name)
                                      : Error(target + ": cannot create: " + std::strerror(errno), ExitCode::environment);
        }
        unpack_member(file.data(), file.size(), e, zip_path,
                      [&](const unsigned char* data, std::size_t size) { write_all(fd.get(), data, size, target); });
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) {
          failure = std::current_exception();
        }
        next = order.size();  // stop taking members: the caller removes the whole folder
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) {
    pool.emplace_back(work);
  }
  work();
  for (std::thread& thread : pool) {
    thread.join();
  }
  if (failure) {
    std::rethrow_exception(failure);
  }
  std::vector<std::string> written;
  for (const ZipMember* e : files) {
    written.push_back(e->name);
  }
  return written;
}

std::string read_wheel_metadata(const std::string& zip_path, const ZipLimits& limits) {
  const MappedFile file(zip_path);
  const std::vector<ZipMember> members = read_zip_directory(file.data(), file.size(), zip_path, limits);
  // The dist-info folder as the store finds it: the one top-level name ending ".dist-info".
  std::set<std::string> dist_infos;
  const ZipMember* metadata = nullptr;
  for (const ZipMember& e : members) {
    const std::string top = e.name.substr(0, e.name.find('/'));
    if (top.size() > 10 && top.compare(top.size() - 10, 10, ".dist-info") == 0 && top.size() < e.name.size()) {
      dist_infos.insert(top);
      if (e.name == top + "/METADATA") {
        metadata = &e;
      }
    }
  }
  if (dist_infos.size() != 1) {
    throw Error(zip_path + (dist_infos.empty() ? ": no .dist-info folder" : ": holds two dist-info folders"),
                ExitCode::bad_input);
  }
  if (metadata == nullptr) {
    throw Error(zip_path + ": no " + *dist_infos.begin() + "/METADATA", ExitCode::bad_input);
  }
  std::string text;
  unpack_member(file.data(), file.size(), *metadata, zip_path,
                [&](const unsigned char* data, std::size_t size) { text.append(reinterpret_cast<const char*>(data), size); });
  return text;
}

}  // namespace envbisect
