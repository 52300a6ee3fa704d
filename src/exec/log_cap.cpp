#include "exec/log_cap.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/error.hpp"

namespace envbisect {

namespace {

// The end of the output kept past the cap: the benchmark's verdict lines are at the end.
constexpr std::uint64_t k_max_tail = 1ull << 20;

}  // namespace

CappedLog::CappedLog(int fd, std::uint64_t max_bytes) : m_fd(fd), m_max(max_bytes) {
  const std::uint64_t tail = std::min(k_max_tail, max_bytes / 2);
  m_head_left = max_bytes - tail;
  m_ring.resize(static_cast<std::size_t>(tail));
}

void CappedLog::write_out(const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(m_fd, data, size);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return;  // a full disk loses log bytes, never the attempt
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

void CappedLog::write(const char* data, std::size_t size) {
  const std::size_t head = static_cast<std::size_t>(std::min<std::uint64_t>(m_head_left, size));
  write_out(data, head);
  m_head_left -= head;
  data += head;
  size -= head;
  const std::size_t capacity = m_ring.size();
  if (size == 0) {
    return;
  }
  if (capacity == 0) {
    m_dropped += size;
    return;
  }
  // Only the ring's worth of the newest bytes can survive; older ones are dropped as they pass.
  if (size > capacity) {
    m_dropped += m_ring_used + (size - capacity);
    m_ring_start = 0;
    m_ring_used = 0;
    data += size - capacity;
    size = capacity;
  }
  const std::size_t overflow = m_ring_used + size > capacity ? m_ring_used + size - capacity : 0;
  m_dropped += overflow;
  m_ring_start = (m_ring_start + overflow) % capacity;
  m_ring_used -= overflow;
  std::size_t at = (m_ring_start + m_ring_used) % capacity;
  while (size > 0) {
    const std::size_t chunk = std::min(size, capacity - at);
    std::copy(data, data + chunk, m_ring.begin() + static_cast<std::ptrdiff_t>(at));
    data += chunk;
    size -= chunk;
    m_ring_used += chunk;
    at = (at + chunk) % capacity;
  }
}

void CappedLog::finish() {
  if (m_dropped > 0) {
    const std::string marker = "\n[envbisect: " + std::to_string(m_dropped) +
                               " bytes of output cut here; each log keeps at most " + std::to_string(m_max) +
                               " bytes (--max-log-mb): its beginning and its end]\n";
    write_out(marker.data(), marker.size());
  }
  const std::size_t capacity = m_ring.size();
  const std::size_t first = std::min(m_ring_used, capacity - m_ring_start);
  write_out(m_ring.data() + m_ring_start, first);
  write_out(m_ring.data(), m_ring_used - first);
  m_ring_used = 0;
}

// One pipe from the child into one log file.
struct ChildOutput::Stream {
  UniqueFd read_fd;
  UniqueFd write_fd;  // the child's end, closed here once the child has it
  UniqueFd file_fd;
  CappedLog log;
  bool open = true;
  Stream(UniqueFd file, std::uint64_t max_bytes) : file_fd(std::move(file)), log(file_fd.get(), max_bytes) {}
};

ChildOutput::ChildOutput(const std::string& stdout_path, const std::string& stderr_path, std::uint64_t max_bytes) {
  auto open_stream = [&](const std::string& path) {
    UniqueFd file(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!file.valid()) {
      throw Error("cannot open " + path + " for a child's output: " + std::strerror(errno), ExitCode::environment);
    }
    auto stream = std::make_unique<Stream>(std::move(file), max_bytes);
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0) {
      throw Error("cannot make a pipe for " + path + ": " + std::strerror(errno), ExitCode::environment);
    }
    stream->read_fd.reset(ends[0]);
    stream->write_fd.reset(ends[1]);
    ::fcntl(stream->read_fd.get(), F_SETFL, O_NONBLOCK);
    m_streams.push_back(std::move(stream));
    return m_streams.back()->write_fd.get();
  };
  auto null_fd = [&] {
    if (!m_null.valid()) {
      m_null.reset(::open("/dev/null", O_WRONLY | O_CLOEXEC));
      if (!m_null.valid()) {
        throw Error(std::string("cannot open /dev/null: ") + std::strerror(errno), ExitCode::environment);
      }
    }
    return m_null.get();
  };
  m_child_out = stdout_path.empty() ? null_fd() : open_stream(stdout_path);
  m_child_err = stderr_path.empty()         ? null_fd()
                : stderr_path == stdout_path ? m_child_out
                                             : open_stream(stderr_path);
}

ChildOutput::~ChildOutput() = default;

void ChildOutput::close_child_ends() {
  for (const auto& stream : m_streams) {
    stream->write_fd.reset();
  }
}

bool ChildOutput::drain(Stream& stream) {
  char buffer[65536];
  for (int reads = 0; reads < 16; ++reads) {
    if (!stream.open) {
      return false;
    }
    const ssize_t got = ::read(stream.read_fd.get(), buffer, sizeof buffer);
    if (got > 0) {
      stream.log.write(buffer, static_cast<std::size_t>(got));
    } else if (got == 0) {
      stream.open = false;  // every writer is gone
    } else if (errno != EINTR) {
      return false;  // EAGAIN: nothing more for now
    }
  }
  return true;
}

void ChildOutput::pump(int wake_fd, std::chrono::milliseconds timeout) {
  std::vector<pollfd> entries;
  if (wake_fd >= 0) {
    entries.push_back(pollfd{wake_fd, POLLIN, 0});
  }
  for (const auto& stream : m_streams) {
    if (stream->open) {
      entries.push_back(pollfd{stream->read_fd.get(), POLLIN, 0});
    }
  }
  if (entries.empty()) {
    ::usleep(static_cast<useconds_t>(std::min<long long>(timeout.count(), 5) * 1000));
    return;
  }
  ::poll(entries.data(), entries.size(), static_cast<int>(timeout.count()));
  for (const auto& stream : m_streams) {
    drain(*stream);
  }
}

std::uint64_t ChildOutput::finish() {
  std::uint64_t cut = 0;
  for (const auto& stream : m_streams) {
    // What is in the pipe now; writers still alive past the group kill (a daemon in a group of its
    // own) are not waited for.
    for (int round = 0; round < 64 && drain(*stream); ++round) {
    }
    stream->log.finish();
    cut += stream->log.dropped();
  }
  return cut;
}

}  // namespace envbisect
