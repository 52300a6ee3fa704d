#include "exec/isolation.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <sys/mount.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace fs = std::filesystem;

namespace {

// Host /etc entries a program may need to start (dynamic loader cache, users, time zone, certificates).
const std::vector<std::string> k_host_etc = {
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",   "/etc/passwd",
    "/etc/group",       "/etc/nsswitch.conf", "/etc/hosts",     "/etc/alternatives", "/etc/ssl",
    "/etc/ca-certificates"};

// Top-level host folders that hold programs and libraries (symlinks into /usr on merged-/usr systems).
const std::vector<std::string> k_host_lib_dirs = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};

// The containers.conf that makes podman work on these machines (crun fails; see MACHINE-NOTES).
const char* const k_containers_conf =
    "[containers]\ndefault_ulimits = [\"nofile=20000:20000\", \"nproc=4096:4096\"]\n[engine]\nruntime = \"runc\"\n";

std::size_t depth(const std::string& path) { return static_cast<std::size_t>(std::count(path.begin(), path.end(), '/')); }

bool under(const std::string& path, const std::string& folder) {
  return path == folder || starts_with(path, folder.back() == '/' ? folder : folder + "/");
}

void add_unique(std::vector<std::string>& list, const std::string& value) {
  if (!value.empty() && std::find(list.begin(), list.end(), value) == list.end()) {
    list.push_back(value);
  }
}

// A mount inside the sandbox: a bind (read-only or not) or an empty tmpfs.
struct Mount {
  enum class Kind { read, write, tmpfs } kind;
  std::string path;
  std::string source;  // where a bind comes from; empty: the same path on the host
};

// Every mount of the plan, parents before children so a nested mount is never hidden by its parent's.
// `env_from`: "" binds the environments from the host; otherwise from that root (their overlay layer).
std::vector<Mount> plan_mounts(const SandboxPlan& plan, bool env_elsewhere, const std::string& env_from = "") {
  std::vector<Mount> mounts;
  if (!env_elsewhere || !env_from.empty()) {
    for (const std::string& path : plan.env_dirs) {
      mounts.push_back({Mount::Kind::read, path, env_from.empty() ? "" : env_from + path});
    }
  }
  for (const std::string& path : plan.read_paths) {
    mounts.push_back({Mount::Kind::read, path, ""});
  }
  for (const std::string& path : plan.masked_paths) {
    mounts.push_back({Mount::Kind::tmpfs, path, ""});
  }
  for (const std::string& path : plan.write_paths) {
    mounts.push_back({Mount::Kind::write, path, ""});
  }
  std::stable_sort(mounts.begin(), mounts.end(),
                   [](const Mount& a, const Mount& b) { return depth(a.path) < depth(b.path); });
  return mounts;
}

// The key=value lines of a pyvenv.cfg.
std::map<std::string, std::string> read_pyvenv_cfg(const std::string& path) {
  std::map<std::string, std::string> values;
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line)) {
    std::size_t eq = line.find('=');
    if (eq != std::string::npos) {
      values[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
    }
  }
  return values;
}

// The site-packages folders of an interpreter installed under `prefix`, those that exist.
std::vector<std::string> site_packages_under(const std::string& prefix) {
  std::vector<std::string> found;
  for (const std::string& lib : {prefix + "/lib", prefix + "/local/lib"}) {
    std::error_code error;
    for (fs::directory_iterator it(lib, error); !error && it != fs::directory_iterator(); it.increment(error)) {
      std::string name = it->path().filename().string();
      if (starts_with(name, "python3")) {
        for (const char* leaf : {"/site-packages", "/dist-packages"}) {
          if (fs::is_directory(it->path().string() + leaf, error)) {
            found.push_back(it->path().string() + leaf);
          }
        }
      }
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string lexically_clean(const std::string& path) {
  std::string clean = fs::path(path).lexically_normal().string();
  while (clean.size() > 1 && clean.back() == '/') {
    clean.pop_back();
  }
  return clean;
}

std::string lxc_escape(const std::string& path) {
  std::string out;
  for (char c : path) {
    out += c == ' ' ? std::string("\\040") : std::string(1, c);
  }
  return out;
}

ProcessResult not_spawned(const std::string& why) {
  ProcessResult result;
  result.spawned = false;
  result.spawn_error = why;
  return result;
}

}  // namespace

IsolationKind parse_isolation(const std::string& name) {
  if (name == "none") {
    return IsolationKind::none;
  }
  if (name == "bwrap") {
    return IsolationKind::bwrap;
  }
  if (name == "podman") {
    return IsolationKind::podman;
  }
  if (name == "lxc") {
    return IsolationKind::lxc;
  }
  throw Error("--isolation " + name + ": unknown isolation (none, bwrap, podman, lxc)", ExitCode::bad_input);
}

SandboxPlan plan_sandbox(const ProcessSpec& spec, const std::string& root, Network network) {
  SandboxPlan plan;
  plan.root = root;
  plan.network = network;
  plan.cwd = spec.cwd;
  for (const std::string& raw : spec.read_paths) {
    std::string path = lexically_clean(raw);
    if (!path_exists(path + "/pyvenv.cfg")) {
      add_unique(plan.read_paths, path);
      continue;
    }
    // A venv: it must reach its base interpreter, but not that interpreter's own site-packages.
    add_unique(plan.env_dirs, path);
    std::map<std::string, std::string> cfg = read_pyvenv_cfg(path + "/pyvenv.cfg");
    std::string home = cfg.count("home") != 0 ? cfg["home"] : "";
    if (home.empty()) {
      continue;
    }
    std::error_code error;
    std::vector<std::string> prefixes = {lexically_clean(parent_dir(home))};
    std::string real = fs::weakly_canonical(fs::path(home), error).string();
    if (!error) {
      add_unique(prefixes, lexically_clean(parent_dir(real)));
    }
    for (const std::string& prefix : prefixes) {
      bool in_base = root.empty() && (under(prefix, "/usr") || prefix == "/");
      if (!in_base) {
        add_unique(plan.read_paths, prefix);
      }
      if (cfg["include-system-site-packages"] != "true") {
        for (const std::string& site : site_packages_under(prefix == "/" ? "/usr" : prefix)) {
          add_unique(plan.masked_paths, site);
        }
      }
    }
  }
  for (const std::string& path : spec.write_paths) {
    add_unique(plan.write_paths, lexically_clean(path));
  }
  return plan;
}

std::vector<std::string> bwrap_argv(const std::string& bwrap, const SandboxPlan& plan, bool env_in_root,
                                    const std::vector<std::string>& argv) {
  std::vector<std::string> out = {bwrap, "--unshare-all"};
  if (plan.network == Network::host) {
    out.push_back("--share-net");
  }
  out.push_back("--die-with-parent");
  if (plan.root.empty()) {
    // The host's programs and libraries, read-only; the rest of the host is not there.
    out.insert(out.end(), {"--ro-bind", "/usr", "/usr"});
    for (const std::string& dir : k_host_lib_dirs) {
      out.insert(out.end(), {"--ro-bind-try", dir, dir});
    }
    for (const std::string& file : k_host_etc) {
      out.insert(out.end(), {"--ro-bind-try", file, file});
    }
    if (plan.network == Network::host) {
      out.insert(out.end(), {"--ro-bind-try", "/etc/resolv.conf", "/etc/resolv.conf"});
    }
  } else {
    out.insert(out.end(), {"--ro-bind", plan.root, "/"});
  }
  out.insert(out.end(), {"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"});
  // An environment inside the root is bound again from there: the private /tmp may cover its path.
  for (const Mount& mount : plan_mounts(plan, env_in_root, env_in_root ? plan.root : "")) {
    switch (mount.kind) {
      case Mount::Kind::read:
        out.insert(out.end(), {"--ro-bind", mount.source.empty() ? mount.path : mount.source, mount.path});
        break;
      case Mount::Kind::write:
        out.insert(out.end(), {"--bind", mount.path, mount.path});
        break;
      case Mount::Kind::tmpfs:
        out.insert(out.end(), {"--tmpfs", mount.path});
        break;
    }
  }
  if (!plan.cwd.empty()) {
    out.insert(out.end(), {"--chdir", plan.cwd});
  }
  out.push_back("--");
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

std::vector<std::string> podman_run_argv(const std::string& podman, const SandboxPlan& plan, const std::string& image,
                                         bool env_in_image, const std::vector<std::string>& env_names,
                                         const std::string& empty_dir, int timeout_seconds,
                                         const std::vector<std::string>& argv) {
  // No tmpfs on /tmp: the container's own writable layer is private already, and a tmpfs would hide an
  // environment committed under /tmp.
  std::vector<std::string> out = {podman, "run", "--rm", "--network", plan.network == Network::host ? "host" : "none"};
  if (timeout_seconds > 0) {
    // Killing the podman client does not stop the container (conmon holds it): conmon's own limit does.
    out.insert(out.end(), {"--timeout", std::to_string(timeout_seconds)});
  }
  if (plan.root.empty()) {
    out.insert(out.end(), {"-v", "/usr:/usr:ro"});
  }
  for (const Mount& mount : plan_mounts(plan, env_in_image)) {
    switch (mount.kind) {
      case Mount::Kind::read:
        out.insert(out.end(), {"-v", mount.path + ":" + mount.path + ":ro"});
        break;
      case Mount::Kind::write:
        out.insert(out.end(), {"-v", mount.path + ":" + mount.path});
        break;
      case Mount::Kind::tmpfs:
        out.insert(out.end(), {"-v", empty_dir + ":" + mount.path + ":ro"});
        break;
    }
  }
  if (!plan.cwd.empty()) {
    out.insert(out.end(), {"-w", plan.cwd});
  }
  for (const std::string& name : env_names) {
    out.insert(out.end(), {"-e", name});
  }
  out.push_back(image);
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

std::string lxc_config(const SandboxPlan& plan, const std::string& lower, const std::string& upper,
                       const std::map<std::string, std::string>& env) {
  std::string out = "lxc.uts.name = envbisect\n";
  out += "lxc.rootfs.path = overlay:" + lower + ":" + upper + "\n";
  out += "lxc.mount.auto = proc:mixed sys:ro\n";
  out += std::string("lxc.net.0.type = ") + (plan.network == Network::host ? "none" : "empty") + "\n";
  out += "lxc.apparmor.profile = unconfined\n";
  if (plan.root.empty()) {
    out += "lxc.mount.entry = /usr usr none ro,bind 0 0\n";
  }
  out += "lxc.mount.entry = tmpfs tmp tmpfs rw,nosuid,nodev,create=dir 0 0\n";
  for (const Mount& mount : plan_mounts(plan, false)) {
    std::string target = lxc_escape(mount.path.substr(1));
    switch (mount.kind) {
      case Mount::Kind::read:
        out += "lxc.mount.entry = " + lxc_escape(mount.path) + " " + target + " none ro,bind,create=dir 0 0\n";
        break;
      case Mount::Kind::write:
        out += "lxc.mount.entry = " + lxc_escape(mount.path) + " " + target + " none rw,bind,create=dir 0 0\n";
        break;
      case Mount::Kind::tmpfs:
        out += "lxc.mount.entry = tmpfs " + target + " tmpfs ro,create=dir 0 0\n";
        break;
    }
  }
  if (!plan.cwd.empty()) {
    out += "lxc.init.cwd = " + plan.cwd + "\n";
  }
  for (const auto& [name, value] : env) {
    if (value.find('\n') == std::string::npos) {
      out += "lxc.environment = " + name + "=" + value + "\n";
    }
  }
  return out;
}

std::vector<std::string> lxc_execute_argv(const std::string& lxc_execute, const std::string& lxc_path,
                                          const std::string& name, const std::string& config,
                                          const std::vector<std::string>& argv) {
  std::vector<std::string> out = {lxc_execute, "-P", lxc_path, "-n", name, "-f", config, "--"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

std::vector<std::string> env_names(const std::map<std::string, std::string>& env) {
  std::vector<std::string> names;
  for (const auto& [name, value] : env) {
    names.push_back(name);
  }
  return names;
}

IsolatedRunner::IsolatedRunner(std::unique_ptr<Runner> inner, IsolationOptions options)
    : m_inner(std::move(inner)), m_options(std::move(options)) {
  const char* path = std::getenv("PATH");
  std::string search = std::string(path != nullptr ? path : "") + ":/usr/sbin:/usr/bin:/sbin:/bin";
  const char* tool = m_options.kind == IsolationKind::bwrap    ? "bwrap"
                     : m_options.kind == IsolationKind::podman ? "podman"
                                                               : "lxc-execute";
  const char* package = m_options.kind == IsolationKind::bwrap    ? "bubblewrap"
                        : m_options.kind == IsolationKind::podman ? "podman and runc"
                                                                  : "lxc";
  m_tool = find_program(tool, search);
  if (m_tool.empty()) {
    throw Error(std::string("--isolation: ") + tool + " is not installed (apt-get install " + package + ")",
                ExitCode::bad_input);
  }
  bool base_is_dir = !m_options.base.empty() && fs::is_directory(m_options.base);
  if (!m_options.base.empty() && m_options.kind != IsolationKind::podman && !base_is_dir) {
    throw Error("--isolation-base " + m_options.base + ": not a rootfs folder", ExitCode::bad_input);
  }
  if (base_is_dir) {
    m_options.base = lexically_clean(absolute_path(m_options.base, fs::current_path().string()));
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/envbisect-isolation.XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) {
    throw Error(pattern + ": cannot create a scratch folder: " + std::strerror(errno), ExitCode::environment);
  }
  m_scratch = buffer.data();
}

IsolatedRunner::~IsolatedRunner() {
  for (auto it = m_mounts.rbegin(); it != m_mounts.rend(); ++it) {
    if (umount2(it->c_str(), MNT_DETACH) != 0) {
      spdlog::warn("cannot unmount {}: {}", *it, std::strerror(errno));
    }
  }
  remove_tree(m_scratch);
}

ProcessResult IsolatedRunner::run(const ProcessSpec& spec) {
  if (spec.write_paths.empty()) {
    // The harness's own steps (building a venv) name no paths; only benchmark runs are isolated.
    return m_inner->run(spec);
  }
  int number = 0;
  {
    std::lock_guard<std::recursive_mutex> lock(m_prepare);
    number = ++m_runs;
  }
  // The candidate's own container base (a state's "container"), else the runner's.
  std::string base = m_options.base;
  if (!spec.container_base.empty()) {
    if (std::filesystem::is_directory(spec.container_base)) {
      base = lexically_clean(absolute_path(spec.container_base, fs::current_path().string()));
    } else if (m_options.kind == IsolationKind::podman) {
      base = spec.container_base;  // an image name
    } else {
      return not_spawned("container base " + spec.container_base + ": not a rootfs folder");
    }
  }
  std::string root = m_options.kind == IsolationKind::podman ? "" : base;
  SandboxPlan plan = plan_sandbox(spec, root, m_options.network);
  if (m_options.kind == IsolationKind::podman && !base.empty()) {
    plan.root = base;  // the image brings its own /usr
  }
  switch (m_options.kind) {
    case IsolationKind::bwrap:
      return run_bwrap(spec, std::move(plan));
    case IsolationKind::podman:
      return run_podman(spec, std::move(plan), base);
    case IsolationKind::lxc:
      return run_lxc(spec, std::move(plan), number);
    case IsolationKind::none:
      break;
  }
  return m_inner->run(spec);
}

ProcessResult IsolatedRunner::run_bwrap(const ProcessSpec& spec, SandboxPlan plan) {
  ProcessSpec wrapped = spec;
  std::string merged = bwrap_root(plan);
  bool env_in_root = !merged.empty() && merged != plan.root;
  if (!merged.empty()) {
    plan.root = merged;
  }
  if (env_in_root) {
    // bwrap binds the root read-only and cannot create mount points in it: make them in the overlay's
    // upper layer first (the sandbox itself never gets write access to it).
    for (const auto* list : {&plan.env_dirs, &plan.read_paths, &plan.write_paths, &plan.masked_paths}) {
      for (const std::string& path : *list) {
        std::error_code error;
        std::filesystem::create_directories(merged + path, error);
      }
    }
  }
  if (wrapped.env.count("TMPDIR") != 0) {
    wrapped.env["TMPDIR"] = "/tmp";  // the sandbox's own /tmp
  }
  wrapped.argv = bwrap_argv(m_tool, plan, env_in_root, spec.argv);
  return m_inner->run(wrapped);
}

// With a rootfs base, the candidate's environment becomes an overlay layer over it (bwrap 0.8 has no
// --overlay, so we mount it ourselves, once per environment); with the host's base there is nothing to
// mount: the store's environment folder is already the per-candidate layer, bound read-only.
std::string IsolatedRunner::bwrap_root(const SandboxPlan& plan) {
  if (plan.root.empty() || plan.env_dirs.size() != 1 || m_options.layers_dir.empty()) {
    return plan.root;
  }
  std::lock_guard<std::recursive_mutex> lock(m_prepare);
  const std::string& env_dir = plan.env_dirs.front();
  const std::string root_key = plan.root + "\n" + env_dir;
  if (auto it = m_roots.find(root_key); it != m_roots.end()) {
    return it->second;
  }
  std::string key = sha256_hex(env_dir).substr(0, 16);
  std::string layer = m_options.layers_dir + "/" + key;
  if (!path_exists(layer + "/complete")) {
    // Hard links into the environment (cp -al): the layer costs inodes, not bytes.
    remove_tree(layer);
    make_dirs(parent_dir(layer + "/root" + env_dir));
    ProcessSpec copy;
    copy.argv = {"cp", "-al", env_dir, layer + "/root" + env_dir};
    copy.env = allowed_parent_env();
    copy.stderr_path = m_scratch + "/layer-copy.err";
    ProcessResult copied = m_inner->run(copy);
    if (!copied.spawned || copied.exit_code != 0) {
      spdlog::warn("cannot make the layer {} (see {}): binding the environment over the base instead", layer,
                   copy.stderr_path);
      return m_roots[root_key] = plan.root;
    }
    write_file_atomic(layer + "/complete", env_dir + "\n");
  }
  const std::string mount_key = sha256_hex(root_key).substr(0, 16);  // one merged root per (base, env)
  std::string target = m_scratch + "/root-" + mount_key;
  make_dirs(target);
  make_dirs(m_scratch + "/upper-" + mount_key);
  make_dirs(m_scratch + "/work-" + mount_key);
  std::string data = "lowerdir=" + layer + "/root:" + plan.root + ",upperdir=" + m_scratch + "/upper-" + mount_key +
                     ",workdir=" + m_scratch + "/work-" + mount_key;
  if (mount("overlay", target.c_str(), "overlay", 0, data.c_str()) != 0) {
    spdlog::warn("cannot mount the overlay for {} ({}): binding the environment over the base instead", env_dir,
                 std::strerror(errno));
    m_roots[root_key] = plan.root;
    return plan.root;
  }
  m_mounts.push_back(target);
  spdlog::info("overlay layer {} mounted over {} at {}", layer, plan.root, target);
  return m_roots[root_key] = target;
}

bool IsolatedRunner::tool_ok(const ProcessSpec& spec, const std::vector<std::string>& argv, const std::string& what) {
  ProcessSpec step;
  step.argv = argv;
  step.env = spec.env;
  step.env["CONTAINERS_CONF"] = m_scratch + "/containers.conf";
  step.stdout_path = m_scratch + "/" + what + ".out";
  step.stderr_path = m_scratch + "/" + what + ".err";
  step.timeout = std::chrono::minutes(10);
  ProcessResult result = m_inner->run(step);
  return result.spawned && result.signal == 0 && !result.timed_out && result.exit_code == 0;
}

std::string IsolatedRunner::podman_base_image(const ProcessSpec& spec, const std::string& base) {
  std::lock_guard<std::recursive_mutex> lock(m_prepare);
  const std::string base_key = "base:" + base;
  if (auto it = m_images.find(base_key); it != m_images.end()) {
    return it->second;
  }
  std::string image = base;
  std::string folder = base;
  if (base.empty()) {
    // The host's base is an empty skeleton: /usr and friends are bound read-only at each run.
    folder = m_scratch + "/skeleton";
    for (const char* dir : {"usr", "etc", "tmp", "proc", "dev", "sys", "root", "run"}) {
      make_dirs(folder + "/" + dir);
    }
    for (const char* link : {"bin", "sbin", "lib", "lib64"}) {
      fs::create_symlink(std::string("usr/") + link, folder + "/" + link);
    }
    image = "localhost/envbisect-base:host";
  } else if (fs::is_directory(base)) {
    image = "localhost/envbisect-base:" + sha256_hex(base).substr(0, 16);
  } else {
    return m_images[base_key] = image;  // an image name: podman finds or fails
  }
  if (!tool_ok(spec, {m_tool, "image", "exists", image}, "base-exists")) {
    std::string tar = m_scratch + "/base.tar";
    if (!tool_ok(spec, {"tar", "-C", folder, "-cf", tar, "."}, "base-tar") ||
        !tool_ok(spec, {m_tool, "import", "-q", tar, image}, "base-import")) {
      throw Error("--isolation podman: cannot import the base " + folder + " (see " + m_scratch + "/base-*.err)",
                  ExitCode::environment);
    }
    remove_tree(tar);
  }
  return m_images[base_key] = image;
}

// One image per (base, environment): the environment copied into a container of the base and
// committed, so later runs of any candidate with that environment start from the snapshot.
std::string IsolatedRunner::podman_layer_image(const ProcessSpec& spec, const std::string& base_dir,
                                               const std::string& base, const std::string& env_dir) {
  std::lock_guard<std::recursive_mutex> lock(m_prepare);
  const std::string layer_key = base + "\n" + env_dir;
  if (auto it = m_images.find(layer_key); it != m_images.end()) {
    return it->second;
  }
  std::string key = sha256_hex(base + "\n" + env_dir).substr(0, 16);
  std::string image = "localhost/envbisect-layer:" + key;
  if (!tool_ok(spec, {m_tool, "image", "exists", image}, "layer-exists")) {
    std::string name = "envbisect-build-" + key + "-" + std::to_string(getpid());
    // cp --parents recreates the environment's absolute path inside the image (venvs hold absolute paths).
    std::vector<std::string> copy = {m_tool, "run", "--name", name, "--network", "none", "-v",
                                     env_dir + ":/envbisect-layer-source" + env_dir + ":ro", "-w", "/envbisect-layer-source"};
    if (base_dir.empty()) {
      copy.insert(copy.end(), {"-v", "/usr:/usr:ro"});
    }
    copy.insert(copy.end(), {base, "cp", "-a", "--parents", env_dir.substr(1), "/"});
    bool ok = tool_ok(spec, copy, "layer-copy") && tool_ok(spec, {m_tool, "commit", "-q", name, image}, "layer-commit");
    tool_ok(spec, {m_tool, "rm", "-f", name}, "layer-rm");
    if (!ok) {
      spdlog::warn("podman: cannot snapshot {} (see {}/layer-*.err); binding it instead", env_dir, m_scratch);
      return m_images[layer_key] = "";
    }
    spdlog::info("podman: committed {} as {}", env_dir, image);
  }
  return m_images[layer_key] = image;
}

ProcessResult IsolatedRunner::run_podman(const ProcessSpec& spec, SandboxPlan plan, const std::string& base) {
  std::string image;
  std::string layer;
  try {
    {
      std::lock_guard<std::recursive_mutex> lock(m_prepare);
      write_file_atomic(m_scratch + "/containers.conf", k_containers_conf);
    }
    image = podman_base_image(spec, base);
    if (plan.env_dirs.size() == 1) {
      layer = podman_layer_image(spec, base, image, plan.env_dirs.front());
    }
  } catch (const Error& error) {
    return not_spawned(error.what());
  }
  ProcessSpec wrapped = spec;
  if (wrapped.env.count("TMPDIR") != 0) {
    wrapped.env["TMPDIR"] = "/tmp";
  }
  std::vector<std::string> names = env_names(wrapped.env);
  wrapped.env["CONTAINERS_CONF"] = m_scratch + "/containers.conf";
  int timeout = spec.timeout.count() > 0 ? static_cast<int>(spec.timeout.count() / 1000) + 5 : 0;
  make_dirs(m_scratch + "/empty");
  wrapped.argv = podman_run_argv(m_tool, plan, layer.empty() ? image : layer, !layer.empty(), names,
                                 m_scratch + "/empty", timeout, spec.argv);
  return m_inner->run(wrapped);
}

ProcessResult IsolatedRunner::run_lxc(const ProcessSpec& spec, SandboxPlan plan, int number) {
  std::string lower = plan.root;
  std::unique_lock<std::recursive_mutex> lock(m_prepare);
  if (lower.empty()) {
    lower = m_scratch + "/skeleton";
    if (!path_exists(lower)) {
      for (const char* dir : {"usr", "etc", "tmp", "proc", "dev", "sys", "root", "run"}) {
        make_dirs(lower + "/" + dir);
      }
      for (const char* link : {"bin", "sbin", "lib", "lib64"}) {
        fs::create_symlink(std::string("usr/") + link, lower + "/" + link);
      }
    }
  }
  // Each run writes into its own upper layer, thrown away after: the base and the layers stay clean.
  std::string run_dir = m_scratch + "/lxc-run-" + std::to_string(number);
  make_dirs(run_dir + "/upper");
  make_dirs(m_scratch + "/lxcpath");
  lock.unlock();
  ProcessSpec wrapped = spec;
  if (wrapped.env.count("TMPDIR") != 0) {
    wrapped.env["TMPDIR"] = "/tmp";
  }
  std::string config = run_dir + "/config";
  write_file_atomic(config, lxc_config(plan, lower, run_dir + "/upper", wrapped.env));
  std::string name = "envbisect-" + std::to_string(getpid()) + "-" + std::to_string(number);
  wrapped.argv = lxc_execute_argv(m_tool, m_scratch + "/lxcpath", name, config, spec.argv);
  ProcessResult result = m_inner->run(wrapped);
  remove_tree(run_dir);
  remove_tree(m_scratch + "/lxcpath/" + name);
  return result;
}

}  // namespace envbisect
