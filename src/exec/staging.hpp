#pragma once

#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "exec/runner.hpp"
#include "exec/ssh_runner.hpp"

namespace envbisect {

// Return `text` with each occurrence of one of `paths` (absolute, lexically clean local paths)
// replaced by `root` + that path. An occurrence counts only as a whole path: at the start of the text
// or after a character that cannot be part of a path name, and at the end of the text or before '/'
// or such a character (so "/a/run" is found in "PATH=/a/run/bin:/usr/bin" but not in "/a/run2").
// The longest path wins where several start at one place; the text is scanned once. Pure.
std::string map_local_paths(std::string_view text, const std::vector<std::string>& paths, const std::string& root);

// Return `paths` made lexically clean, without duplicates and without those inside another one of
// them, sorted. Pure.
std::vector<std::string> outermost_paths(const std::vector<std::string>& paths);

// Runs each process on a host that does not share this machine's filesystem: every local path a
// spec names (its read_paths, write_paths and cwd) stands for `remote_root` + that path there. Before
// a run the read paths not yet sent (by this runner) and the write paths are sent as one tar stream
// over ssh (write paths replace what is there); argv, environment values and cwd are rewritten to the
// remote paths; the run goes through SshRunner (stdout and stderr stream back as before); after it the
// write paths are fetched back into their local folders (and removed on the remote side once they are
// here: with the next send, or when the runner ends). Read paths that do not exist locally are only
// renamed (things built on the remote side, like environments). Staged runs get TMPDIR=ROOT/tmp.
class StagingRunner : public Runner {
public:
  // Prepare to stage under `remote_root` on `target`. Throw Error (bad_input) when the root is not an
  // absolute path or the host is invalid, Error (environment) when no local scratch folder can be made.
  StagingRunner(SshTarget target, std::string remote_root);
  ~StagingRunner() override;
  StagingRunner(const StagingRunner&) = delete;
  StagingRunner& operator=(const StagingRunner&) = delete;

  // Send, run remotely, fetch back. Throw Error (environment) naming the paths and the host when a
  // send or a fetch fails (ssh's or tar's last words): a transfer is never counted as the benchmark's
  // failure. After an interrupt, return interrupted without fetching.
  ProcessResult run(const ProcessSpec& spec) override;

  // Return the remote path that stands for the local absolute path `local`.
  std::string remote_path(const std::string& local) const;

  // Return the local path for a remote path under the root (the root taken off); others unchanged.
  std::string local_path(const std::string& remote) const;

  // Return "user@host:ROOT", for messages.
  std::string where() const;

private:
  bool send(const std::vector<std::string>& paths, const std::vector<std::string>& replaced, std::string& error);
  bool fetch(const std::string& path, std::string& error);
  std::string scratch_file(const std::string& stem);

  SshRunner m_ssh;
  std::string m_root;
  std::string m_scratch;
  LocalRunner m_local;
  std::mutex m_send_mutex;           // serialises sends; guards m_sent
  std::set<std::string> m_sent;      // read paths already on the remote side
  std::mutex m_mutex;                // guards the two members below
  int m_transfers = 0;               // numbers scratch files
  std::vector<std::string> m_fetched;  // fetched back, still to remove on the remote side
};

}  // namespace envbisect
