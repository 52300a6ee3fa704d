#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/measure/evaluate.hpp"
#include "app/run/plan/budget.hpp"
#include "core/outcome.hpp"
#include "stats/samples.hpp"
#include "stats/verdict.hpp"

namespace envbisect {

class Journal;
class Progress;

// How a run's judge works: the verdict rules, whether runs are read by exit status alone, how many
// candidates run at once, and whether verdicts print their reasoning.
struct JudgeOptions {
  stats::VerdictPolicy policy;
  bool pass_fail = false;  // the recipe (or --deterministic) says the exit status is the whole result
  bool explain = false;    // print each verdict's reasoning
  int slots = 1;           // candidates measured at once
  double budget_s = 0;     // --budget: wall seconds this session may spend; 0: no limit
  int stop_after_decisions = -1;  // a replay of a session its budget stopped: stop where it stopped
};

// How the anchors are told apart: by the statistics of every channel, or by exit status alone (each
// good run passes, each bad one fails).
enum class AnchorTest { statistics, exit_status };

// How many runs decide a candidate: one (anchors that pass and fail every time), or as many as the
// statistics need.
enum class RunsPerCandidate { one, until_decided };

// What a one-run search whose runs disagree goes on with: the statistics of every channel, or the
// sequential test on failure counts (anchors that differ only in failures).
enum class Fallback { statistics, failure_rates };

// Why anchors taken as deterministic on their first runs are brought to the preflight's level: a
// candidate's runs disagreed (the search goes on with statistics or failure rates), one candidate
// failed unlike the bad anchor and alone is judged by statistics, an interaction's parts are held to a
// bar the anchors' failure counts set, or the probes measure failure rates against them.
enum class Completion { after_disagreement, for_one_candidate, for_parts, for_probes };

// Brings provisional anchors to the preflight's level, sets how a disagreement is judged from then on
// (Judge::set_fallback) and keeps the preflight on all their runs (Judge::set_anchors_preflight).
using CompleteAnchors = std::function<void(Completion)>;

// Turns a run's measured attempts into verdicts: measures the anchors and each candidate until the
// statistics decide, journals every decision, and keeps the anchors fresh during a search. Every
// stage of a run (search, refinement, probes, verification) decides its candidates through one judge.
class Judge {
public:
  // Judge candidates against the `good` and `bad` anchors, measuring through `evaluator`.
  Judge(Evaluator& evaluator, Journal& journal, Progress& progress, JudgeOptions options, Candidate good,
        Candidate bad);

  // Make sure the candidate has at least `count` runs and bring them into view of its verdicts.
  void see(const Candidate& candidate, int count);

  // Bring the candidate towards `count` runs one at a time, stopping after a run that fails: a good side
  // held to several passes has disagreed then, and its remaining runs would only be paid for. Return
  // false (nothing more measured) when the budget cannot pay for the next run.
  bool see_until_failure(const Candidate& candidate, int count);

  // see_until_failure(), true only when it measured what it was asked and none of the new runs failed.
  bool passes_until(const Candidate& candidate, int count);

  // Bring the bad anchor towards `count` runs one at a time, stopping after a run that passes. Such a
  // pass shows a test envbisect took as deterministic is not: one-run mode ends then, as when any
  // candidate's runs disagree. Return true only when every run was paid for and failed.
  bool bad_anchor_keeps_failing(int count);

  // Return the runs of the candidate that verdicts have seen so far in this session.
  int seen_runs(const Candidate& candidate);

  // Bring both anchors to `runs` runs each, interleaved (side by side with several slots).
  void measure_anchors(int runs);

  // Run one anchor once more (anchors that look like a pass/fail test, preflight_anchors()).
  void measure_one_anchor(const Candidate& anchor);

  // Return the candidate's samples in view, read as the mode reads runs (pass/fail: exit status alone).
  stats::SampleSet samples(const Candidate& candidate);

  // Judge the anchors on every run in view, as `test` says.
  stats::Preflight judge_anchors(AnchorTest test);

  // Measure the candidate until the statistics decide, journal and print the decision (labelled with
  // the search stage and a label a reader understands) and return its verdict.
  Verdict decide(const Candidate& candidate, const std::string& stage, const std::string& label);

  // Judge candidates with `runs` from here on (one: anchors that look deterministic).
  void set_runs_per_candidate(RunsPerCandidate runs) { m_one_run = runs == RunsPerCandidate::one; }

  // Take the anchors as deterministic on their first runs (`preflight`, by exit status): one run per
  // candidate, and `complete` brings them to the preflight's level only when a candidate's runs call
  // for statistics. Otherwise the boundary's re-runs reach that level, pooled with the anchors'.
  void set_provisional_anchors(CompleteAnchors complete, stats::Preflight preflight);

  // Return whether the anchors are still provisional (set_provisional_anchors()).
  bool provisional_anchors() const { return static_cast<bool>(m_complete_anchors); }

  // Bring provisional anchors to the preflight's level (nothing when they are not provisional). Where
  // their new runs break the pattern (a good run failed, a bad one passed), one-run mode ends here
  // (unless a disagreement is already ending it).
  void complete_anchors(Completion why);

  // Return the anchors' latest preflight: provisional, or on all their runs once completed.
  const stats::Preflight& anchors_preflight() const { return m_preflight; }

  // Keep the anchors' preflight (preflight_anchors()), and the runs a good verdict must match as its
  // anchors then stand (good_runs_to_match()).
  void set_anchors_preflight(stats::Preflight preflight) {
    m_preflight = std::move(preflight);
    m_preflight_good_runs = good_runs_to_match();
  }

  // Return good_runs_to_match() as it was when the anchors were last judged (provisional or complete):
  // later anchor runs against drift do not raise what earlier good verdicts were held to.
  int preflight_good_runs() const { return m_preflight_good_runs; }

  // Say what a one-run search whose runs disagree goes on with.
  void set_fallback(Fallback fallback) { m_rate_fallback = fallback == Fallback::failure_rates; }

  // Decide on failure rates (the sequential test) from here on: anchors that differ only in failures
  // and fail at a rate, not every time. Journaled with `why`.
  void start_rate_mode(const std::string& why);

  // Return whether the anchors differ only in failures (set_fallback()).
  bool rate_fallback() const { return m_rate_fallback; }

  // Return whether verdicts come from the sequential test on failure counts (stats/rate.hpp).
  bool rate_mode() const { return m_rate_mode; }

  // Judge the candidate on the runs in view, as decide() would, without measuring or journaling.
  stats::Assessment assess_now(const Candidate& candidate);

  // Judge a part of an interaction the answer calls clean on its failure counts by the sequential test,
  // against the part's bar (stats::part_hypotheses), without measuring or journaling: clean at error
  // level `alpha`, biting (or failing significantly more often than good: between_rates) at the run's
  // rate_alpha.
  stats::Assessment assess_part_at(const Candidate& candidate, double alpha) {
    return assess_rate(candidate, alpha, RateBar::part);
  }

  // Give the anchor a rate call waits for (stats::anchor_to_top_up) one more run, where affordable;
  // return whether a run was added (then assess again).
  bool top_up_anchor(const stats::Assessment& assessment);

  // Return whether `runs` runs of the candidate fit in the budget: the runs it does not hold yet at the
  // mean run time so far, plus a build at the mean build time when its environment is not ready. When
  // they do not, the budget is spent from here on: print why, once, and return false.
  bool affordable(const Candidate& candidate, int runs);

  // Bring the candidate to `runs` runs (see()) when they are affordable(); return whether they were.
  bool see_affordable(const Candidate& candidate, int runs);

  // Return whether the budget stopped the run: decide() answers skip without measuring or journaling.
  bool budget_spent() const { return m_budget_spent; }

  // Return whether the next step would stop at the budget (or where a replayed session stopped).
  bool stop_reached() const {
    return m_budget_spent || (m_options.stop_after_decisions >= 0 && m_decisions >= m_options.stop_after_decisions);
  }

  // Return the budget this session runs under.
  const Budget& budget() const { return m_budget; }

  // Return whether one run per candidate decides it (pass/fail, or deterministic-looking anchors).
  bool one_run() const { return m_one_run; }

  // Return whether the recipe or --deterministic declared the exit status the whole result.
  bool declared_pass_fail() const { return m_options.pass_fail; }
  int slots() const { return m_options.slots; }

  // Return whether a candidate's runs disagreed after the anchors looked deterministic: the search
  // must ask its questions again on statistical verdicts.
  bool fell_back() const { return m_fell_back; }

  // Return the decisions made so far (every stage).
  int decisions() const { return m_decisions; }

  // Return every decision journaled so far, in order.
  const std::vector<nlohmann::json>& verdict_log() const { return m_verdict_log; }

  // Return the run's journal, where the judge writes its decisions.
  Journal& journal() { return m_journal; }

  // Return the runs each anchor has at least (one may have more: measure_one_anchor()).
  int anchor_runs() const { return m_anchor_runs; }

  // Return the runs a candidate called good must pass, as the good anchor did: the good anchor's runs,
  // no more than the anchors were meant to have each (anchors run by value per second may give good
  // the most runs: the cheap side, not a stronger claim). With provisional anchors, the fewest runs an
  // anchor needs to look deterministic (stats::least_runs_each): the boundary's runs then count as the
  // anchors' (verify_cause()).
  int good_runs_to_match();

  // Return whether the candidate's intermediate verdict was replicated beside fresh anchor runs: its
  // verdict then rests on those, not on the pooled anchor runs.
  bool replicated(const std::string& hash) const { return m_replicated.count(hash) > 0; }
  // Return the verdict rules this judge applies.
  const stats::VerdictPolicy& policy() const { return m_options.policy; }
  // Say (terminal and journal) that a verdict no longer holds on all anchor runs, and the search
  // asks its questions again.
  void note_stale(const std::string& stale);
  // Return the good anchor's candidate.
  const Candidate& good() const { return m_good; }

  // Return the bad anchor's candidate.
  const Candidate& bad() const { return m_bad; }

private:
  // Which hypotheses the rate test uses: the run's (stats::rate_hypotheses) or a part's.
  enum class RateBar { run, part };
  stats::Assessment assess_rate(const Candidate& candidate, double alpha = -1, RateBar bar = RateBar::run);
  void leave_one_run(const std::string& label);
  std::optional<stats::Assessment> assess_until_decided(const Candidate& candidate, const std::string& label);
  std::optional<stats::Assessment> replicate(const Candidate& candidate, stats::Assessment assessment, int& replicated);
  void record_decision(const Candidate& candidate, const std::string& stage, const std::string& label,
                       const stats::Assessment& assessment, int replicated);

  Evaluator& m_evaluator;
  Journal& m_journal;
  Progress& m_progress;
  JudgeOptions m_options;
  Candidate m_good;
  Candidate m_bad;
  // The runs of each candidate (by hash) that verdicts have seen so far in this session: a resumed or
  // replayed run meets the journal's attempts in the order the first session did, not all at once.
  std::map<std::string, std::size_t> m_in_view;
  int m_anchor_runs = 0;
  bool m_one_run = false;
  bool m_fell_back = false;
  bool m_rate_fallback = false;
  bool m_rate_mode = false;
  CompleteAnchors m_complete_anchors;
  stats::Preflight m_preflight;
  int m_preflight_good_runs = 0;
  int m_decisions = 0;
  std::vector<nlohmann::json> m_verdict_log;
  Budget m_budget;
  bool m_budget_spent = false;
  // Candidates whose intermediate verdict was replicated beside fresh anchor runs, with what that
  // decided: it stands for the rest of the run (decide() returns it without new runs).
  std::map<std::string, stats::Assessment> m_replicated;
};

}  // namespace envbisect
