#include "exec/sandbox_plan.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "util/fs.hpp"
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
// Environments on the host are bound from there; inside, from `env_from` (the root holding their
// overlay layer), or not at all when it is "" (an image holds them).
std::vector<Mount> plan_mounts(const SandboxPlan& plan, EnvDirs env_dirs, const std::string& env_from = "") {
  std::vector<Mount> mounts;
  if (env_dirs == EnvDirs::on_host || !env_from.empty()) {
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

std::string lxc_escape(const std::string& path) {
  std::string out;
  for (char c : path) {
    out += c == ' ' ? std::string("\\040") : std::string(1, c);
  }
  return out;
}

}  // namespace

SandboxPlan plan_sandbox(const ProcessSpec& spec, const std::string& root, Network network) {
  SandboxPlan plan;
  plan.root = root;
  plan.network = network;
  plan.cwd = spec.cwd;
  for (const std::string& raw : spec.read_paths) {
    std::string path = clean_path(raw);
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
    std::vector<std::string> prefixes = {clean_path(parent_dir(home))};
    std::string real = fs::weakly_canonical(fs::path(home), error).string();
    if (!error) {
      add_unique(prefixes, clean_path(parent_dir(real)));
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
    add_unique(plan.write_paths, clean_path(path));
  }
  return plan;
}

std::vector<std::string> bwrap_argv(const std::string& bwrap, const SandboxPlan& plan, EnvDirs env_dirs,
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
  for (const Mount& mount : plan_mounts(plan, env_dirs, env_dirs == EnvDirs::inside ? plan.root : "")) {
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
                                         EnvDirs env_dirs, const std::vector<std::string>& env_names,
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
  for (const Mount& mount : plan_mounts(plan, env_dirs)) {
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
  for (const Mount& mount : plan_mounts(plan, EnvDirs::on_host)) {
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

}  // namespace envbisect
