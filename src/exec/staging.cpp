#include "exec/staging.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include <spdlog/spdlog.h>

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace fs = std::filesystem;

namespace {

// Receives one tar stream under the root: $1 is the root, the other arguments are paths (relative to
// it) to remove first, so that a path sent holds exactly what was sent (and fetched paths go away).
// TMPDIR of staged runs is ROOT/tmp.
constexpr std::string_view k_receive =
    "root=$1; shift; mkdir -p \"$root/tmp\" && cd \"$root\" || exit 1; "
    "for w do rm -rf -- \"./$w\"; done; exec tar --no-same-owner -xf -";

// Sends $2 (relative to the folder $1) as a tar stream; nothing when it is not there. It is removed
// there only after it was unpacked here (by the next send, or when the runner ends).
constexpr std::string_view k_send_back =
    "cd \"$1\" || exit 3; [ -e \"./$2\" ] || exit 0; exec tar -cf - -- \"$2\"";

// Removes the paths given (relative to the root $1).
constexpr std::string_view k_remove = "cd \"$1\" || exit 0; shift; for w do rm -rf -- \"./$w\"; done";

constexpr std::chrono::seconds k_cleanup_limit{30};

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::strchr("._-+@~%,", c) != nullptr;
}

// The last non-empty line of a file, for a failure's reason.
std::string last_words(const std::string& path) {
  const std::string text = read_file_or_empty(path);
  std::string last;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!trim(line).empty()) {
      last = trim(line);
    }
  }
  return last;
}

std::string relative_to_slash(const std::string& path) {
  return path.size() > 1 ? path.substr(1) : std::string(".");
}

}  // namespace

std::string map_local_paths(std::string_view text, const std::vector<std::string>& paths, const std::string& root) {
  std::vector<std::string> sorted = paths;
  std::sort(sorted.begin(), sorted.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const bool starts = i == 0 || (!is_name_char(text[i - 1]) && text[i - 1] != '/');
    bool mapped = false;
    if (starts && text[i] == '/') {
      for (const std::string& path : sorted) {
        if (path.empty() || path == "/" || text.compare(i, path.size(), path) != 0) {
          continue;
        }
        const std::size_t end = i + path.size();
        if (end == text.size() || text[end] == '/' || !is_name_char(text[end])) {
          out += root + path;
          i = end;
          mapped = true;
          break;
        }
      }
    }
    if (!mapped) {
      out += text[i];
      ++i;
    }
  }
  return out;
}

std::vector<std::string> outermost_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> cleaned;
  for (const std::string& path : paths) {
    if (!path.empty()) {
      cleaned.push_back(clean_path(path));
    }
  }
  std::sort(cleaned.begin(), cleaned.end());
  cleaned.erase(std::unique(cleaned.begin(), cleaned.end()), cleaned.end());
  std::vector<std::string> out;
  for (const std::string& path : cleaned) {
    bool inside = false;
    for (const std::string& other : cleaned) {
      if (other != path && (other == "/" || path.rfind(other + "/", 0) == 0)) {
        inside = true;
        break;
      }
    }
    if (!inside) {
      out.push_back(path);
    }
  }
  return out;
}

StagingRunner::StagingRunner(SshTarget target, std::string remote_root)
    : m_ssh(std::move(target)), m_root(clean_path(remote_root)) {
  if (m_root.empty() || m_root.front() != '/' || m_root == "/") {
    throw Error("--remote-root " + remote_root + ": must be an absolute folder other than /", ExitCode::bad_input);
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/envbisect-staging.XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) {
    throw Error(pattern + ": cannot create a scratch folder: " + std::strerror(errno), ExitCode::environment);
  }
  m_scratch = buffer.data();
}

StagingRunner::~StagingRunner() {
  // The last fetched folders are still on the remote side: remove them (best effort).
  if (!m_fetched.empty()) {
    std::vector<std::string> args = {m_root};
    for (const std::string& path : m_fetched) {
      args.push_back(relative_to_slash(path));
    }
    ProcessResult removed = m_ssh.run_script(std::string(k_remove), args, "", "", "", k_cleanup_limit);
    if (!removed.spawned || removed.exit_code != 0) {
      spdlog::warn("could not remove {} fetched folders on {}", m_fetched.size(), where());
    }
  }
  remove_tree(m_scratch);
}

std::string StagingRunner::remote_path(const std::string& local) const {
  return m_root + clean_path(local);
}

std::string StagingRunner::local_path(const std::string& remote) const {
  if (remote.rfind(m_root + "/", 0) == 0) {
    return remote.substr(m_root.size());
  }
  return remote;
}

std::string StagingRunner::where() const {
  return m_ssh.target().host + ":" + m_root;
}

std::string StagingRunner::scratch_file(const std::string& stem) {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_scratch + "/" + stem + "-" + std::to_string(++m_transfers);
}

bool StagingRunner::send(const std::vector<std::string>& paths, const std::vector<std::string>& replaced,
                         std::string& error) {
  const std::string tarball = scratch_file("send") + ".tar";
  const std::string tar_err = tarball + ".err";
  ProcessSpec pack;
  pack.argv = {"tar", "-C", "/", "-cf", tarball, "--"};
  for (const std::string& path : paths) {
    pack.argv.push_back(relative_to_slash(path));
  }
  pack.env = allowed_parent_env();
  pack.stderr_path = tar_err;
  spdlog::debug("staging: sending {} paths to {}", paths.size(), where());
  ProcessResult packed = m_local.run(pack);
  if (!packed.spawned || packed.exit_code != 0) {
    error = "packing " + join(paths, " ") + " failed: " +
            (packed.spawned ? last_words(tar_err) : packed.spawn_error);
    remove_tree(tarball);
    return false;
  }
  std::vector<std::string> args = {m_root};
  for (const std::string& path : replaced) {
    args.push_back(relative_to_slash(path));
  }
  const std::string err = tarball + ".ssh.err";
  ProcessResult sent = m_ssh.run_script(std::string(k_receive), args, tarball, "", err);
  remove_tree(tarball);
  if (!sent.spawned || sent.exit_code != 0) {
    error = "sending " + std::to_string(paths.size()) + " paths to " + where() + " failed: " +
            (sent.spawned ? last_words(err) : sent.spawn_error);
    return false;
  }
  return true;
}

bool StagingRunner::fetch(const std::string& path, std::string& error) {
  const std::string tarball = scratch_file("fetch") + ".tar";
  const std::string err = tarball + ".err";
  const std::string parent = parent_dir(path);
  const std::string name = fs::path(path).filename().string();
  ProcessResult got = m_ssh.run_script(std::string(k_send_back), {remote_path(parent), name}, "", tarball, err);
  if (!got.spawned || got.exit_code != 0) {
    error = "fetching " + path + " from " + where() + " failed: " + (got.spawned ? last_words(err) : got.spawn_error);
    remove_tree(tarball);
    return false;
  }
  std::error_code ec;
  if (fs::file_size(tarball, ec) == 0 || ec) {
    remove_tree(tarball);
    return true;  // nothing there to fetch
  }
  make_dirs(parent);
  ProcessSpec unpack;
  unpack.argv = {"tar", "-C", parent, "-xf", tarball, "--", name};
  unpack.env = allowed_parent_env();
  unpack.stderr_path = err;
  ProcessResult unpacked = m_local.run(unpack);
  remove_tree(tarball);
  if (!unpacked.spawned || unpacked.exit_code != 0) {
    error = "unpacking " + path + " failed: " + (unpacked.spawned ? last_words(err) : unpacked.spawn_error);
    return false;
  }
  remove_tree(err);
  return true;
}

ProcessResult StagingRunner::run(const ProcessSpec& spec) {
  std::vector<std::string> reads = outermost_paths(spec.read_paths);
  std::vector<std::string> writes = outermost_paths(spec.write_paths);
  std::vector<std::string> names = reads;
  names.insert(names.end(), writes.begin(), writes.end());
  if (!spec.cwd.empty()) {
    names.push_back(clean_path(spec.cwd));
  }
  for (const std::string& path : names) {
    if (path.empty() || path.front() != '/') {
      ProcessResult refused;
      refused.spawn_error = "staging needs absolute paths: " + path;
      return refused;
    }
  }

  // stdout and stderr stream back into their local files: an older copy inside a write path must not
  // travel there and come back over them (a rebuild's answer in the same log folder did).
  for (const std::string* output : {&spec.stdout_path, &spec.stderr_path}) {
    for (const std::string& path : writes) {
      if (!output->empty() && clean_path(*output).rfind(path + "/", 0) == 0) {
        std::error_code ignored;
        fs::remove(*output, ignored);
      }
    }
  }

  // Send what the remote side lacks: read paths once per runner (replacing what an earlier run left
  // there), write paths every time; folders fetched back earlier are removed there on the way. Sends
  // are one at a time, so two slots never send the same read path twice.
  {
    std::lock_guard<std::mutex> lock(m_send_mutex);
    std::vector<std::string> to_send;
    std::vector<std::string> replaced = writes;
    for (const std::string& path : reads) {
      if (m_sent.count(path) == 0 && path_exists(path)) {
        to_send.push_back(path);
        replaced.push_back(path);
      }
    }
    for (const std::string& path : writes) {
      if (path_exists(path)) {
        to_send.push_back(path);
      }
    }
    {
      std::lock_guard<std::mutex> fetched_lock(m_mutex);
      replaced.insert(replaced.end(), m_fetched.begin(), m_fetched.end());
      m_fetched.clear();
    }
    std::string error;
    if (!to_send.empty() && !send(outermost_paths(to_send), replaced, error)) {
      if (interrupt_requested()) {
        ProcessResult interrupted;
        interrupted.interrupted = true;
        return interrupted;
      }
      // Not the benchmark's failure: a verdict must never rest on a transfer. The run stops (resumable).
      throw Error(error, ExitCode::environment);
    }
    m_sent.insert(reads.begin(), reads.end());
  }

  ProcessSpec remote = spec;
  remote.argv.clear();
  for (const std::string& word : spec.argv) {
    remote.argv.push_back(map_local_paths(word, names, m_root));
  }
  for (auto& [key, value] : remote.env) {
    value = map_local_paths(value, names, m_root);
  }
  remote.cwd = spec.cwd.empty() ? "" : remote_path(spec.cwd);
  remote.read_paths.clear();
  remote.write_paths.clear();
  for (const std::string& path : reads) {
    remote.read_paths.push_back(remote_path(path));
  }
  for (const std::string& path : writes) {
    remote.write_paths.push_back(remote_path(path));
  }
  if (remote.env.count("TMPDIR") != 0) {
    remote.env["TMPDIR"] = m_root + "/tmp";  // this machine's TMPDIR may not exist there
  }
  ProcessResult result = m_ssh.run(remote);
  if (result.interrupted || interrupt_requested()) {
    return result;
  }
  for (const std::string& path : writes) {
    std::string error;
    if (!fetch(path, error)) {
      // What the run wrote (its output, a warm-up's caches) must not silently go missing.
      throw Error(error, ExitCode::environment);
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    m_fetched.push_back(path);
  }
  return result;
}

}  // namespace envbisect
