#include "exec/isolation.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sys/mount.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"

namespace envbisect {

namespace fs = std::filesystem;

namespace {

// The containers.conf that makes podman work on these machines (crun fails; see MACHINE-NOTES).
const char* const k_containers_conf =
    "[containers]\ndefault_ulimits = [\"nofile=20000:20000\", \"nproc=4096:4096\"]\n[engine]\nruntime = \"runc\"\n";

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
    m_options.base = clean_path(absolute_path(m_options.base, fs::current_path().string()));
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
      base = clean_path(absolute_path(spec.container_base, fs::current_path().string()));
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
  const EnvDirs env_dirs = !merged.empty() && merged != plan.root ? EnvDirs::inside : EnvDirs::on_host;
  if (!merged.empty()) {
    plan.root = merged;
  }
  if (env_dirs == EnvDirs::inside) {
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
  wrapped.argv = bwrap_argv(m_tool, plan, env_dirs, spec.argv);
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
  const EnvDirs env_dirs = layer.empty() ? EnvDirs::on_host : EnvDirs::inside;
  wrapped.argv = podman_run_argv(m_tool, plan, layer.empty() ? image : layer, env_dirs, names, m_scratch + "/empty",
                                 timeout, spec.argv);
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
