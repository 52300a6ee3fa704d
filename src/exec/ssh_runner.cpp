#include "exec/ssh_runner.hpp"

#include "exec/remote_cleanup.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <unistd.h>

namespace envbisect {

namespace {

// The remote wrapper, run by `sh -c WRAPPER envbisect-remote PGID_FILE CWD env -i ... ARGV...`:
// setsid gives the benchmark its own session (so its group can be killed as a whole); the inner
// shell writes its pid, which is the group id, before exec-ing the benchmark in place.
constexpr std::string_view k_wrapper =
    "f=$1; shift; "
    "setsid -w sh -c 'echo $$ >\"$0\"; cd \"$1\" || exit 125; shift; exec \"$@\"' \"$f\" \"$@\" </dev/null; "
    "rc=$?; rm -f \"$f\"; exit $rc";

// Kills the group named in the file given as $1, waiting a little for a run that is just starting.
constexpr std::string_view k_killer =
    "f=$1; i=0; while [ ! -s \"$f\" ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done; "
    "[ -s \"$f\" ] || exit 0; p=$(cat \"$f\"); kill -TERM -\"$p\" 2>/dev/null; sleep 0.5; "
    "kill -KILL -\"$p\" 2>/dev/null; rm -f \"$f\"; exit 0";

constexpr std::chrono::milliseconds k_kill_limit{15000};

std::string with_prefix(const std::string& prefix, const std::string& line) {
  return prefix.empty() ? line : prefix + " " + line;
}

// A name no other run of any envbisect on the remote host picks at the same time.
std::string unique_pgid_file() {
  static std::atomic<unsigned long> counter{0};
  const auto now = std::chrono::system_clock::now().time_since_epoch().count();
  const std::string seed = std::to_string(::getpid()) + "-" + std::to_string(now) + "-" +
                           std::to_string(counter.fetch_add(1));
  return "/tmp/envbisect-" + sha256_hex(seed).substr(0, 20) + ".pgid";
}

// The local ssh client's environment: the allow-list plus the agent socket, nothing of the benchmark's.
std::map<std::string, std::string> ssh_client_env() {
  std::map<std::string, std::string> env = allowed_parent_env();
  if (const char* agent = std::getenv("SSH_AUTH_SOCK")) {
    env["SSH_AUTH_SOCK"] = agent;
  }
  if (env.find("PATH") == env.end()) {
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  }
  return env;
}

}  // namespace

std::string remote_shell_quote(std::string_view word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("@%_+=:,./-").find(c) != std::string_view::npos;
  });
  if (plain) {
    return std::string(word);
  }
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += "'";
  return out;
}

std::string remote_command_line(const ProcessSpec& spec, const std::string& prefix, const std::string& pgid_file) {
  std::vector<std::string> words = {"sh", "-c", std::string(k_wrapper), "envbisect-remote", pgid_file,
                                    spec.cwd.empty() ? "/" : spec.cwd, "env", "-i", "--"};
  for (const auto& [name, value] : spec.env) {
    words.push_back(name + "=" + value);
  }
  words.insert(words.end(), spec.argv.begin(), spec.argv.end());
  std::string line;
  for (const std::string& word : words) {
    line += (line.empty() ? "" : " ") + remote_shell_quote(word);
  }
  return with_prefix(prefix, line);
}

std::string remote_kill_line(const std::string& prefix, const std::string& pgid_file) {
  return with_prefix(prefix, "sh -c " + remote_shell_quote(k_killer) + " envbisect-kill " +
                                 remote_shell_quote(pgid_file));
}

std::vector<std::string> ssh_argv(const SshTarget& target, const std::string& remote_line, SshStdin stdin_mode) {
  std::vector<std::string> argv = {"ssh", "-n", "-o", "BatchMode=yes"};
  if (stdin_mode == SshStdin::pass) {
    argv.erase(argv.begin() + 1);
  }
  if (!target.ssh_config.empty()) {
    argv.push_back("-F");
    argv.push_back(target.ssh_config);
  }
  argv.push_back(target.host);
  argv.push_back(remote_line);
  return argv;
}

SshRunner::SshRunner(SshTarget target) : m_target(std::move(target)) {
  if (m_target.host.empty()) {
    throw Error("--executor ssh needs --host user@host", ExitCode::bad_input);
  }
  if (m_target.host.front() == '-') {
    throw Error("--host " + m_target.host + ": a host cannot start with '-'", ExitCode::bad_input);
  }
}

ProcessResult SshRunner::run(const ProcessSpec& spec) {
  if (spec.argv.empty()) {
    ProcessResult result;
    result.spawn_error = "empty argv";
    return result;
  }
  const std::string pgid_file = unique_pgid_file();
  ProcessSpec local;
  local.argv = ssh_argv(m_target, remote_command_line(spec, m_target.prefix, pgid_file));
  local.env = ssh_client_env();
  local.stdout_path = spec.stdout_path;
  local.stderr_path = spec.stderr_path;
  local.timeout = spec.timeout;
  spdlog::debug("ssh {}: {}", m_target.host, display_argv(spec.argv));
  ProcessResult result = m_local.run(local);
  if (result.timed_out || result.interrupted) {
    // Killing the local ssh leaves the remote job running (no tty, no SIGHUP): kill its group there.
    run_cleanup_command(ssh_argv(m_target, remote_kill_line(m_target.prefix, pgid_file)), local.env, k_kill_limit);
  }
  if (result.spawned && result.exit_code == 255 && !result.timed_out && !result.interrupted) {
    spdlog::warn("ssh to {} exited 255 (a connection failure, or the benchmark's own exit 255); see {}",
                 m_target.host, spec.stderr_path);
  }
  return result;
}

ProcessResult SshRunner::run_script(const std::string& script, const std::vector<std::string>& args,
                                    const std::string& stdin_path, const std::string& stdout_path,
                                    const std::string& stderr_path, std::chrono::milliseconds timeout) {
  std::string line = "sh -c " + remote_shell_quote(script) + " envbisect-stage";
  for (const std::string& arg : args) {
    line += " " + remote_shell_quote(arg);
  }
  ProcessSpec local;
  local.argv = ssh_argv(m_target, with_prefix(m_target.prefix, line),
                        stdin_path.empty() ? SshStdin::none : SshStdin::pass);
  // A stalled transfer must not hold the run (and every slot waiting to send) forever.
  local.argv.insert(local.argv.begin() + 1, {"-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=4"});
  local.timeout = timeout;
  spdlog::debug("ssh {}: staging script with {} arguments", m_target.host, args.size());
  local.env = ssh_client_env();
  local.stdin_path = stdin_path;
  local.stdout_path = stdout_path;
  local.stderr_path = stderr_path;
  return m_local.run(local);
}

}  // namespace envbisect
