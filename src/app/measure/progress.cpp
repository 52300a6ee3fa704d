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
    m_progress.hide_for_stdout(count > 0 && text[count - 1] == '\n' ? Progress::StdoutLine::ended
                                                                     : Progress::StdoutLine::open);
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

// Decisions a run makes after its search, as a prior until they are counted: re-checking the cause and
// each of its members, verifying it both ways, and the thread/cache probes (the incident demo: 4 checks
// and 5 probe decisions). A run without probes finishes early, never late, against it.
constexpr int k_after_search_decisions = 9;

}  // namespace

std::string status_line_text(const std::string& elapsed, const std::string& eta, const std::string& rest,
                             std::size_t width) {
  // Time first and never cut: a narrow terminal loses the tail of what runs, not the clock.
  const std::string head = elapsed + " ETA " + (eta.empty() ? "--:--" : eta);
  std::string text = rest.empty() ? head : head + " | " + rest;
  if (text.size() > width && width > head.size()) {
    std::size_t cut = width;
    while (cut > head.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
      --cut;  // not inside a UTF-8 sequence
    }
    text = text.substr(0, cut);
  } else if (text.size() > width) {
    text = head;
  }
  return text;
}

double remaining_seconds(double decisions_left, double runs_per_decision, double run_seconds,
                         double builds_per_decision, double build_seconds) {
  return decisions_left * (std::max(1.0, runs_per_decision) * run_seconds + std::max(0.0, builds_per_decision) * build_seconds);
}

MutedStdout::MutedStdout(MuteStdout mute) {
  if (mute == MuteStdout::yes) {
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

ProgressStyle choose_progress_style(Verbosity verbosity) {
  if (verbosity == Verbosity::quiet) {
    return ProgressStyle::quiet;
  }
  return ::isatty(STDERR_FILENO) != 0 && verbosity != Verbosity::verbose ? ProgressStyle::status_line
                                                                          : ProgressStyle::lines;
}

Progress::Progress(std::ostream& out, ProgressStyle style) : m_out(out), m_style(style) {
  if (m_style == ProgressStyle::status_line) {
    m_cout_buf = std::cout.rdbuf();
    m_hook = std::make_unique<ClearingBuf>(*this, m_cout_buf);
    std::cout.rdbuf(m_hook.get());
    // Warnings on stderr clear the line too; this class writes past that hook, to stderr's own buffer.
    if (&m_out == &std::cerr) {
      m_cerr_buf = std::cerr.rdbuf();
      m_raw_err = std::make_unique<std::ostream>(m_cerr_buf);
      m_err_hook = std::make_unique<ClearingBuf>(*this, m_cerr_buf);
      std::cerr.rdbuf(m_err_hook.get());
    }
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
  if (m_cerr_buf != nullptr) {
    std::cerr.flush();
    std::cerr.rdbuf(m_cerr_buf);
  }
  if (m_shown) {
    sink() << "\r\033[K" << std::flush;
  }
}

std::ostream& Progress::sink() { return m_raw_err ? *m_raw_err : m_out; }

void Progress::tick() {
  std::unique_lock<std::mutex> lock(m_mutex);
  while (!m_stop) {
    draw();
    m_wake.wait_for(lock, std::chrono::milliseconds(200));
  }
}

void Progress::hide_for_stdout(StdoutLine line) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  if (m_shown) {
    sink() << "\r\033[K" << std::flush;
    m_shown = false;
  }
  m_stdout_mid_line = line == StdoutLine::open;
}

std::string Progress::elapsed_text() const {
  return clock_text(std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count());
}

std::string Progress::eta_text() const {
  // The whole rest of the run, from what it measured: the decisions left in all stages, each as many
  // runs and builds as a decision took so far, each as long as they took. An estimate, not a bound.
  if (m_runs_done == 0) {
    return "";
  }
  const int decided_runs = m_runs_at_first_decision < 0 ? 0 : m_runs_done - m_runs_at_first_decision;
  const double runs_per_decision =
      m_decisions > 0 && decided_runs > 0 ? static_cast<double>(decided_runs) / m_decisions : m_runs_per_decision;
  // The anchors' two environments are built before any decision; the rest belong to decisions.
  const double builds_per_decision =
      m_decisions > 0 ? std::max(0, m_builds_done - 2) / static_cast<double>(m_decisions) : 1.0;
  const double build_seconds = m_builds_done > 0 ? m_build_seconds / m_builds_done : 0.0;
  return "~" + clock_text(remaining_seconds(decisions_left(), runs_per_decision, m_run_seconds / m_runs_done,
                                            builds_per_decision, build_seconds));
}

double Progress::decisions_left() const {
  // During the search: its worst case with one culprit (another pass when it asks again), then the
  // checks and probes after it. After it: what is left of those, at least the decision under way.
  const int after = std::max(1, k_after_search_decisions - m_after_search);
  if (m_phase == "anchors" || m_phase == "starting") {
    return m_worst_decisions + after;
  }
  if (planned_phase()) {
    return std::max(1, m_worst_decisions - m_searching) + after;
  }
  return after;
}

bool Progress::planned_phase() const { return m_phase == "isolate" || m_phase == "refine"; }

std::string Progress::name_of(const std::string& candidate_hash) const {
  const auto found = m_labels.find(candidate_hash);
  return found != m_labels.end() ? found->second : "a candidate";
}

void Progress::line(const std::string& text) {
  if (m_style == ProgressStyle::lines) {
    const std::string eta = eta_text();
    sink() << "envbisect: " << elapsed_text() << (eta.empty() ? "" : " ETA " + eta) << " " << text << "\n" << std::flush;
  }
}

void Progress::draw() {
  if (m_style != ProgressStyle::status_line || m_stdout_mid_line) {
    return;
  }
  // Fixed layout: time first, then the phase with its counters, then what runs (cut to fit).
  std::string rest = m_phase;
  if (planned_phase() && m_worst_decisions > 0) {
    // Past the one-culprit worst case the bound is gone, not stretched ("4/<=4" would be a new plan).
    rest += " " + std::to_string(m_searching) +
            (m_searching <= m_worst_decisions ? "/<=" + std::to_string(m_worst_decisions) : std::string());
  }
  rest += " | " + std::to_string(m_decisions) + (m_decisions == 1 ? " decision, " : " decisions, ") +
          std::to_string(m_runs_done) + (m_runs_done == 1 ? " run" : " runs");
  if (!m_doing.empty()) {
    rest += " | " + m_doing;
  }
  const std::string eta = eta_text();
  sink() << "\r\033[K" << status_line_text(elapsed_text(), eta, rest, static_cast<std::size_t>(terminal_width() - 1))
         << std::flush;
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
  m_doing = "building an environment";
  (void)env_hash;
  draw();
}

void Progress::built(const std::string& env_hash, BuildEnd end, double seconds) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  if (end == BuildEnd::built) {
    ++m_builds_done;
    m_build_seconds += seconds;
  }
  line("environment " + short_hash(env_hash) +
       (end == BuildEnd::failed   ? " cannot be built"
        : end == BuildEnd::reused ? " reused (built earlier)"
                                  : " built in " + seconds_text(seconds)));
  draw();
}

namespace {

// Return "run 3/5" while within the runs first announced for a candidate, and "run 6 (extra)" past
// them: a count that grows one run at a time never reads "6/6", then "10/10".
std::string run_counter(int index, int first) {
  const int n = index + 1;
  return "run " + std::to_string(n) + (n <= first ? "/" + std::to_string(first) : std::string(" (extra)"));
}

}  // namespace

void Progress::attempt_started(const std::string& candidate_hash, int index, int of) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  int& first = m_first_of[candidate_hash];
  if (first == 0) {
    first = std::max(of, m_expected[candidate_hash]);
  }
  m_doing = name_of(candidate_hash) + " " + run_counter(index, first);
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
  int& first = m_first_of[candidate_hash];
  if (first == 0) {
    first = std::max(of, m_expected[candidate_hash]);
  }
  line(name_of(candidate_hash) + " " + run_counter(index, first) + " finished in " +
       seconds_text(result.wall_seconds) + ": " + outcome);
  draw();
}

void Progress::decision(int n, const std::string& verdict, const std::string& label, int runs) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  if (m_runs_at_first_decision < 0) {
    m_runs_at_first_decision = m_runs_done - runs;  // what the anchors ran before
  }
  m_decisions = n;
  if (planned_phase()) {
    ++m_searching;
  } else if (m_phase != "anchors") {
    ++m_after_search;
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
