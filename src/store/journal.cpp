#include "store/journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/redact.hpp"

namespace envbisect {

JournalContents read_journal(const std::string& path) {
  JournalContents contents;
  if (!path_exists(path)) {
    return contents;
  }
  std::string text = read_file(path);
  std::size_t begin = 0;
  std::size_t line_number = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    ++line_number;
    if (end == std::string::npos) {
      // No newline: the writer died mid-record. Everything before it is intact.
      contents.torn_tail = true;
      break;
    }
    std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    if (line.empty()) {
      continue;
    }
    nlohmann::json record = nlohmann::json::parse(line, nullptr, false);
    if (record.is_discarded() || !record.is_object()) {
      if (begin >= text.size()) {
        contents.torn_tail = true;
        break;
      }
      throw Error(path + ":" + std::to_string(line_number) + ": malformed journal record", ExitCode::bad_input);
    }
    contents.records.push_back(std::move(record));
  }
  return contents;
}

Journal::Journal(const std::string& path) : m_path(path) {
  m_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0) {
    throw Error(path + ": cannot open journal: " + std::strerror(errno), ExitCode::environment);
  }
  // Cut a torn tail so the next record starts on a line of its own.
  std::string text = read_file(path);
  std::size_t keep = text.rfind('\n');
  keep = keep == std::string::npos ? 0 : keep + 1;
  if (keep != text.size() && ::ftruncate(m_fd, static_cast<off_t>(keep)) != 0) {
    throw Error(path + ": cannot cut torn journal line: " + std::strerror(errno), ExitCode::environment);
  }
  ::lseek(m_fd, 0, SEEK_END);
}

Journal::~Journal() {
  if (m_fd >= 0) {
    ::close(m_fd);
  }
}

void Journal::append(const nlohmann::json& record) {
  // Secrets never reach the disk: the journal feeds every report, and run directories get shared.
  std::string line = redact_json(record).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(m_fd, line.data() + done, line.size() - done);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw Error(m_path + ": journal write failed: " + std::strerror(errno), ExitCode::environment);
    }
    done += static_cast<std::size_t>(n);
  }
  ::fdatasync(m_fd);
}

}  // namespace envbisect
