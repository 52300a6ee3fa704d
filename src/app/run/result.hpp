#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/delta.hpp"
#include "core/recipe.hpp"
#include "report/answer.hpp"
#include "search/isolate.hpp"
#include "stats/effect.hpp"
#include "stats/verdict.hpp"

namespace envbisect {

// What a finished run found, as its result.json and its printed summary need it.
struct Findings {
  const std::vector<Delta>& deltas;
  const Recipe& recipe;
  const Isolation& isolation;           // the search's answer, its sets naming deltas
  nlohmann::json refinements;           // one entry per refined axis (refine_cause())
  nlohmann::json probes;                // one entry per probe (probe_modifiers())
  nlohmann::json boundary;              // the pass/fail boundary re-run (verify_boundary()), or null
  nlohmann::json effect;                // the cause's effect (cause_effect()), or null
  stats::Preflight preflight;           // the anchors as the search started from them
  stats::Preflight final_anchors;       // the anchors judged again on all their runs at the end
  const std::vector<nlohmann::json>& verdict_log;  // every decision, in order
  bool one_run = false;                 // one run per candidate decided it
  int anchor_runs = 0;
  int decisions = 0;
  int attempts_run = 0;
  int attempts_reused = 0;
  double seconds = 0;
  nlohmann::json budget;                // null, or where --budget stopped the run: {budget_s, spent_s,
                                        // decisions, worst_case_left: {decisions, runs, seconds}, resume}
  bool rate_mode = false;               // failure rates decided (the judge's sequential test)
};

// Return the journal and result form of an anchors' preflight.
nlohmann::json preflight_to_json(const stats::Preflight& preflight);

// Return the words for an effect: the comparison ("1.12x slower") only when its 95 % interval
// excludes 1x; "no change shown" when it holds 1x; "too few runs" when there is no interval.
std::string effect_words(const stats::RatioEffect& ratio, const Recipe& recipe);

// Whose effect is quoted: the cause's runs against the good anchor's, or the bad anchor's against good's.
enum class EffectOf { cause, anchors };

// Return the effect people quote, `to` runs' metrics against `from` runs' (`of` says whose, result.json's
// "of"): a Hodges-Lehmann ratio with the exact Mann-Whitney 95 % interval; null when there are too few
// metrics.
nlohmann::json cause_effect(const std::vector<double>& from, const std::vector<double>& to, EffectOf of,
                            const Recipe& recipe);

// Return the run's result.json: whether a verified cause was found ("outcome" says how it ended: found,
// ambiguous, not_verified, not_found, retracted, or budget: stopped at --budget, with "budget" saying
// what is left and "settle" how to resume), the cause and every set it could be, how the search got
// there, and what it cost.
nlohmann::json result_json(const Findings& findings);

// Return result.json's text for `result`: the answer first (found, outcome, cause, verified, effect,
// what it could be and how to settle it), then where it bites (refinements, probes), then how the run
// got there and what it cost; every key of `result` once, any key not named here last, sorted.
std::string result_file_text(const nlohmann::json& result);

// Return the run's caveats as the terminal prints them, one line each: the noise of its decisions
// and anchors ("noise: 16 of 17 decisions noisy, CV 13–50 % ..."), then the decisions that ran at a
// higher load than the anchors ("load: 14 of 17 decisions ..."); none when the answer has neither.
std::vector<std::string> caveat_lines(const report::Answer& answer);

// Print the end of a run to `out`: the cause (or why none is reported), its effect, the `caveats`
// (caveat_lines()), the counters and where the result and the report are.
void print_summary(std::ostream& out, const Findings& findings, const nlohmann::json& result,
                   const std::string& run_dir, const std::vector<std::string>& caveats = {});

}  // namespace envbisect
