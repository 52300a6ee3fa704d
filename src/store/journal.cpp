#include "store/journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "util/error.hpp"
#include "util/fs.hpp"
#include "store/run_folder.hpp"
#include "util/redact.hpp"

namespace envbisect {

namespace {

enum class Kind { string, integer, number, boolean, object, array, number_or_null };

// The fields the readers of a journal take as one type (record.value() throws on another), as every
// writer writes them. A hand-edited record with another type is bad input naming its line and field,
// not an internal error halfway through a replay or resume.
constexpr std::pair<const char*, Kind> k_field_kinds[] = {
    {"type", Kind::string},          {"candidate", Kind::string},   {"status", Kind::string},
    {"error_class", Kind::string},   {"stdout", Kind::string},      {"stderr", Kind::string},
    {"cause", Kind::string},         {"diagnosis", Kind::string},   {"recipe_hash", Kind::string},
    {"env_hash", Kind::string},      {"stage", Kind::string},       {"label", Kind::string},
    {"verdict", Kind::string},       {"attempt", Kind::integer},    {"exit_code", Kind::integer},
    {"signal", Kind::integer},       {"n", Kind::integer},          {"runs", Kind::integer},
    {"anchor_runs", Kind::integer},  {"decisions", Kind::integer},  {"good_runs", Kind::integer},
    {"wall_s", Kind::number},        {"seconds", Kind::number},     {"t", Kind::number},
    {"metric", Kind::number_or_null}, {"applied", Kind::array},     {"resumed", Kind::boolean},
    {"result", Kind::object},        {"preflight", Kind::object},   {"run", Kind::object},
};

bool fits(const nlohmann::json& value, Kind kind) {
  switch (kind) {
    case Kind::string: return value.is_string();
    case Kind::integer: return value.is_number_integer();
    case Kind::number: return value.is_number();
    case Kind::boolean: return value.is_boolean();
    case Kind::object: return value.is_object();
    case Kind::array: return value.is_array();
    case Kind::number_or_null: return value.is_number() || value.is_null();
  }
  return false;
}

const char* kind_words(Kind kind) {
  switch (kind) {
    case Kind::string: return "a string";
    case Kind::integer: return "an integer";
    case Kind::number: return "a number";
    case Kind::boolean: return "true or false";
    case Kind::object: return "an object";
    case Kind::array: return "an array";
    case Kind::number_or_null: return "a number or null";
  }
  return "";
}

// Throw Error (bad input) naming `path`:`line` and the field when a known field has another type.
void check_field_kinds(const nlohmann::json& record, const std::string& path, std::size_t line) {
  for (const auto& [field, kind] : k_field_kinds) {
    const auto it = record.find(field);
    if (it != record.end() && !fits(*it, kind)) {
      throw Error(path + ":" + std::to_string(line) + ": /" + field + ": expected " + kind_words(kind) + ", got " +
                      it->dump().substr(0, 60) + " (a journal record edited by hand?)",
                  ExitCode::bad_input);
    }
  }
}

}  // namespace

JournalContents read_journal(const std::string& path) {
  // Never through a link, only a regular file: a journal replaced by a link to another file is refused.
  return parse_journal(read_run_path(path), path);
}

JournalContents parse_journal(const std::string& text, const std::string& path) {
  JournalContents contents;
  std::size_t begin = 0;
  std::size_t line_number = 0;
  std::size_t first_bad_line = 0;  // the first unreadable line since the last whole record
  while (begin < text.size()) {
    const std::size_t newline = text.find('\n', begin);
    ++line_number;
    const std::size_t end = newline == std::string::npos ? text.size() : newline;
    const std::string_view line(text.data() + begin, end - begin);
    begin = newline == std::string::npos ? text.size() : newline + 1;
    if (line.empty()) {
      continue;
    }
    nlohmann::json record = nlohmann::json::parse(line, nullptr, false);
    // Without its newline even a parseable line is unfinished: the writer died before the record ended.
    if (record.is_discarded() || !record.is_object() || newline == std::string::npos) {
      first_bad_line = first_bad_line == 0 ? line_number : first_bad_line;
      continue;
    }
    if (first_bad_line != 0) {
      // A whole record after an unreadable line: the damage is inside the journal, not a torn tail.
      throw Error(path + ":" + std::to_string(first_bad_line) +
                      ": malformed journal record followed by whole records (the journal is damaged, not torn)",
                  ExitCode::bad_input);
    }
    check_field_kinds(record, path, line_number);
    contents.records.push_back(std::move(record));
    contents.whole_bytes = begin;
  }
  // At this point everything after whole_bytes is blank lines or a torn tail.
  contents.tail_bytes = text.size() - contents.whole_bytes;
  contents.torn_tail = first_bad_line != 0;
  contents.tail_line = first_bad_line;
  return contents;
}

void cut_torn_tail(const std::string& path, const JournalContents& contents) {
  if (contents.tail_bytes == 0) {
    return;
  }
  // Through a descriptor of the regular file itself, never a path a link could redirect.
  const UniqueFd fd(open_run_path(path, O_WRONLY));
  if (!fd.valid() || ::ftruncate(fd.get(), static_cast<off_t>(contents.whole_bytes)) != 0) {
    const int error = errno;
    throw Error(path + ": cannot cut the torn journal tail: " + std::strerror(error), ExitCode::environment);
  }
}

Journal::Journal(const std::string& path) : m_path(path) {
  // O_APPEND: every record lands at the end even if another writer slipped past the run folder's lock.
  // O_NOFOLLOW beneath its folder: a link (dangling or not) in its place is refused, never written through.
  m_fd.reset(open_run_path(path, O_WRONLY | O_CREAT | O_APPEND));
  // The next record must start on a line of its own, right after the last whole record.
  cut_torn_tail(path, read_journal(path));
}

void Journal::append(const nlohmann::json& record) {
  // Secrets never reach the disk: the journal feeds every report, and run directories get shared.
  const std::string line =
      redact_json(record).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  const std::lock_guard<std::mutex> lock(m_mutex);
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(m_fd.get(), line.data() + done, line.size() - done);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw Error(m_path + ": journal write failed: " + std::strerror(errno), ExitCode::environment);
    }
    done += static_cast<std::size_t>(n);
  }
  ::fdatasync(m_fd.get());
}

}  // namespace envbisect
