#pragma once

#include <unistd.h>

namespace envbisect {

// Owns one open file descriptor and closes it when it goes out of scope, so that no error path
// leaks one; -1 owns nothing. Movable, not copyable.
class UniqueFd {
public:
  // Own nothing.
  UniqueFd() noexcept = default;
  // Own `fd` (-1: nothing), as returned by open(2), openat(2), dup(2) and the like.
  explicit UniqueFd(int fd) noexcept : m_fd(fd) {}
  // Close the descriptor owned, if any.
  ~UniqueFd() { reset(); }
  // Take the descriptor `other` owns; `other` owns nothing after.
  UniqueFd(UniqueFd&& other) noexcept : m_fd(other.release()) {}
  // Close the descriptor owned, then take the one `other` owns.
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      reset(other.release());
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  // Return the descriptor, still owned (-1 when none).
  int get() const noexcept { return m_fd; }
  // Return whether a descriptor is owned.
  bool valid() const noexcept { return m_fd >= 0; }
  // Give up the descriptor without closing it and return it (-1 when none).
  int release() noexcept {
    const int fd = m_fd;
    m_fd = -1;
    return fd;
  }
  // Close the descriptor owned, if any, and own `fd` instead.
  void reset(int fd = -1) noexcept {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
    m_fd = fd;
  }
  // Close the descriptor now and return what close(2) returned (0 when none was owned): for a file
  // just written, whose close may report a failed write.
  int close() noexcept { return m_fd >= 0 ? ::close(release()) : 0; }

private:
  int m_fd = -1;
};

}  // namespace envbisect
