#include "report/load.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "report/render.hpp"
#include "store/journal.hpp"
#include "store/run_folder.hpp"
#include "util/error.hpp"
#include "util/fd.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"

namespace envbisect::report {

using nlohmann::json;

namespace {

// The tail of a log file: enough for an excerpt, bounded for a benchmark that printed megabytes.
constexpr std::size_t k_excerpt_bytes = 8192;

// Where an attempt's logs may be read from: the run directory, opened beneath it with no symbolic link
// at any level (the folder itself may be named through one). A journal is only data: one that names
// /etc/passwd or /dev/zero, or a log planted as a link, must not put another file into a report.
class LogReader {
public:
  explicit LogReader(const std::string& run_dir) : m_dir(run_dir) {
    std::error_code error;
    m_root = std::filesystem::canonical(run_dir, error).string();
  }

  // Return the last k_excerpt_bytes of the regular file at `path` when it lies inside the run
  // directory and no link leads to it; nothing (and a note, for a file outside it, a link or not a
  // regular file) otherwise.
  std::optional<std::string> tail(const std::string& path) {
    if (path.empty() || m_root.empty()) {
      return std::nullopt;
    }
    const std::string normal = std::filesystem::path(path).lexically_normal().string();
    std::string relative;
    for (const std::string& root : {m_dir, m_root}) {
      if (normal.size() > root.size() + 1 && normal.compare(0, root.size() + 1, root + "/") == 0) {
        relative = normal.substr(root.size() + 1);
        break;
      }
    }
    std::error_code error;
    if (relative.empty()) {
      if (std::filesystem::exists(path, error)) {
        refuse(path, "lies outside the run directory");
      }
      return std::nullopt;  // or gone: the report says the logs are no longer there
    }
    UniqueFd fd;
    try {
      fd.reset(open_run_beneath(m_dir, relative, O_RDONLY));
    } catch (const Error& refused) {
      // A refusal is a note of the report, not its end.
      const bool link = std::string_view(refused.what()).find("symbolic link") != std::string_view::npos;
      refuse(path, link ? "is or passes through a symbolic link" : "is not a regular file");
      return std::nullopt;
    }
    if (!fd.valid()) {
      return std::nullopt;
    }
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0) {
      return std::nullopt;
    }
    // Read from the end: a 500 MB log costs one excerpt.
    const off_t start = info.st_size > static_cast<off_t>(k_excerpt_bytes) ? info.st_size - static_cast<off_t>(k_excerpt_bytes) : 0;
    std::string buffer(k_excerpt_bytes, '\0');
    const ssize_t n = ::pread(fd.get(), buffer.data(), buffer.size(), start);
    if (n < 0) {
      return std::nullopt;
    }
    buffer.resize(static_cast<std::size_t>(n));
    return buffer;
  }

  // Return one note per refused path, for the report's loader notes.
  const std::vector<std::string>& notes() const { return m_notes; }

private:
  void refuse(const std::string& path, const char* why) {
    if (m_refused.insert(path).second && m_notes.size() < 10) {
      m_notes.push_back("the journal names the log " + path + ", which " + why + ": not shown");
    }
  }

  std::string m_dir;   // the run directory as named (absolute)
  std::string m_root;  // and with every link resolved
  std::set<std::string> m_refused;
  std::vector<std::string> m_notes;
};

// The log of an attempt: where it lies in this run directory now, else where the journal says.
std::optional<std::string> attempt_log(const std::string& run_dir, LogReader& logs, const Attempt& attempt,
                                       const std::string& journaled, const char* file) {
  if (attempt.index >= 0 && attempt.candidate.size() >= 16) {
    std::string here = run_dir + "/attempts/" + attempt.candidate.substr(0, 16) + "/" + std::to_string(attempt.index) +
                       "/" + file;
    if (auto text = logs.tail(here)) {
      return text;
    }
  }
  return logs.tail(journaled);
}

void check_inputs(ReportModel& model) {
  for (InputFile& input : model.inputs) {
    if (input.path.empty()) {
      continue;
    }
    if (!path_exists(input.path)) {
      input.now = "missing";
      continue;
    }
    // The path comes from run.json: a fifo or /dev/zero there is noted, never read.
    std::string content;
    try {
      content = read_input_file(input.path);
    } catch (const Error& error) {
      input.now = std::string("not read: ") + error.what();
      continue;
    }
    std::string now = sha256_hex(content);
    input.now = now == input.sha256 ? "same" : "changed since the run (sha256 now " + now + ")";
  }
}

// The recipe as the run used it: read back only when the file still has the recorded hash.
void load_recipe(ReportModel& model) {
  for (const InputFile& input : model.inputs) {
    if (input.role != "recipe") {
      continue;
    }
    if (input.now != "same") {
      model.recipe.note = input.path + ": " + (input.now.empty() ? "not recorded" : input.now) +
                          "; the command template is not shown";
      return;
    }
    json doc = json::parse(read_input_file(input.path), nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      model.recipe.note = input.path + ": not valid JSON";
      return;
    }
    auto strings = [&](const char* key) {
      std::vector<std::string> out;
      if (doc.contains(key) && doc[key].is_array()) {
        for (const json& item : doc[key]) {
          out.push_back(item.is_string() ? item.get<std::string>() : item.dump());
        }
      }
      return out;
    };
    model.recipe.available = true;
    model.recipe.command = strings("command");
    model.recipe.warmup = strings("warmup");
    model.recipe.metric = doc.value("metric", "");
    model.recipe.direction = doc.value("direction", "higher");
    model.recipe.unit = doc.contains("unit") && doc["unit"].is_string() ? doc["unit"].get<std::string>() : "";
    model.recipe.seed = doc.contains("seed") && doc["seed"].is_number_integer() ? doc["seed"].get<int>() : 0;
    model.recipe.timeout_s = doc.contains("timeout_s") && doc["timeout_s"].is_number() ? doc["timeout_s"].get<double>()
                                                                                        : 600;
    if (doc.contains("env") && doc["env"].is_object()) {
      for (const auto& [name, value] : doc["env"].items()) {
        model.recipe.env[name] = value.is_string() ? value.get<std::string>() : value.dump();
      }
    }
  }
}

}  // namespace

ReportModel load_report_model(const std::string& run_dir_arg) {
  // Resolve the run directory; the journal is the one thing a report cannot do without.
  std::string run_dir = absolute_path(run_dir_arg, ".");
  while (run_dir.size() > 1 && run_dir.back() == '/') {
    run_dir.pop_back();
  }
  check_run_folder_trust(run_dir);
  std::string journal_path = run_dir + "/journal.jsonl";
  if (!path_exists(journal_path)) {
    throw Error(run_dir_arg + ": not a run directory (no journal.jsonl)", ExitCode::bad_input);
  }
  struct stat journal_info {};
  if (::stat(journal_path.c_str(), &journal_info) != 0 || !S_ISREG(journal_info.st_mode)) {
    throw Error(journal_path + ": not a regular file", ExitCode::bad_input);
  }
  JournalContents journal = read_journal(journal_path);
  json run_doc = json::object();
  std::vector<std::string> notes;
  if (path_exists(run_dir + "/run.json")) {
    try {
      run_doc = json::parse(read_input_file(run_dir + "/run.json"), nullptr, false);
    } catch (const Error&) {
      run_doc = nlohmann::json::value_t::discarded;
    }
    if (run_doc.is_discarded()) {
      run_doc = json::object();
      notes.push_back("run.json is not valid JSON; the inputs are those of the journal's first start record");
    }
  } else {
    notes.push_back("run.json is missing; the inputs are those of the journal's first start record");
  }

  // Every fact of the report comes from the journal; the loader only adds hashes and log tails.
  ReportModel model = model_from_journal(journal.records, run_doc, run_dir);
  model.notes = notes;
  if (journal.torn_tail) {
    model.notes.push_back("the journal's last record was torn (the run was killed mid-write) and is not shown");
  }
  model.journal_sha256 = sha256_hex(read_file(journal_path));
  check_inputs(model);
  load_recipe(model);
  LogReader logs(run_dir);
  for (const Attempt& attempt : model.attempts) {
    Excerpt excerpt;
    if (auto text = attempt_log(run_dir, logs, attempt, attempt.stdout_path, "stdout.txt")) {
      excerpt.stdout_tail = *text;
      excerpt.stdout_found = true;
    }
    if (auto text = attempt_log(run_dir, logs, attempt, attempt.stderr_path, "stderr.txt")) {
      excerpt.stderr_tail = *text;
      excerpt.stderr_found = true;
    }
    model.excerpts[excerpt_key(attempt)] = excerpt;
  }
  model.notes.insert(model.notes.end(), logs.notes().begin(), logs.notes().end());
  return model;
}

std::optional<Answer> write_reports(const std::string& run_dir) {
  try {
    ReportModel model = load_report_model(run_dir);
    write_file_atomic(model.run_dir + "/report.md", render_markdown(model));
    write_file_atomic(model.run_dir + "/report.html", render_html(model));
    write_file_atomic(model.run_dir + "/report.json", render_json(model));
    return answer_of(model);
  } catch (const Error& error) {
    spdlog::warn("the report could not be written: {}", error.what());
  } catch (const std::exception& error) {
    spdlog::warn("the report could not be written: {}", error.what());
  }
  return std::nullopt;
}

}  // namespace envbisect::report
