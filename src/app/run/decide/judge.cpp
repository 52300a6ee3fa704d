#include "app/run/decide/judge.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>

#include "app/measure/progress.hpp"
#include "stats/anchors.hpp"
#include "stats/effect.hpp"
#include "stats/pass_fail.hpp"
#include "stats/quantity.hpp"
#include "stats/rate.hpp"
#include "stats/replicate.hpp"
#include "store/journal.hpp"

namespace envbisect {

using nlohmann::json;

namespace {

// Decisions between two extra runs of each anchor.
constexpr int k_anchor_refresh = 5;

}  // namespace

Judge::Judge(Evaluator& evaluator, Journal& journal, Progress& progress, JudgeOptions options, Candidate good,
             Candidate bad)
    : m_evaluator(evaluator), m_journal(journal), m_progress(progress), m_options(std::move(options)),
      m_good(std::move(good)), m_bad(std::move(bad)), m_one_run(m_options.pass_fail), m_budget(m_options.budget_s) {}

bool Judge::see_affordable(const Candidate& candidate, int runs) {
  if (!affordable(candidate, runs)) {
    return false;
  }
  see(candidate, runs);
  return true;
}

bool Judge::affordable(const Candidate& candidate, int runs) {
  if (stop_reached()) {
    m_budget_spent = true;
    return false;
  }
  const int held = static_cast<int>(m_evaluator.attempts(candidate).size());
  if (!m_budget.limited() || runs <= held) {
    return true;  // runs the journal already holds cost nothing
  }
  const double build = m_evaluator.has_environment(candidate) ? 0.0 : m_evaluator.mean_build_seconds();
  const double cost = build + (runs - held) * m_evaluator.mean_run_seconds();
  if (m_budget.fits(cost)) {
    return true;
  }
  m_budget_spent = true;
  std::cout << "budget: " << duration_text(m_budget.elapsed()) << " of " << duration_text(m_budget.seconds())
            << " spent; the next step (" << runs - held << (runs - held == 1 ? " run" : " runs")
            << (build > 0 ? " and a build" : "") << ", about " << duration_text(cost)
            << ") would pass it: no more runs in this session\n"
            << std::flush;
  m_journal.append({{"type", "budget"}, {"budget_s", m_budget.seconds()}, {"elapsed_s", m_budget.elapsed()},
                    {"next_cost_s", cost}, {"decisions", m_decisions}});
  return false;
}

void Judge::see(const Candidate& candidate, int count) {
  const std::vector<RunResult>& done = m_evaluator.measure(candidate, count);
  std::size_t& seen = m_in_view[candidate.hash];
  seen = std::max(seen, std::min(done.size(), static_cast<std::size_t>(std::max(count, 0))));
}

bool Judge::see_until_failure(const Candidate& candidate, int count) {
  const std::size_t failed = samples(candidate).failure_count();
  for (int runs = seen_runs(candidate) + 1; runs <= count; ++runs) {
    if (!see_affordable(candidate, runs)) {
      return false;
    }
    if (samples(candidate).failure_count() > failed) {
      break;
    }
  }
  return true;
}

bool Judge::passes_until(const Candidate& candidate, int count) {
  const std::size_t failed = samples(candidate).failure_count();
  return see_until_failure(candidate, count) && samples(candidate).failure_count() == failed;
}

bool Judge::bad_anchor_keeps_failing(int count) {
  for (int runs = seen_runs(m_bad) + 1; runs <= count; ++runs) {
    if (!see_affordable(m_bad, runs)) {
      return false;
    }
    const stats::SampleSet seen = samples(m_bad);
    if (seen.failure_count() < seen.size()) {
      if (m_one_run && !m_options.pass_fail) {
        leave_one_run("the bad anchor");
      }
      return false;
    }
  }
  return true;
}

int Judge::seen_runs(const Candidate& candidate) { return static_cast<int>(m_in_view[candidate.hash]); }

void Judge::measure_anchors(int runs) {
  if (m_options.slots > 1 && m_anchor_runs < runs) {
    // With several slots both anchors' runs go side by side, still interleaved attempt by attempt.
    m_anchor_runs = runs;
    m_evaluator.measure_all({m_good, m_bad}, m_anchor_runs, m_options.slots);
  }
  while (m_anchor_runs < runs) {
    ++m_anchor_runs;
    see(m_good, m_anchor_runs);
    see(m_bad, m_anchor_runs);
  }
  see(m_good, m_anchor_runs);
  see(m_bad, m_anchor_runs);
}

void Judge::measure_one_anchor(const Candidate& anchor) {
  see(anchor, seen_runs(anchor) + 1);
  m_anchor_runs = std::min(seen_runs(m_good), seen_runs(m_bad));
}

int Judge::good_runs_to_match() {
  if (provisional_anchors()) {
    return static_cast<int>(stats::least_runs_each(m_options.policy));
  }
  return std::min(seen_runs(m_good), std::max(m_anchor_runs, m_options.policy.anchor_runs));
}

void Judge::set_provisional_anchors(CompleteAnchors complete, stats::Preflight preflight) {
  m_complete_anchors = std::move(complete);
  set_anchors_preflight(std::move(preflight));
}

void Judge::complete_anchors(Completion why) {
  if (!m_complete_anchors) {
    return;
  }
  const CompleteAnchors complete = std::move(m_complete_anchors);
  m_complete_anchors = nullptr;
  complete(why);
  if (why != Completion::after_disagreement && m_one_run &&
      !stats::looks_deterministic(samples(m_good), samples(m_bad), m_options.policy)) {
    leave_one_run("the anchors");
  }
}

stats::SampleSet Judge::samples(const Candidate& candidate) {
  stats::SampleSet set;
  const std::vector<RunResult>& attempts = m_evaluator.attempts(candidate);
  const std::size_t seen = std::min(attempts.size(), m_in_view[candidate.hash]);
  for (std::size_t i = 0; i < seen; ++i) {
    set.samples.push_back(m_options.pass_fail ? stats::to_pass_fail_sample(attempts[i])
                                              : stats::to_sample(attempts[i]));
  }
  return set;
}

stats::Preflight Judge::judge_anchors(AnchorTest test) {
  if (test == AnchorTest::statistics) {
    return stats::preflight(samples(m_good), samples(m_bad), m_options.policy);
  }
  // Each good run passes, each bad one fails.
  const stats::PassFailAnchors checked = stats::pass_fail_anchors(samples(m_good), samples(m_bad));
  stats::Preflight p;
  p.distinguishable = checked.distinguishable;
  p.by_failure = true;
  p.message = checked.message;
  return p;
}

stats::Assessment Judge::assess_rate(const Candidate& candidate, double alpha_each, RateBar bar) {
  const stats::SampleSet runs = samples(candidate);
  const stats::SampleSet good = samples(m_good);
  const stats::SampleSet bad = samples(m_bad);
  stats::Assessment out;
  out.checksum_mismatch = runs.checksum_mismatch();
  if (runs.any_skipped()) {
    out.decided = true;
    out.verdict = Verdict::skip;
    out.reason = "skip: the benchmark reported it cannot test this candidate (exit 125)";
    return out;
  }
  // Failures unlike either anchor's say nothing of the regression's rate: counted apart, and a
  // candidate failing that way in most runs is untestable, as the statistics judge it.
  const std::vector<std::string> good_kinds = good.failure_signatures();
  const std::vector<std::string> bad_kinds = bad.failure_signatures();
  std::size_t failures = 0, counted = 0, different = 0;
  for (const stats::Sample& s : runs.samples) {
    const bool known = std::binary_search(bad_kinds.begin(), bad_kinds.end(), s.failure_signature) ||
                       std::binary_search(good_kinds.begin(), good_kinds.end(), s.failure_signature);
    if (s.failed && !known) {
      ++different;
      continue;
    }
    ++counted;
    failures += s.failed ? 1 : 0;
  }
  out.different_failure = different > 0;
  const std::size_t min_runs = static_cast<std::size_t>(std::max(m_options.policy.min_runs, 1));
  if (runs.size() >= min_runs && 2 * different > runs.size()) {
    out.decided = true;
    out.verdict = Verdict::skip;
    out.reason = "skip: failed unlike either anchor in " + stats::runs_of(different, runs.size()) + " runs";
    return out;
  }
  const stats::RateHypotheses h =
      bar == RateBar::part ? stats::part_hypotheses(good.failure_count(), good.size(), bad.failure_count(), bad.size())
                           : stats::rate_hypotheses(good.failure_count(), good.size(), bad.failure_count(), bad.size());
  const stats::RateInterval interval = stats::rate_interval(failures, counted);
  const double alpha = alpha_each > 0 ? alpha_each : m_options.policy.rate_alpha;
  // A part of an interaction is held clean at `alpha` (a biting part called clean would confirm a
  // wrong answer), and called biting at the run's own level: that error costs only a second search.
  const double alpha_high = bar == RateBar::part ? m_options.policy.rate_alpha : alpha;
  // The test's low call is promised only against rates at p_high or above: a race on fewer threads, or
  // a bad anchor whose few runs overstated its rate, is not called clean (stats::rate_ruling).
  const stats::RateRuling ruling = stats::rate_ruling(failures, counted, h, good.size(), bad.size(), alpha_high, alpha);
  const stats::RateCall call = ruling.call;
  out.between_rates = ruling.between_rates;
  out.top_up = stats::anchor_to_top_up(ruling);
  const std::string words = stats::rate_words(interval) + "; sequential test of " +
                            std::to_string(std::lround(100 * h.p_low)) + " % (good) against " +
                            std::to_string(std::lround(100 * h.p_high)) + " % (bites), " +
                            std::to_string(std::lround(100 * alpha)) + " % error each way";
  out.position = h.usable ? interval.rate : 0.0;
  if (call == stats::RateCall::high) {
    out.decided = true;
    out.verdict = Verdict::bad;
    out.reason = "bad: " + words;
  } else if (call == stats::RateCall::low) {
    out.decided = true;
    out.verdict = Verdict::good;
    out.reason = "good: " + words;
  } else if (runs.size() >= static_cast<std::size_t>(m_options.policy.max_runs)) {
    out.decided = true;
    out.verdict = Verdict::unstable;
    out.reason = "unstable: no verdict after " + std::to_string(runs.size()) + " runs; " + words +
                 (out.between_rates ? "; it fails more often than good, less often than the test calls biting" : "");
  } else {
    out.reason = "unknown: " + words;
  }
  return out;
}

bool Judge::top_up_anchor(const stats::Assessment& assessment) {
  switch (assessment.top_up) {
    case stats::TopUp::good:
      return see_affordable(m_good, seen_runs(m_good) + 1);
    case stats::TopUp::bad:
      return see_affordable(m_bad, seen_runs(m_bad) + 1);
    case stats::TopUp::none:
      break;
  }
  return false;
}

stats::Assessment Judge::assess_now(const Candidate& candidate) {
  return m_rate_mode ? assess_rate(candidate)
                     : stats::assess(samples(candidate), samples(m_good), samples(m_bad), m_options.policy);
}

std::optional<stats::Assessment> Judge::assess_until_decided(const Candidate& candidate, const std::string& label) {
  const stats::VerdictPolicy& policy = m_options.policy;
  if (m_rate_mode) {
    // The sequential test on failure counts: every run the candidate holds counts; one more run at a
    // time until the test stops.
    if (!see_affordable(candidate, std::max(seen_runs(candidate), 1))) {
      return std::nullopt;
    }
    stats::Assessment assessment = assess_rate(candidate);
    while (!assessment.decided) {
      if (top_up_anchor(assessment)) {
        assessment = assess_rate(candidate);
        continue;
      }
      if (!see_affordable(candidate, seen_runs(candidate) + 1)) {
        return std::nullopt;
      }
      assessment = assess_rate(candidate);
    }
    return assessment;
  }
  // One run judges a pass/fail candidate (--repeats of them with --deterministic, which must agree);
  // otherwise run it until the statistics decide.
  const int first = m_one_run && !m_options.pass_fail ? 1 : policy.min_runs;
  if (!see_affordable(candidate, first)) {
    return std::nullopt;
  }
  stats::Assessment assessment = m_one_run ? stats::assess_pass_fail(samples(candidate))
                                           : stats::assess(samples(candidate), samples(m_good), samples(m_bad), policy);
  const bool detected = m_one_run && !m_options.pass_fail;  // one-run mode envbisect chose, not declared
  if (detected && assessment.decided && assessment.verdict == Verdict::bad) {
    // A failure no bad anchor run showed (a hang where the anchor crashed, a broken mix's ImportError)
    // may not be the regression: this candidate alone is judged as statistics judge failures, by
    // their signatures, on policy.min_runs runs or more (skip when most are unlike either anchor).
    if (const std::string unlike = stats::unlike_bad_anchor(samples(candidate), samples(m_bad)); !unlike.empty()) {
      std::cout << label << " failed unlike any bad anchor run (" << unlike << "): its exit status alone cannot call it "
                << "bad; judged on " << policy.min_runs << " or more runs by their failures\n";
      // Statistics judge against anchors at the preflight's level; more anchor runs that break the
      // pattern end one-run mode for every candidate.
      complete_anchors(Completion::for_one_candidate);
      if (!m_one_run) {
        return assess_until_decided(candidate, label);
      }
      for (int runs = std::max(seen_runs(candidate), policy.min_runs);; ++runs) {
        if (!see_affordable(candidate, runs)) {
          return std::nullopt;
        }
        assessment = stats::assess_pass_fail(samples(candidate));
        if (assessment.verdict != Verdict::bad) {
          break;  // a run passed: the runs disagree (below)
        }
        assessment = stats::assess(samples(candidate), samples(m_good), samples(m_bad), policy);
        if (assessment.decided) {
          return assessment;
        }
      }
    }
  }
  if (detected && assessment.decided && assessment.verdict == Verdict::unstable) {
    // The anchors only looked deterministic: a candidate whose runs disagree (a race that bites in
    // some runs) shows the test is not. Statistical verdicts from here on, against anchors brought to
    // the preflight's level; the search starts again on them, keeping every run made so far.
    complete_anchors(Completion::after_disagreement);
    leave_one_run(label);
    if (m_rate_mode) {
      return assess_until_decided(candidate, label);
    }
    if (!see_affordable(candidate, std::max(seen_runs(candidate), policy.min_runs))) {
      return std::nullopt;
    }
    assessment = stats::assess(samples(candidate), samples(m_good), samples(m_bad), policy);
  }
  while (!assessment.decided) {
    if (!see_affordable(candidate, seen_runs(candidate) + 1)) {
      return std::nullopt;
    }
    assessment = stats::assess(samples(candidate), samples(m_good), samples(m_bad), policy);
  }
  return assessment;
}

void Judge::leave_one_run(const std::string& label) {
  m_one_run = false;
  m_fell_back = true;
  if (m_rate_fallback) {
    // The anchors differ only in failures: a sequential test on failure counts decides from here on,
    // on every run each candidate already holds; earlier verdicts are judged again on their runs, and
    // runs are added only where they are short.
    m_rate_mode = true;
    std::cout << "runs of " << label << " disagreed: the test is not deterministic after all; failure rates "
                                        "decide from here on (a sequential test, every run so far counts)\n";
    m_journal.append({{"type", "mode"}, {"mode", "rate"}, {"why", label + ": its runs disagreed"}});
    return;
  }
  std::cout << "runs of " << label << " disagreed: the test is not deterministic after all; statistical "
                                      "verdicts from here on, and the search starts again on them\n";
  m_journal.append({{"type", "mode"}, {"mode", "metric"}, {"why", label + ": its runs disagreed"}});
}

void Judge::start_rate_mode(const std::string& why) {
  m_rate_mode = true;
  m_journal.append({{"type", "mode"}, {"mode", "rate"}, {"why", why}});
}

std::optional<stats::Assessment> Judge::replicate(const Candidate& candidate, stats::Assessment assessment,
                                                  int& replicated) {
  // Intermediate against anchor runs made minutes ago is also what drift looks like: replicate it in
  // rounds beside fresh anchor runs, judged against those alone (stats/replicate.hpp).
  const bool is_anchor = candidate.hash == m_good.hash || candidate.hash == m_bad.hash;
  if (m_one_run || m_rate_mode || m_options.pass_fail || is_anchor || assessment.verdict != Verdict::intermediate) {
    return assessment;
  }
  // A round is a run of the candidate and of each anchor; up to twice its first runs of rounds.
  if (!affordable(candidate, seen_runs(candidate) + 2 * m_options.policy.min_runs) ||
      !m_budget.fits(3 * 2 * m_options.policy.min_runs * m_evaluator.mean_run_seconds())) {
    m_budget_spent = true;
    return std::nullopt;
  }
  const int from_candidate = seen_runs(candidate);
  const int from_good = seen_runs(m_good);
  const int from_bad = seen_runs(m_bad);
  auto since = [&](const Candidate& of, int from) {
    stats::SampleSet set = samples(of);
    set.samples.erase(set.samples.begin(), set.samples.begin() + std::min<std::ptrdiff_t>(from, set.samples.size()));
    return set;
  };
  const stats::SampleSet earlier_good = samples(m_good);
  const stats::SampleSet earlier_bad = samples(m_bad);
  const stats::Assessment fresh = stats::replicate_intermediate(
      [&] {
        see(candidate, seen_runs(candidate) + 1);
        measure_anchors(m_anchor_runs + 1);
        return stats::Rounds{since(candidate, from_candidate), since(m_good, from_good), since(m_bad, from_bad)};
      },
      m_options.policy, &replicated, &earlier_good, &earlier_bad);
  m_replicated[candidate.hash] = fresh;
  return fresh;
}

void Judge::note_stale(const std::string& stale) {
  std::cout << "judged on all " << m_anchor_runs << " runs of each anchor, the verdict on " << stale
            << " no longer holds: the search asks its questions again\n";
  m_journal.append({{"type", "rejudge"}, {"stale", stale}, {"anchor_runs", m_anchor_runs}});
  m_progress.search_again();
}

void Judge::record_decision(const Candidate& candidate, const std::string& stage, const std::string& label,
                            const stats::Assessment& assessment, int replicated) {
  ++m_decisions;
  std::vector<double> metrics = samples(candidate).metrics();
  const double cv = stats::coefficient_of_variation(metrics);
  const bool noisy = !m_one_run && cv > stats::k_noisy_cv;
  json decision = {{"type", "decision"}, {"n", m_decisions}, {"stage", stage}, {"label", label},
                   {"applied", candidate.applied}, {"candidate", candidate.hash},
                   {"verdict", to_string(assessment.verdict)}, {"runs", seen_runs(candidate)},
                   {"median", stats::median(metrics)}, {"reason", assessment.reason},
                   {"p_vs_good", assessment.p_vs_good}, {"p_vs_bad", assessment.p_vs_bad},
                   {"position", assessment.position}, {"different_failure", assessment.different_failure},
                   {"checksum_mismatch", assessment.checksum_mismatch}, {"cv", cv}, {"noisy", noisy}};
  if (replicated > 0) {
    decision["replicated_rounds"] = replicated;  // first intermediate on pooled anchors, then this
  }
  m_journal.append(decision);
  m_verdict_log.push_back(decision);
  const int runs = seen_runs(candidate);
  m_progress.decision(m_decisions, std::string(to_string(assessment.verdict)), label, runs);
  std::cout << "  " << to_string(assessment.verdict) << "  " << label << "  (" << runs << (runs == 1 ? " run" : " runs");
  if (m_options.explain) {
    std::cout << ": " << assessment.reason;
  }
  std::cout << ")";
  // Noise is one line at the end of the run (print_summary), not a tail on each verdict; --explain
  // and the journal keep it per decision.
  if (noisy && m_options.explain) {
    std::cout << "  noisy: CV " << std::lround(cv * 1000) / 10.0 << " % > " << stats::k_noisy_cv * 100 << " %";
  }
  std::cout << "\n" << std::flush;
}

Verdict Judge::decide(const Candidate& candidate, const std::string& stage, const std::string& label) {
  // Past the budget a question is answered skip, unmeasured and unjournaled: the search winds down
  // and the run reports what it knows (result "outcome": "budget").
  if (m_budget_spent) {
    return Verdict::skip;
  }
  m_progress.phase(stage);
  m_progress.label(candidate.hash, label);
  // A candidate replicated beside fresh anchor runs keeps that verdict for the rest of the run: asked
  // again (a later stage, a re-check, the search's next pass) it is neither re-measured nor judged
  // again on the pooled runs, which would replicate it once more at three runs a round, or let its
  // verdict differ between stages (the re-judge on all anchor runs leaves it alone too).
  if (const auto kept = m_replicated.find(candidate.hash); kept != m_replicated.end()) {
    stats::Assessment assessment = kept->second;
    assessment.reason = "as replicated earlier: " + assessment.reason;
    record_decision(candidate, stage, label, assessment, 0);
    return assessment.verdict;
  }
  std::optional<stats::Assessment> decided = assess_until_decided(candidate, label);
  if (!decided) {
    return Verdict::skip;
  }
  int replicated = 0;
  const std::optional<stats::Assessment> replicated_assessment = replicate(candidate, *decided, replicated);
  if (!replicated_assessment) {
    return Verdict::skip;
  }
  const stats::Assessment& assessment = *replicated_assessment;
  record_decision(candidate, stage, label, assessment, replicated);
  // Every few decisions the anchors run once more, to catch drift on a shared machine.
  // (Failure counts are not drift's victims, and the rate test's hypotheses rest on the anchors' counts.)
  if (!m_one_run && !m_rate_mode && m_decisions % k_anchor_refresh == 0 && m_anchor_runs < m_options.policy.max_anchor_runs &&
      m_budget.fits(2 * m_evaluator.mean_run_seconds())) {
    measure_anchors(m_anchor_runs + 1);
  }
  return assessment.verdict;
}

}  // namespace envbisect
