#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace envbisect {

// The records of a journal file, and whether its last line was torn (a crash mid-write).
struct JournalContents {
  std::vector<nlohmann::json> records;
  bool torn_tail = false;
};

// Read every complete record of the journal at `path` (none when it does not exist). A torn last line is
// dropped and reported; a malformed line elsewhere throws Error naming the file and line.
JournalContents read_journal(const std::string& path);

// An append-only JSON-lines journal: one record per line, fsynced per record, never rewritten.
class Journal {
public:
  // Open `path` for appending (created when missing). A torn last line is cut off first.
  explicit Journal(const std::string& path);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Append one record as a single line and fsync it before returning.
  void append(const nlohmann::json& record);

  // Return the path of the journal file.
  const std::string& path() const { return m_path; }

private:
  std::string m_path;
  int m_fd = -1;
};

}  // namespace envbisect
