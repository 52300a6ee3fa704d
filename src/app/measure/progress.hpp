#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <streambuf>
#include <string>
#include <thread>

#include "app/measure/events.hpp"
#include "core/outcome.hpp"

namespace envbisect {

// How a long run shows that it is alive, on stderr.
enum class ProgressStyle {
  status_line,  // a terminal: one status line redrawn in place (phase, candidate, run i of n, decisions, elapsed, ETA)
  lines,        // a pipe or a log file: one flushed line per event
  quiet,        // nothing
};

// How much a run is asked to say: only its result (-q), the usual, or log lines too (-v).
enum class Verbosity { quiet, normal, verbose };

// Return the style for this process: quiet when asked, a status line when stderr is a terminal and no
// log lines are asked for, else plain lines.
ProgressStyle choose_progress_style(Verbosity verbosity);

// Return the status line for a terminal `width` columns wide: the elapsed time and the ETA first, in
// full, then the phase and what runs, cut to fit ("0:42 ETA ~1:10 | isolate | {packages/p} run 2/3").
// Pure, for tests.
std::string status_line_text(const std::string& elapsed, const std::string& eta, const std::string& rest,
                             std::size_t width);

// Return the seconds the rest of a run should take: `decisions_left` decisions, each as many runs and
// builds as the decisions so far took on average (`runs_per_decision`, `builds_per_decision`, at
// least one run), each run and build as long as the mean so far. Pure, for tests.
double remaining_seconds(double decisions_left, double runs_per_decision, double run_seconds,
                         double builds_per_decision, double build_seconds);

// Reports a run's progress on `out` (stderr). Thread-safe: attempts of several slots report at once.
// With a status line, anything written to std::cout or std::cerr first clears it (the line is
// redrawn after).
class Progress : public MeasureEvents {
public:
  // Start reporting; a status line is redrawn every 200 ms so elapsed time moves during a long run.
  Progress(std::ostream& out, ProgressStyle style);
  // Clear the status line and give std::cout its own buffer back.
  ~Progress() override;
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Name the stage the run is in ("anchors", "isolate", "refine", "probe", "verify").
  void phase(const std::string& name);
  // Name a candidate for the status and the lines ("good anchor", "{packages/p}").
  void label(const std::string& candidate_hash, const std::string& text);
  // Say the metric's unit ("tok/s"), written after every metric value.
  void unit(const std::string& unit);
  // Say that a candidate is to get `runs` runs in all (the anchors' interleaved runs), for "run i of n".
  void expect(const std::string& candidate_hash, int runs);
  // Say how many decisions one pass of the search (isolating, then bisecting ordered axes) needs at
  // worst with one culprit, and how many runs a decision takes at first.
  void plan(int worst_decisions, int runs_per_decision);
  // An environment is being built.
  void building(const std::string& env_hash) override;
  // An environment's build ended as `end` (built, reused or not buildable).
  void built(const std::string& env_hash, BuildEnd end, double seconds) override;
  // Attempt `index` (0-based) of `of` of a candidate started.
  void attempt_started(const std::string& candidate_hash, int index, int of) override;
  // Attempt `index` of `of` of a candidate ended with `result`.
  void attempt_finished(const std::string& candidate_hash, int index, int of, const RunResult& result) override;
  // Decision `n` was made: `verdict` on `label` after `runs` runs.
  void decision(int n, const std::string& verdict, const std::string& label, int runs);
  // Say that the search asks its questions again from the start: its decisions count anew (the ETA
  // grows by a pass of the search).
  void search_again();
  // Say `text` as a line of its own (an off-terminal event that has no other form).
  void note(const std::string& text);

  // Whether a write to std::cout ended its line, or left one open that the status line must not cover.
  enum class StdoutLine { ended, open };
  // Clear the status line now (before other output); internal to the std::cout and std::cerr hooks.
  void hide_for_stdout(StdoutLine line);

private:
  std::string elapsed_text() const;
  std::string eta_text() const;
  double decisions_left() const;  // the decisions this run should still make, all stages
  bool planned_phase() const;  // the phase is one the worst case counts (isolate, refine)
  std::ostream& sink();        // where the status line and lines go: stderr's own buffer
  std::string name_of(const std::string& candidate_hash) const;
  void line(const std::string& text);  // with the lock held
  void draw();                         // with the lock held
  void tick();

  std::ostream& m_out;
  ProgressStyle m_style;
  std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
  mutable std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  bool m_shown = false;             // the status line is on the screen
  bool m_stdout_mid_line = false;   // std::cout has written part of a line: do not draw over it
  std::string m_phase = "starting";
  std::string m_doing;              // what runs now ("good anchor run 2/5")
  std::map<std::string, std::string> m_labels;
  std::map<std::string, int> m_expected;
  std::string m_unit;
  int m_decisions = 0;
  int m_searching = 0;              // decisions of this pass of the search (isolate and refine stages)
  int m_worst_decisions = 0;        // its worst case with one culprit
  int m_runs_per_decision = 1;
  int m_runs_done = 0;
  double m_run_seconds = 0;         // summed wall time of finished runs
  int m_builds_done = 0;            // environments built (not reused)
  double m_build_seconds = 0;       // their summed wall time
  int m_runs_at_first_decision = -1;  // runs finished before the first decision (the anchors')
  int m_after_search = 0;           // decisions made after the search (recheck, verify, probe)
  int m_passes = 1;                 // passes of the search (it may ask again)
  std::map<std::string, int> m_first_of;  // the run count first announced per candidate
  std::unique_ptr<std::streambuf> m_hook;
  std::streambuf* m_cout_buf = nullptr;
  std::unique_ptr<std::streambuf> m_err_hook;  // the same for std::cerr (warnings), when `out` is it
  std::streambuf* m_cerr_buf = nullptr;
  std::unique_ptr<std::ostream> m_raw_err;     // stderr's own buffer, for this class's writes
  std::thread m_ticker;
};

// Whether std::cout is muted (-q: only the result is printed).
enum class MuteStdout { yes, no };

// While alive and asked to (MuteStdout::yes), std::cout drops everything written to it.
class MutedStdout {
public:
  // Mute std::cout when `mute` says so.
  explicit MutedStdout(MuteStdout mute);
  // Give std::cout its buffer back.
  ~MutedStdout();
  MutedStdout(const MutedStdout&) = delete;
  MutedStdout& operator=(const MutedStdout&) = delete;
  // Give std::cout its buffer back now.
  void restore();

private:
  std::unique_ptr<std::streambuf> m_null;
  std::streambuf* m_saved = nullptr;
};

}  // namespace envbisect
