#include "env/store.hpp"
#include "env/store_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "env/file_identity.hpp"
#include "env/requirement.hpp"
#include "env/unzip.hpp"
#include "env/record_check.hpp"
#include "env/wheel_record.hpp"
#include "util/error.hpp"
#include "util/fd.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

namespace fs = std::filesystem;

constexpr const char* k_layout = "/v1";

bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Mark `path` as used now (its mtime is the last use that gc looks at).
void touch(const std::string& path) {
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
}

// Move every child of `from` into `to` (created), merging folders that exist on both sides.
void merge_into(const std::string& from, const std::string& to) {
  make_dirs(to);
  for (const std::string& name : list_dir(from)) {
    const std::string source = from + "/" + name;
    const std::string target = to + "/" + name;
    if (is_dir(source) && is_dir(target)) {
      merge_into(source, target);
    } else if (path_exists(target) && is_dir(source) != is_dir(target)) {
      throw Error("the wheel's .data holds '" + name + "' as a " + (is_dir(source) ? "folder" : "file") +
                      " where the wheel also has a " + (is_dir(target) ? "folder" : "file"), ExitCode::bad_input);
    } else if (::rename(source.c_str(), target.c_str()) != 0) {
      throw Error("cannot move " + source + " to " + target + ": " + std::strerror(errno), ExitCode::environment);
    }
  }
  ::rmdir(from.c_str());
}

// Append one manifest line per directory and file below `dir` (pre-order): "<area><d|f|l> <path>".
void write_manifest_lines(const std::string& dir, const std::string& rel, char area, std::string& out) {
  std::vector<std::string> names = list_dir(dir);
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    const std::string child = rel.empty() ? name : rel + "/" + name;
    if (name.find('\n') != std::string::npos) {
      throw Error(path + ": file names with newlines are not supported", ExitCode::bad_input);
    }
    struct stat st {};
    ::lstat(path.c_str(), &st);
    if (S_ISDIR(st.st_mode)) {
      out += std::string(1, area) + "d " + child + "\n";
      write_manifest_lines(path, child, area, out);
    } else {
      out += std::string(1, area) + (S_ISLNK(st.st_mode) ? "l " : "f ") + child + "\n";
    }
  }
}

// Write `content` to the new file `path` inside an entry's private temp folder: no temp name, no
// fsync (the folder appears by one rename; its identity record is flushed once for the entry).
void write_entry_file(const std::string& path, const std::string& content) {
  const UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    throw Error(path + ": cannot write: " + std::strerror(errno), ExitCode::environment);
  }
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      throw Error(path + ": write failed: " + std::strerror(errno), ExitCode::environment);
    }
    done += static_cast<std::size_t>(n);
  }
}

// Flush `path`'s data (one fdatasync), or throw Error (environment).
void flush_file(const std::string& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid() || ::fdatasync(fd.get()) != 0) {
    throw Error(path + ": cannot flush: " + std::strerror(errno), ExitCode::environment);
  }
}

// Turn an unpacked wheel in `temp`/site into a store entry: resolve its .data folder, check its
// dist-info against what the source said, run `before_seal`, write the manifest and entry.json.
std::string finish_unpack(const std::string& temp, const Distribution& dist, const std::string& id,
                          const BeforeSeal& before_seal) {
  const std::string site = temp + "/site";
  std::string dist_info;
  std::string data_dir;
  for (const std::string& name : list_dir(site)) {
    if (name.ends_with(".dist-info")) {
      if (!dist_info.empty()) {
        throw Error(describe(dist) + ": holds two dist-info folders (" + dist_info + ", " + name + ")", ExitCode::bad_input);
      }
      dist_info = name;
    } else if (name.ends_with(".data") && is_dir(site + "/" + name)) {
      data_dir = name;
    }
  }
  if (dist_info.empty()) {
    throw Error(describe(dist) + ": no .dist-info folder", ExitCode::bad_input);
  }
  // PEP 427: "NAME-VERSION.dist-info". importlib.metadata finds a distribution by this folder's name,
  // so another name would hide it from version("p") in the candidate; pip refuses such a wheel too,
  // and accepts, as here, a folder whose normalised name starts with the distribution's and a '-'.
  if (normalize_package_name(dist_info.substr(0, dist_info.size() - 10)).rfind(dist.name + "-", 0) != 0) {
    throw Error(describe(dist) + ": its dist-info folder " + dist_info + " is not named for " + dist.name,
                ExitCode::bad_input);
  }
  // PEP 427: an installer must refuse a wheel whose Wheel-Version has a major version it does not
  // know (pip and uv know 1), and pip and uv refuse one without a WHEEL file or without the field.
  std::string wheel_text;
  try {
    wheel_text = read_file(site + "/" + dist_info + "/WHEEL");
  } catch (const Error&) {
    throw Error(describe(dist) + ": no readable " + dist_info + "/WHEEL (pip and uv refuse such a wheel)",
                ExitCode::bad_input);
  }
  if (const std::string problem = wheel_version_problem(wheel_text); !problem.empty()) {
    throw Error(describe(dist) + ": " + dist_info + "/WHEEL " + problem, ExitCode::bad_input);
  }
  std::string metadata_text;
  try {
    metadata_text = read_file(site + "/" + dist_info + "/METADATA");
  } catch (const Error&) {
    throw Error(describe(dist) + ": no readable " + dist_info + "/METADATA", ExitCode::bad_input);
  }
  const DistMetadata meta = parse_metadata(metadata_text);
  const auto wanted = Version::parse(dist.version);
  const auto found = Version::parse(meta.version);
  if (meta.name != dist.name || !wanted || !found || wanted->to_string() != found->to_string()) {
    throw Error(describe(dist) + ": its METADATA says " + meta.name + " " + meta.version + ", not " + dist.name + " " +
                    dist.version, ExitCode::bad_input);
  }
  // The .data folder's parts go where an installer puts them: purelib/platlib into site-packages,
  // scripts into bin/, data under the environment's prefix.
  if (!data_dir.empty()) {
    const std::string data = site + "/" + data_dir;
    for (const std::string& part : list_dir(data)) {
      const std::string from = data + "/" + part;
      if (part == "purelib" || part == "platlib") {
        merge_into(from, site);
      } else if (part == "scripts") {
        merge_into(from, temp + "/scripts");
      } else if (part == "data") {
        merge_into(from, temp + "/data");
      } else if (part == "headers") {
        merge_into(from, temp + "/data/include/site/" + dist.name);
      }
    }
    remove_tree(data);
  }
  if (before_seal) {
    before_seal(site);
  }
  std::string manifest;
  write_manifest_lines(site, "", 's', manifest);
  if (is_dir(temp + "/scripts")) {
    write_manifest_lines(temp + "/scripts", "", 'x', manifest);
  }
  if (is_dir(temp + "/data")) {
    write_manifest_lines(temp + "/data", "", 'p', manifest);
  }
  write_entry_file(temp + "/manifest", manifest);
  const nlohmann::json entry = {{"id", id}, {"name", dist.name}, {"version", dist.version}, {"dist_info", dist_info},
                                {"source", dist.path}, {"kind", dist.kind == SourceKind::wheel ? "wheel" : "uv_archive"}};
  write_entry_file(temp + "/entry.json", entry.dump(1) + "\n");
  return dist_info;
}

// Top-level names of an entry that are not its content: touched at each use, or written after.
const std::set<std::string> k_entry_skip = {"entry.json", "identity", "hashes"};

// Top-level names of an environment that are not its content.
const std::set<std::string> k_env_skip = {"envbisect-built.json", "envbisect-identity"};

// Throw Error (bad input) naming `what` when a symbolic link below `root` points outside it (an
// absolute target, or one whose ".." climbs out): linked into a candidate's environment, a benchmark
// writing through it would write outside the environment and the store. uv unpacks wheels as plain
// files, and a wheel's own link entries become files (unzip), so such a link in a uv archive was put
// there by something else. Every file and link of the archive is appended to `files`, relative to
// `root`: its members, for the RECORD check.
void refuse_links_leaving(const std::string& root, const std::string& rel, const std::string& what,
                          std::vector<std::string>& files) {
  const std::string dir = rel.empty() ? root : root + "/" + rel;
  for (const std::string& name : list_dir(dir)) {
    const std::string child = rel.empty() ? name : rel + "/" + name;
    struct stat st {};
    if (::lstat((root + "/" + child).c_str(), &st) != 0) {
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      refuse_links_leaving(root, child, what, files);
      continue;
    }
    files.push_back(child);
    if (!S_ISLNK(st.st_mode)) {
      continue;
    }
    std::error_code error;
    const std::string target = fs::read_symlink(root + "/" + child, error).string();
    // Where the link leads, lexically, from its own folder: it must stay below the root.
    const fs::path resolved = fs::path(rel) / target;
    const std::string normal = resolved.lexically_normal().string();
    if (error || target.empty() || target.front() == '/' || normal == ".." || normal.rfind("../", 0) == 0) {
      throw Error(what + ": holds a link that leaves it, " + child + " -> " + target +
                      " (a benchmark writing through it would write outside its environment)",
                  ExitCode::bad_input);
    }
  }
}

// Make every regular file below `dir` read-only for everyone (what runs in a candidate is not root,
// so an append to a module fails instead of changing the store), and append "<sha256> <path>" lines
// for each to `hashes`.
void seal_files(const std::string& dir, const std::string& rel, std::string& hashes, bool chmod_files) {
  std::vector<std::string> names = list_dir(dir);
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    const std::string child = rel.empty() ? name : rel + "/" + name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      seal_files(path, child, hashes, chmod_files);
    } else if (S_ISREG(st.st_mode)) {
      if (chmod_files && (st.st_mode & 0222) != 0) {
        ::chmod(path.c_str(), st.st_mode & 07555);
      }
      hashes += wheel_sha256(path) + " " + child + "\n";
    }
  }
}

// Return the files of the entry at `dir` changed since its unpack (stat check); {"identity"} when the
// entry has no identity (made by an older envbisect).
std::vector<std::string> entry_changes(const std::string& dir) {
  const std::string recorded = read_file_or_empty(dir + "/identity");
  if (recorded.empty()) {
    return {"identity"};
  }
  return identity_changes(recorded, file_identity(dir, k_entry_skip, Pycache::include));
}

}  // namespace

// An environment's identity includes its bytecode (the store's .pyc files are hard links like the
// sources); an identity without this first line was recorded without it, by an older envbisect.
constexpr const char* k_env_identity_header = "#envbisect-identity 2 (bytecode included)\n";

std::string environment_identity(const std::string& env_dir) {
  return k_env_identity_header + file_identity(env_dir, k_env_skip, Pycache::include);
}

void record_environment_identity(const std::string& env_dir) {
  write_file_atomic(env_dir + "/envbisect-identity", environment_identity(env_dir));
}

std::vector<std::string> environment_changes(const std::string& env_dir) {
  const std::string recorded = read_file_or_empty(env_dir + "/envbisect-identity");
  if (recorded.rfind(k_env_identity_header, 0) != 0) {
    return {"envbisect-identity"};  // none, or one that could not see a changed .pyc: rebuild it
  }
  return identity_changes(recorded, environment_identity(env_dir), 20, NewBytecode::allowed);
}

bool path_is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

FileLock::FileLock(const std::string& path, LockMode mode, LockWait wait) {
  m_fd.reset(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!m_fd.valid()) {
    throw Error(path + ": cannot open lock: " + std::strerror(errno), ExitCode::environment);
  }
  const int operation = (mode == LockMode::shared ? LOCK_SH : LOCK_EX) | (wait == LockWait::no ? LOCK_NB : 0);
  while (::flock(m_fd.get(), operation) != 0) {
    if (errno != EINTR) {
      return;  // LOCK_NB and taken: not held
    }
  }
  m_held = true;
}

std::string default_store_dir() {
  if (const char* v = std::getenv("XDG_CACHE_HOME"); v != nullptr && *v != '\0') {
    return std::string(v) + "/envbisect/store";
  }
  if (const char* v = std::getenv("HOME"); v != nullptr && *v != '\0') {
    return std::string(v) + "/.cache/envbisect/store";
  }
  throw Error("cannot place the store: neither XDG_CACHE_HOME nor HOME is set (give --store DIR)", ExitCode::bad_input);
}

Store::Store(std::string root) : m_root(absolute_path(root, ".")) {
  for (const char* sub : {"/dists", "/tmp", "/locks", "/index", "/skeletons"}) {
    make_dirs(m_root + k_layout + sub);
  }
}

std::string Store::index_dir() const {
  return m_root + k_layout + "/index";
}

std::string Store::gc_lock_path() const {
  return m_root + k_layout + "/gc.lock";
}

std::string Store::temp_dir_for(const std::string& id) const {
  // "@" never occurs in ids, so gc can tell which entry a temp folder belonged to.
  static std::atomic<unsigned> counter{0};
  return m_root + k_layout + "/tmp/" + id + "@" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

std::string Store::content_hash(const Distribution& dist) const {
  if (dist.kind == SourceKind::wheel) {
    return wheel_sha256(dist.path, index_dir());
  }
  std::string record;
  try {
    record = read_file(dist.path + "/" + dist.dist_info + "/RECORD");
  } catch (const Error&) {
    throw Error(describe(dist) + ": no readable RECORD", ExitCode::bad_input);
  }
  return sha256_hex("uv-archive\n" + dist.dist_info + "\n" + record);
}

StoreEntry Store::ensure(const Distribution& dist, const BeforeSeal& before_seal) {
  const std::string base = m_root + k_layout;
  const std::string content = content_hash(dist);
  StoreEntry entry;
  entry.name = dist.name;
  entry.version = dist.version;
  entry.id = dist.name + "-" + dist.version + "-" + content.substr(0, 24);
  entry.dir = base + "/dists/" + entry.id;

  // A visible entry is complete: it appeared by one rename. One whose files changed since (a
  // benchmark as root, a chmod and a write, a flipped byte with its mtime) is moved aside and redone.
  if (is_dir(entry.dir)) {
    entry.repaired = entry_changes(entry.dir);
  }
  if (!is_dir(entry.dir) || !entry.repaired.empty()) {
    const FileLock store_lock(gc_lock_path(), LockMode::shared, LockWait::yes);
    const FileLock entry_lock(base + "/locks/" + entry.id + ".lock", LockMode::exclusive, LockWait::yes);
    if (is_dir(entry.dir) && !entry_changes(entry.dir).empty()) {
      // Environments already linked to it keep their files; only the store forgets it.
      const std::string aside = temp_dir_for(entry.id);
      if (::rename(entry.dir.c_str(), aside.c_str()) != 0) {
        throw Error("cannot move the changed entry " + entry.dir + " aside: " + std::strerror(errno), ExitCode::environment);
      }
      remove_tree(aside);
    }
    if (!is_dir(entry.dir)) {
      // Whatever an earlier unpack of this entry left is stale: its owner held this lock.
      for (const std::string& name : list_dir(base + "/tmp")) {
        if (name.rfind(entry.id + "@", 0) == 0) {
          remove_tree(base + "/tmp/" + name);
        }
      }
      const std::string temp = temp_dir_for(entry.id);
      try {
        make_dirs(temp);
        std::vector<std::string> members;
        if (dist.kind == SourceKind::wheel) {
          members = extract_zip(dist.path, temp + "/site");
        } else {
          refuse_links_leaving(dist.path, "", describe(dist), members);
          copy_tree(dist.path, temp + "/site", LinkFiles::yes);
        }
        const std::string dist_info = finish_unpack(temp, dist, entry.id, before_seal);
        // Read-only wheel files (a uv archive's are the uv cache's own inodes: left as they are),
        // their hashes for `store verify`, and their identity for the check at each reuse.
        std::string hashes;
        seal_files(temp, "", hashes, dist.kind == SourceKind::wheel);
        // A uv archive too: uv links installed files to its cache's inodes, so a benchmark that wrote
        // into a uv-installed environment changed the archive, whose RECORD still names the build.
        detail::check_unpacked_record(temp, dist, dist_info, members, hashes);
        write_entry_file(temp + "/hashes", hashes);
        write_entry_file(temp + "/identity", file_identity(temp, k_entry_skip, Pycache::include));
        // One flush per entry: a crash that loses file data since changes sizes or times, and the
        // identity check at the next use unpacks the entry anew.
        flush_file(temp + "/identity");
        if (::rename(temp.c_str(), entry.dir.c_str()) != 0) {
          throw Error("cannot move " + temp + " into the store: " + std::strerror(errno), ExitCode::environment);
        }
      } catch (...) {
        remove_tree(temp);
        throw;
      }
      entry.unpacked_now = true;
    }
  }
  // At this point the entry is complete and will stay so until gc (which waits for our shared lock).
  const nlohmann::json meta = nlohmann::json::parse(read_file(entry.dir + "/entry.json"));
  entry.dist_info = meta.at("dist_info").get<std::string>();
  touch(entry.dir + "/entry.json");
  return entry;
}

std::string Store::skeleton(const std::string& interpreter, const std::string& version,
                            const std::function<void(const std::string&)>& make) {
  const std::string key = sha256_hex(interpreter + "\n" + version).substr(0, 24);
  const std::string dir = m_root + k_layout + "/skeletons/" + key;
  const std::string done = dir + "/origin";
  if (path_is_file(done)) {
    touch(done);
    return dir;
  }
  const FileLock lock(dir + ".lock", LockMode::exclusive, LockWait::yes);
  if (!path_is_file(done)) {
    for (const std::string& name : list_dir(m_root + k_layout + "/tmp")) {
      if (name.rfind("skeleton-" + key + "@", 0) == 0) {
        remove_tree(m_root + k_layout + "/tmp/" + name);
      }
    }
    remove_tree(dir);
    const std::string temp = temp_dir_for("skeleton-" + key);
    try {
      make(temp);
      write_file_atomic(temp + "/origin", temp);
      if (::rename(temp.c_str(), dir.c_str()) != 0) {
        throw Error("cannot move " + temp + " into the store: " + std::strerror(errno), ExitCode::environment);
      }
    } catch (...) {
      remove_tree(temp);
      throw;
    }
  }
  return dir;
}

std::vector<Damage> Store::verify() {
  std::vector<Damage> found;
  const std::string base = m_root + k_layout;
  const FileLock store_lock(gc_lock_path(), LockMode::shared, LockWait::yes);
  std::vector<std::string> ids = list_dir(base + "/dists");
  for (const std::string& id : ids) {
    const std::string dir = base + "/dists/" + id;
    const std::string recorded = read_file_or_empty(dir + "/hashes");
    std::string now;
    seal_files(dir, "", now, false);
    // ENTRY/hashes lists itself as it was before it was written; compare content files only.
    auto content = [](const std::string& text) {
      std::string out;
      std::size_t pos = 0;
      while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        end = end == std::string::npos ? text.size() : end;
        const std::string line = text.substr(pos, end - pos);
        const std::string path = line.substr(line.find(' ') + 1);
        if (k_entry_skip.count(path) == 0) {
          out += path + "\t" + line.substr(0, line.find(' ')) + "\n";
        }
        pos = end + 1;
      }
      return out;
    };
    std::vector<std::string> files = recorded.empty() ? std::vector<std::string>{"hashes (none recorded)"}
                                                      : identity_changes(content(recorded), content(now));
    if (!files.empty()) {
      found.push_back({"dists/" + id, files});
    }
  }
  const std::string envs = m_root + "/envs";
  std::vector<std::string> names = list_dir(envs);
  for (const std::string& name : names) {
    const std::string dir = envs + "/" + name;
    if (!name.ends_with(".lock") && path_is_file(dir + "/envbisect-built.json")) {
      if (std::vector<std::string> files = environment_changes(dir); !files.empty()) {
        found.push_back({"envs/" + name, files});
      }
    }
  }
  return found;
}

GcReport Store::gc(std::chrono::seconds older_than) {
  GcReport report;
  const std::string base = m_root + k_layout;
  // No materialization runs while we hold this: every temp folder is stale, no entry is being read.
  const FileLock store_lock(gc_lock_path(), LockMode::exclusive, LockWait::yes);
  const auto now = std::chrono::system_clock::now();
  auto too_old = [&](const std::string& stamp) {
    struct stat st {};
    if (::stat(stamp.c_str(), &st) != 0) {
      return true;  // no stamp: never finished, or damaged
    }
    const auto used = std::chrono::system_clock::time_point(std::chrono::seconds(st.st_mtim.tv_sec));
    return now - used >= older_than;
  };
  for (const std::string& name : list_dir(base + "/tmp")) {
    remove_tree(base + "/tmp/" + name);
    ++report.stale_temps_removed;
  }
  std::vector<std::string> ids = list_dir(base + "/dists");
  for (const std::string& id : ids) {
    if (too_old(base + "/dists/" + id + "/entry.json")) {
      remove_tree(base + "/dists/" + id);
      ::unlink((base + "/locks/" + id + ".lock").c_str());
      report.removed.push_back(id);
    } else {
      ++report.kept;
    }
  }
  for (const std::string& name : list_dir(base + "/skeletons")) {
    if (!name.ends_with(".lock") && too_old(base + "/skeletons/" + name + "/origin")) {
      remove_tree(base + "/skeletons/" + name);
      ++report.skeletons_removed;
    }
  }
  // Shared environments: hard links into entries, so removing one frees only its own files. While a
  // run holds the store (store_lock.hpp) its environments may be in use: keep them all.
  const FileLock no_runs(store_runs_lock_path(m_root), LockMode::exclusive, LockWait::no);
  const std::string envs = m_root + "/envs";
  for (const std::string& name : list_dir(envs)) {
    if (name.ends_with(".lock")) {
      continue;
    }
    if (!no_runs.held()) {
      ++report.envs_kept_in_use;
      continue;
    }
    const std::string dir = envs + "/" + name;
    const FileLock building(dir + ".lock", LockMode::exclusive, LockWait::no);
    if (!building.held()) {
      continue;  // another run is building or checking it right now
    }
    if (too_old(dir + "/envbisect-built.json")) {
      remove_tree(dir);
      ::unlink((dir + ".lock").c_str());
      ++report.envs_removed;
    }
  }
  // The wheel-hash index is a cache of file identities: drop it with the entries it served.
  if (!report.removed.empty()) {
    for (const std::string& name : list_dir(base + "/index")) {
      if (too_old(base + "/index/" + name)) {
        ::unlink((base + "/index/" + name).c_str());
      }
    }
  }
  return report;
}

}  // namespace envbisect
