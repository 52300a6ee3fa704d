#include "store/record_seal.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "util/error.hpp"
#include "util/fd.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"

namespace envbisect {

namespace {

constexpr std::size_t k_key_bytes = 32;

// Return the folder that holds run keys: outside every run folder, the user's own state.
std::string keys_dir() {
  const char* state = std::getenv("XDG_STATE_HOME");
  if (state != nullptr && state[0] == '/') {
    return std::string(state) + "/envbisect/run-keys";
  }
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && home[0] != '\0' ? home : "/") + "/.local/state/envbisect/run-keys";
}

std::string real_path(const std::string& path) {
  char buffer[PATH_MAX];
  if (::realpath(path.c_str(), buffer) == nullptr) {
    return absolute_path(path, ".");
  }
  return buffer;
}

// Read exactly the key from `path`; "" when it is missing, not ours, readable by others or short.
std::string read_key(const std::string& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) {
    return "";
  }
  struct stat info {};
  std::string key(k_key_bytes, '\0');
  const bool trusted = ::fstat(fd.get(), &info) == 0 && S_ISREG(info.st_mode) && info.st_uid == ::geteuid() &&
                       (info.st_mode & 077) == 0;
  const bool whole = trusted && ::read(fd.get(), key.data(), key.size()) == static_cast<ssize_t>(key.size());
  return whole ? key : "";
}

}  // namespace

RecordSeal::RecordSeal(const std::string& run_dir, CreateKey create)
    : m_run_id(real_path(run_dir)),
      m_key_path(keys_dir() + "/" + sha256_hex(m_run_id).substr(0, 32) + ".key") {
  m_key = read_key(m_key_path);
  if (!m_key.empty() || create == CreateKey::no) {
    return;
  }
  make_dirs(keys_dir());
  ::chmod(keys_dir().c_str(), 0700);
  std::string key(k_key_bytes, '\0');
  if (::getrandom(key.data(), key.size(), 0) != static_cast<ssize_t>(key.size())) {
    throw Error("cannot make a run key: getrandom: " + std::string(std::strerror(errno)), ExitCode::environment);
  }
  // A new file renamed into place, never written through a link; an unusable key file is replaced.
  try {
    write_file_atomic(m_key_path, key, 0600);
  } catch (const Error& error) {
    throw Error("cannot write the run's key: " + std::string(error.what()), ExitCode::environment);
  }
  m_key = key;
}

std::string RecordSeal::mac_of(const nlohmann::json& record) const {
  nlohmann::json unsealed = record;
  unsealed.erase("mac");
  // Object keys are sorted by nlohmann's dump: one text per record.
  return hmac_sha256_hex(m_key, m_run_id + "\n" + unsealed.dump(-1, ' ', true));
}

nlohmann::json RecordSeal::seal(nlohmann::json record) const {
  if (m_key.empty()) {
    throw Error(m_key_path + ": no run key to seal a record with", ExitCode::environment);
  }
  record["mac"] = mac_of(record);
  return record;
}

bool RecordSeal::verify(const nlohmann::json& record) const {
  if (m_key.empty() || !record.is_object()) {
    return false;
  }
  const auto mac = record.find("mac");
  if (mac == record.end() || !mac->is_string()) {
    return false;
  }
  const std::string expected = mac_of(record);
  const std::string& given = mac->get_ref<const std::string&>();
  // Constant-time compare: a mismatch position must not leak.
  if (given.size() != expected.size()) {
    return false;
  }
  unsigned char diff = 0;
  for (std::size_t i = 0; i < given.size(); ++i) {
    diff |= static_cast<unsigned char>(given[i] ^ expected[i]);
  }
  return diff == 0;
}

}  // namespace envbisect
