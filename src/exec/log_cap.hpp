#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <cstdint>
#include <string>
#include <vector>

#include "util/fd.hpp"

namespace envbisect {

// The default cap on each output file of one spawned process (64 MiB).
inline constexpr std::uint64_t k_default_max_log_bytes = 64ull << 20;

// One output file of a child, fed from a pipe: the first bytes go straight to the file, the last
// `tail` bytes stay in a ring in memory, and what lies between is dropped once the output passes the
// cap. Memory stays at the ring's size whatever the child prints.
class CappedLog {
public:
  // Write into `fd` (owned by the caller) at most about `max_bytes`, keeping the output's end.
  CappedLog(int fd, std::uint64_t max_bytes);

  // Take the next `size` bytes of the child's output.
  void write(const char* data, std::size_t size);

  // Write what the ring holds, after a marker saying how much was cut when anything was. Call once.
  void finish();

  // Return how many bytes of output were dropped (0 when the whole output fit).
  std::uint64_t dropped() const { return m_dropped; }

private:
  void write_out(const char* data, std::size_t size);

  int m_fd;
  std::uint64_t m_max;
  std::uint64_t m_head_left;    // bytes still going straight to the file
  std::vector<char> m_ring;     // the last bytes seen once the head is full
  std::size_t m_ring_start = 0;
  std::size_t m_ring_used = 0;
  std::uint64_t m_dropped = 0;
};

// A child's stdout and stderr: each a pipe whose read end we drain into a CappedLog over its file
// (or /dev/null, no pipe, for an empty path). One pipe serves both when they name the same file.
class ChildOutput {
public:
  // Create or truncate the two files and make the pipes. Throw Error (environment) naming the file when
  // one cannot be created.
  ChildOutput(const std::string& stdout_path, const std::string& stderr_path, std::uint64_t max_bytes);
  ~ChildOutput();
  ChildOutput(const ChildOutput&) = delete;
  ChildOutput& operator=(const ChildOutput&) = delete;

  // Return the descriptor the child writes its stdout (stderr) to.
  int child_stdout() const { return m_child_out; }
  int child_stderr() const { return m_child_err; }

  // Close our copies of the child's write ends (after the fork), so the pipes end with the child.
  void close_child_ends();

  // Wait up to `timeout` for output or for `wake_fd` (-1: none) to become readable, moving the output
  // that arrived into the logs.
  void pump(int wake_fd, std::chrono::milliseconds timeout);

  // Move what the pipes still hold (not waiting for writers that live on), then write the logs' tails.
  // Return the output bytes cut by the cap. Call once.
  std::uint64_t finish();

private:
  struct Stream;
  // Move up to 1 MiB from the pipe into the log; true when there may be more to read right now.
  bool drain(Stream& stream);
  std::vector<std::unique_ptr<Stream>> m_streams;
  int m_child_out = -1;
  int m_child_err = -1;
  UniqueFd m_null;
};

}  // namespace envbisect
