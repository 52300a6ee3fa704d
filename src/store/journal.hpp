#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/fd.hpp"

namespace envbisect {

// The records of a journal file, and what follows the last whole record (a crash mid-write).
struct JournalContents {
  std::vector<nlohmann::json> records;
  bool torn_tail = false;        // bytes follow the last whole record: a partial line, garbage, NULs
  std::size_t whole_bytes = 0;   // length of the prefix that holds every whole record
  std::size_t tail_bytes = 0;    // length of what follows it
  std::size_t tail_line = 0;     // line number (from 1) where the torn tail starts; 0 when none
};

// Read every whole record of the journal at `path` (none when it does not exist). A whole record is a
// JSON object on a line ended by '\n'. Whatever follows the last one (a partial line, garbage lines,
// NUL bytes) is a torn tail: left out and reported. An unreadable line before a whole record throws
// Error (bad_input) naming the file and line: that is damage, not a crash mid-write. The file is
// opened beneath its folder without following links (store/run_folder.hpp): a link or anything but a
// regular file throws Error (bad_input) naming it.
JournalContents read_journal(const std::string& path);

// Return the records of journal text `text` read from `path` (named in errors), as read_journal does.
JournalContents parse_journal(const std::string& text, const std::string& path);

// Cut the torn tail that `contents` (read from `path` by read_journal) reports, so the next record
// starts right after the last whole one. Throw Error (environment) when the file cannot be truncated.
void cut_torn_tail(const std::string& path, const JournalContents& contents);

// An append-only JSON-lines journal: one record per line, fsynced per record, never rewritten.
class Journal {
public:
  // Open `path` for appending with O_APPEND (created when missing), never through a symbolic link and
  // only when it is a regular file (Error bad_input naming it otherwise). A torn tail is cut off first
  // (see read_journal); damage before the last whole record throws Error (bad_input).
  explicit Journal(const std::string& path);
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Append one record as a single line with one write(2) and fdatasync it before returning; safe to
  // call from several threads.
  void append(const nlohmann::json& record);

  // Return the path of the journal file.
  const std::string& path() const { return m_path; }

private:
  std::string m_path;
  UniqueFd m_fd;
  std::mutex m_mutex;
};

}  // namespace envbisect
