#include "app/measure/diagnosis.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <csignal>
#include <cctype>
#include <cstring>
#include <sstream>
#include <utility>

#include "util/strings.hpp"

namespace envbisect {

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

constexpr std::array<std::pair<FailureCause, const char*>, 9> k_names = {{
    {FailureCause::none, ""},
    {FailureCause::build_failed, "build_failed"},
    {FailureCause::not_started, "not_started"},
    {FailureCause::timed_out, "timed_out"},
    {FailureCause::crashed, "crashed"},
    {FailureCause::exited_nonzero, "exited_nonzero"},
    {FailureCause::no_json, "no_json"},
    {FailureCause::no_metric_key, "no_metric_key"},
    {FailureCause::declared_skip, "declared_skip"},
}};

// A line as a message quotes it: trimmed, at most 200 characters.
std::string quoted(std::string line) {
  if (line.size() > 200) {
    line = line.substr(0, 197) + "...";
  }
  return line.empty() ? "(nothing)" : "\"" + line + "\"";
}

constexpr const char* k_build_failed = "the environment could not be built: ";

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

// The last line of `text`, quoted.
std::string quoted_line(const std::string& text) {
  const std::vector<std::string> lines = split_lines(trim(text));
  return quoted(lines.empty() ? "" : trim(lines.back()));
}

// The stderr line that names the error, else nothing: "; last stderr line: ..." when it is the last,
// "; stderr: ..." when a later line (a traceback frame, a thread dump) was passed over.
std::string stderr_clause(const std::string& stderr_tail, const std::string& error_class = "") {
  const std::vector<std::string> lines = split_lines(trim(stderr_tail));
  if (lines.empty()) {
    return "";
  }
  const std::string line = telling_stderr_line(stderr_tail, error_class);
  return (line == trim(lines.back()) ? "; last stderr line: " : "; stderr: ") + quoted(line);
}

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.';
}

// "RuntimeError: ...", "torch._dynamo.exc.BackendCompilerFailed: ...", "KeyboardInterrupt",
// "CUDA error: ...", "error: ...", "Segmentation fault", "Fatal Python error: ...".
bool reads_as_error(const std::string& line) {
  std::size_t word = 0;
  while (word < line.size() && is_word_char(line[word])) {
    ++word;
  }
  // The dotted name's last part, capitalised, ending as Python's exception names do, then ":" or nothing.
  const std::string head = line.substr(0, word);
  const std::size_t dot = head.rfind('.');
  const std::string name = dot == std::string::npos ? head : head.substr(dot + 1);
  bool exception_name = !name.empty() && std::isupper(static_cast<unsigned char>(name[0])) != 0 &&
                        (word == line.size() || line[word] == ':');
  if (exception_name) {
    exception_name = false;
    for (const char* suffix : {"Error", "Exception", "Interrupt", "Failed", "Exit"}) {
      exception_name = exception_name || name.ends_with(suffix);
    }
  }
  if (exception_name) {
    return true;
  }
  const std::string lower = ascii_lower(line);
  for (const char* marker : {"error:", "fatal:", "segmentation fault", "aborted", "killed", "out of memory"}) {
    const std::size_t at = lower.find(marker);
    // A marker near the start ("CUDA error: ...", "fatal: ..."), not in the middle of a log line.
    if (at != std::string::npos && at < 40) {
      return true;
    }
  }
  return false;
}

// A line faulthandler or a traceback prints around the error: a frame, its source line is not
// recognisable, but the frame and the thread headers are.
bool is_frame_line(const std::string& line) {
  return starts_with(line, "File \"") || starts_with(line, "Traceback (most recent call last)") ||
         starts_with(line, "Thread 0x") || starts_with(line, "Current thread 0x") ||
         starts_with(line, "Stack (most recent call first)") || starts_with(line, "During handling of") ||
         starts_with(line, "The above exception was") || line == "^" || line.find_first_not_of("^~ ") == std::string::npos;
}

}  // namespace

std::string telling_stderr_line(const std::string& text, const std::string& error_class) {
  std::vector<std::string> lines;
  for (const std::string& raw : split_lines(text)) {
    if (std::string line = trim(raw); !line.empty()) {
      lines.push_back(std::move(line));
    }
  }
  if (lines.empty()) {
    return "";
  }
  const std::string hint = trim(error_class);
  if (!hint.empty()) {
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
      if (starts_with(*it, hint) && (it->size() == hint.size() || (*it)[hint.size()] == ':')) {
        return *it;
      }
    }
  }
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (reads_as_error(*it)) {
      return *it;
    }
  }
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (!is_frame_line(*it)) {
      return *it;
    }
  }
  return lines.back();
}

std::string to_string(FailureCause cause) {
  for (const auto& [value, name] : k_names) {
    if (value == cause) {
      return name;
    }
  }
  return "";
}

FailureCause failure_cause_from(const std::string& name) {
  for (const auto& [value, known] : k_names) {
    if (!name.empty() && name == known) {
      return value;
    }
  }
  return FailureCause::none;
}

Diagnosis diagnose_attempt(const ProcessResult& process, const BenchReport& report, const std::string& stdout_tail,
                           const std::string& stderr_tail, const Recipe& recipe) {
  // In the order a person would check: did it start, did it end by itself, how did it exit, what did it print.
  if (!process.spawned) {
    return {FailureCause::not_started, "the benchmark did not start: " + process.spawn_error};
  }
  if (process.timed_out) {
    return {FailureCause::timed_out, "timed out after the recipe's timeout of " + seconds_text(recipe.timeout_s) +
                                         stderr_clause(stderr_tail)};
  }
  if (process.signal != 0) {
    const char* name = strsignal(process.signal);
    return {FailureCause::crashed, "crashed: killed by signal " + std::to_string(process.signal) +
                                       (name != nullptr ? " (" + std::string(name) + ")" : "") +
                                       stderr_clause(stderr_tail)};
  }
  if (process.exit_code == 125) {
    return {FailureCause::declared_skip,
            "the benchmark exited 125 (skip: it says it cannot test this candidate)" + stderr_clause(stderr_tail)};
  }
  if (process.exit_code != 0) {
    const std::string error = report.error_class.empty() ? "" : "; error class \"" + report.error_class + "\"";
    return {FailureCause::exited_nonzero,
            "exited " + std::to_string(process.exit_code) + error + stderr_clause(stderr_tail, report.error_class)};
  }
  if (recipe.pass_fail || report.metric) {
    return {};
  }
  if (!report.found_json) {
    return {FailureCause::no_json, "ran and exited 0 but printed no JSON object line on stdout (the recipe reads \"" +
                                       recipe.metric + "\" from the last one); last stdout line: " +
                                       quoted_line(stdout_tail)};
  }
  const bool has_key = std::find(report.keys.begin(), report.keys.end(), recipe.metric) != report.keys.end();
  return {FailureCause::no_metric_key,
          std::string("printed JSON ") + (has_key ? "whose \"" + recipe.metric + "\" is not a finite number"
                                                  : "without the recipe's metric key \"" + recipe.metric + "\"") +
              "; its keys: " + (report.keys.empty() ? "(none)" : join(report.keys, ", ")) +
              "; last JSON line: " + quoted_line(report.json_line)};
}

Diagnosis diagnose_build(const std::string& reason) {
  return {FailureCause::build_failed, k_build_failed + reason};
}

std::optional<std::string> anchors_input_error(const std::vector<RunResult>& good, const std::vector<RunResult>& bad) {
  // An anchor that cannot be built is an input mistake: neither end of the bisection exists.
  for (const auto& [name, runs] : {std::pair{"good", &good}, std::pair{"bad", &bad}}) {
    for (const RunResult& run : *runs) {
      if (run.cause == to_string(FailureCause::build_failed)) {
        const std::string reason = starts_with(run.diagnosis, k_build_failed)
                                       ? run.diagnosis.substr(std::strlen(k_build_failed))
                                       : run.diagnosis;
        return std::string("the ") + name + " anchor's environment could not be built: " + reason;
      }
    }
  }
  // Every run of both anchors failing the same way says nothing about the differences: the recipe
  // (or the benchmark) is wrong. A declared skip is the benchmark's own word and stays a skip.
  if (good.empty() || bad.empty()) {
    return std::nullopt;
  }
  const std::string cause = good.front().cause;
  if (cause.empty() || cause == to_string(FailureCause::declared_skip)) {
    return std::nullopt;
  }
  for (const auto* runs : {&good, &bad}) {
    for (const RunResult& run : *runs) {
      if (run.status == RunStatus::ok || run.cause != cause) {
        return std::nullopt;
      }
    }
  }
  const std::size_t total = good.size() + bad.size();
  return "every run of both anchors (" + std::to_string(total) + " of " + std::to_string(total) +
         ") failed the same way, so no difference can be measured: " + good.front().diagnosis +
         " (fix the recipe or the benchmark, then start a new run)";
}

std::string anchors_input_hint(const std::vector<RunResult>& good, const std::string& metric) {
  if (good.empty()) {
    return "";
  }
  const RunResult& first = good.front();
  std::string hint;
  if (first.cause == to_string(FailureCause::no_metric_key) || first.cause == to_string(FailureCause::no_json)) {
    hint = "the recipe's \"metric\" key reads \"" + metric + "\" from the last JSON line on stdout; name the key the "
           "benchmark prints, or make it print that one";
  } else if (first.cause == to_string(FailureCause::build_failed)) {
    return "";
  } else {
    hint = "run the benchmark by hand as the log shows it";
  }
  if (!first.stdout_path.empty() || !first.stderr_path.empty()) {
    hint += "; the first run's logs: " + first.stdout_path + (first.stderr_path.empty() ? "" : ", " + first.stderr_path);
  }
  return hint;
}

}  // namespace envbisect
