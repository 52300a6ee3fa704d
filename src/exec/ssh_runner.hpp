#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "exec/runner.hpp"

namespace envbisect {

// Where and how the ssh executor reaches the remote side.
struct SshTarget {
  std::string host;        // user@host, or a Host alias of the ssh config
  std::string prefix;      // remote shell words put before the command, e.g. "pct exec 200 --"; "" = none
  std::string ssh_config;  // `ssh -F FILE`; "" = the user's own ssh configuration
};

// Return `word` quoted for a POSIX shell so that the shell reads it back as exactly one word with the
// same bytes: plain words ([A-Za-z0-9@%_+=:,./-]) stay as they are, anything else (and the empty
// word) is single-quoted, with each ' written as '\''.
std::string remote_shell_quote(std::string_view word);

// Return the one line the remote shell runs for `spec`: the prefix, then a small sh wrapper that puts
// the process in its own session, records its group id in `pgid_file`, enters spec.cwd (exit 125 if it
// cannot) and runs `env -i -- K=V... argv...`. Every argument is quoted with remote_shell_quote.
std::string remote_command_line(const ProcessSpec& spec, const std::string& prefix, const std::string& pgid_file);

// Return the one line that kills the remote process group recorded in `pgid_file` (TERM, then KILL
// after 0.5 s), waiting up to 2 s for the file to appear.
std::string remote_kill_line(const std::string& prefix, const std::string& pgid_file);

// Says whether the remote command reads the local ssh's stdin (a file transfer) or nothing.
enum class SshStdin { none, pass };

// Return the local ssh argv that runs `remote_line` on `target` (batch mode; stdin from /dev/null
// unless `stdin_mode` passes it on).
std::vector<std::string> ssh_argv(const SshTarget& target, const std::string& remote_line,
                                  SshStdin stdin_mode = SshStdin::none);

// Runs each process on a remote host over ssh. Paths in the spec must mean the same on both sides (a
// shared filesystem, or a bundle unpacked at the same paths): only stdout and stderr travel, streamed
// back over the ssh channel into spec.stdout_path and spec.stderr_path.
class SshRunner : public Runner {
public:
  // Prepare to run on `target`. Throw Error (bad_input) when the host is empty or starts with '-'.
  explicit SshRunner(SshTarget target);

  // Run the process remotely to completion (or timeout) and return how it ended; on timeout or
  // interrupt the remote process group is killed by a second ssh. ssh's own failure is exit 255.
  ProcessResult run(const ProcessSpec& spec) override;

  // Run `script` with `sh -c SCRIPT envbisect-stage ARGS...` on the remote side (after the prefix),
  // reading the local file `stdin_path` as its stdin ("" = nothing) and writing its stdout and stderr
  // into local files; for moving files. A connection silent for a minute is dropped (ssh keepalives);
  // `timeout` 0 = no other limit. Return how the local ssh ended (ssh's failure is exit 255).
  ProcessResult run_script(const std::string& script, const std::vector<std::string>& args,
                           const std::string& stdin_path, const std::string& stdout_path,
                           const std::string& stderr_path,
                           std::chrono::milliseconds timeout = std::chrono::milliseconds(0));

  // Return where and how this runner reaches the remote side.
  const SshTarget& target() const { return m_target; }

private:
  SshTarget m_target;
  LocalRunner m_local;
};

}  // namespace envbisect
