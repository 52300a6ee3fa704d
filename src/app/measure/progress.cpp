#include "app/measure/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "stats/quantity.hpp"

namespace envbisect {

namespace {

std::string short_hash(const std::string& hash) { return hash.substr(0, 8); }

std::string clock_text(double seconds) {
  const long total = std::lround(std::max(0.0, seconds));
  char text[32];
  if (total >= 3600) {
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", total / 3600, total / 60 % 60, total % 60);
  } else {
    std::snprintf(text, sizeof text, "%ld:%02ld", total / 60, total % 60);
  }
  return text;
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, seconds < 10 ? "%.2f s" : "%.1f s", seconds);
  return text;
}

int terminal_width() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 10) {
    return size.ws_col;
  }
  return 80;
}

// Every write to std::cout passes here: the status line is cleared first, so output never lands on it.
class ClearingBuf : public std::streambuf {
public:
  ClearingBuf(Progress& progress, std::streambuf* inner) : m_progress(progress), m_inner(inner) {}

protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) {
      return traits_type::not_eof(c);
    }
    const char ch = static_cast<char>(c);
    return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
  }
  std::streamsize xsputn(const char* text, std::streamsize count) override {
    std::streamsize written = 0;
    m_progress.hide_for_stdout(count > 0 && text[count - 1] == '\n');
    written = m_inner->sputn(text, count);
    if (count > 0 && text[count - 1] == '\n') {
      m_inner->pubsync();  // the whole line is out before the status line comes back
    }
    return written;
  }
  int sync() override { return m_inner->pubsync(); }

private:
  Progress& m_progress;
  std::streambuf* m_inner;
};

// Swallows everything.
class NullBuf : public std::streambuf {
protected:
  int overflow(int c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize count) override { return count; }
};

}  // namespace

MutedStdout::MutedStdout(bool active) {
  if (active) {
    std::cout.flush();
    m_null = std::make_unique<NullBuf>();
    m_saved = std::cout.rdbuf(m_null.get());
  }
}

MutedStdout::~MutedStdout() { restore(); }

void MutedStdout::restore() {
  if (m_saved != nullptr) {
    std::cout.rdbuf(m_saved);
    m_saved = nullptr;
  }
}

ProgressStyle choose_progress_style(bool quiet, bool verbose) {
  if (quiet) {
    return ProgressStyle::quiet;
  }
  return ::isatty(STDERR_FILENO) != 0 && !verbose ? ProgressStyle::status_line : ProgressStyle::lines;
}

Progress::Progress(std::ostream& out, ProgressStyle style) : m_out(out), m_style(style) {
  if (m_style == ProgressStyle::status_line) {
    m_cout_buf = std::cout.rdbuf();
    m_hook = std::make_unique<ClearingBuf>(*this, m_cout_buf);
    std::cout.rdbuf(m_hook.get());
    m_ticker = std::thread([this] { tick(); });
  }
}

Progress::~Progress() {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  if (m_ticker.joinable()) {
    m_ticker.join();
  }
  if (m_cout_buf != nullptr) {
    std::cout.flush();
    std::cout.rdbuf(m_cout_buf);
  }
  if (m_shown) {
    m_out << "\r\033[K" << std::flush;
  }
}

void Progress::tick() {
  std::unique_lock<std::mutex> lock(m_mutex);
  while (!m_stop) {
    draw();
    m_wake.wait_for(lock, std::chrono::milliseconds(200));
  }
}

void Progress::hide_for_stdout(bool ends_line) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  if (m_shown) {
    m_out << "\r\033[K" << std::flush;
    m_shown = false;
  }
  m_stdout_mid_line = !ends_line;
}

std::string Progress::elapsed_text() const {
  return clock_text(std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count());
}

std::string Progress::eta_text() const {
  // From the measured run times: the decisions one pass of the search (isolating, then bisecting the
  // ordered axes) may still need with one culprit, each its first runs. Only that is planned: other
  // stages (recheck, verification, probes), a search asked again and a count past the one-culprit
  // worst case get no ETA rather than a wrong one. An estimate, not a bound: a decision may need more
  // than its first runs.
  if (m_runs_done == 0 || m_worst_decisions == 0 || (m_phase != "anchors" && !planned_phase()) ||
      m_searching > m_worst_decisions) {
    return "";
  }
  const int left = (m_worst_decisions - m_searching) * m_runs_per_decision;
  return "search ETA ~" + clock_text(left * m_run_seconds / m_runs_done);
}

bool Progress::planned_phase() const { return m_phase == "isolate" || m_phase == "refine"; }

std::string Progress::name_of(const std::string& candidate_hash) const {
  const auto found = m_labels.find(candidate_hash);
  return found != m_labels.end() ? found->second : "candidate " + short_hash(candidate_hash);
}

void Progress::line(const std::string& text) {
  if (m_style == ProgressStyle::lines) {
    m_out << "envbisect: " << elapsed_text() << " " << text << "\n" << std::flush;
  }
}

void Progress::draw() {
  if (m_style != ProgressStyle::status_line || m_stdout_mid_line) {
    return;
  }
  std::string text = "[" + m_phase + "] " + m_doing;
  if (planned_phase() && m_worst_decisions > 0 && m_searching <= m_worst_decisions) {
    text += " | " + std::to_string(m_searching) + " of <=" + std::to_string(m_worst_decisions) + " search decisions";
  } else if (m_decisions > 0) {
    text += " | " + std::to_string(m_decisions) + (m_decisions == 1 ? " decision" : " decisions");
  }
  text += " | " + elapsed_text();
  const std::string eta = eta_text();
  if (!eta.empty()) {
    text += " | " + eta;
  }
  const auto width = static_cast<std::size_t>(terminal_width() - 1);
  if (text.size() > width) {
    text = text.substr(0, width);
  }
  m_out << "\r\033[K" << text << std::flush;
  m_shown = true;
}

void Progress::phase(const std::string& name) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  if (m_phase != name) {
    m_phase = name;
    line("phase: " + name);
    draw();
  }
}

void Progress::label(const std::string& candidate_hash, const std::string& text) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_labels[candidate_hash] = text;
}

void Progress::unit(const std::string& unit) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_unit = unit;
}

void Progress::expect(const std::string& candidate_hash, int runs) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_expected[candidate_hash] = runs;
}

void Progress::plan(int worst_decisions, int runs_per_decision) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_worst_decisions = worst_decisions;
  m_runs_per_decision = std::max(1, runs_per_decision);
}

void Progress::building(const std::string& env_hash) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_doing = "building environment " + short_hash(env_hash);
  draw();
}

void Progress::built(const std::string& env_hash, BuildEnd end, double seconds) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  line("environment " + short_hash(env_hash) +
       (end == BuildEnd::failed   ? " cannot be built"
        : end == BuildEnd::reused ? " reused (built earlier)"
                                  : " built in " + seconds_text(seconds)));
  draw();
}

void Progress::attempt_started(const std::string& candidate_hash, int index, int of) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_doing = name_of(candidate_hash) + " run " + std::to_string(index + 1) + "/" +
            std::to_string(std::max(of, m_expected[candidate_hash]));
  draw();
}

void Progress::attempt_finished(const std::string& candidate_hash, int index, int of, const RunResult& result) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  ++m_runs_done;
  m_run_seconds += result.wall_seconds;
  // A run that failed says so first, even when it printed a metric (a benchmark whose threads crashed
  // may still report the throughput of the others): the verdicts count it as failed.
  std::string outcome = result.status == RunStatus::ok && result.metric
                            ? "metric " + stats::with_unit(*result.metric, m_unit)
                            : std::string(to_string(result.status)) +
                                  (result.diagnosis.empty() ? "" : ": " + result.diagnosis) +
                                  (result.metric ? " (it printed metric " + stats::with_unit(*result.metric, m_unit) + ")"
                                                 : std::string());
  line(name_of(candidate_hash) + " run " + std::to_string(index + 1) + "/" +
       std::to_string(std::max(of, m_expected[candidate_hash])) + " finished in " +
       seconds_text(result.wall_seconds) + ": " + outcome);
  draw();
}

void Progress::decision(int n, const std::string& verdict, const std::string& label, int runs) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_decisions = n;
  if (planned_phase()) {
    ++m_searching;
  }
  line("decision " + std::to_string(n) + ": " + verdict + " " + label + " after " + std::to_string(runs) +
       (runs == 1 ? " run" : " runs"));
  draw();
}

void Progress::search_again() {
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_searching = 0;
  draw();
}

void Progress::note(const std::string& text) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  line(text);
}

}  // namespace envbisect
