#include "app/run/result.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "app/run/plan/budget.hpp"
#include "app/run/refine/stages.hpp"
#include "report/answer.hpp"
#include "util/strings.hpp"
#include "stats/effect.hpp"
#include "stats/quantity.hpp"

namespace envbisect {

using nlohmann::json;

namespace {

// Which way the recipe's metric is better.
stats::Better recipe_better(const Recipe& recipe) {
  return recipe.higher_is_better ? stats::Better::higher : stats::Better::lower;
}

json deltas_json(const std::vector<Delta>& deltas, const DeltaSet& set) {
  json items = json::array();
  for (std::size_t index : set) {
    items.push_back(delta_to_json(deltas[index]));
  }
  return items;
}

// Return how the run ended: found (verified, every refinement resolved), ambiguous, not_found,
// not_verified, or retracted (the anchors no longer differ on all their runs).
std::string outcome_of(const Findings& findings) {
  const Isolation& isolation = findings.isolation;
  // Refining inside an axis that ended boxed in leaves the answer open as well.
  bool refinements_resolved = true;
  for (const json& refinement : findings.refinements) {
    refinements_resolved = refinements_resolved && refinement.value("found", false);
  }
  const bool verified = isolation.found && isolation.verified_forward && isolation.verified_reverse;
  const bool boundary_ok = findings.boundary.is_null() || findings.boundary.value("ok", false);
  if (!findings.budget.is_null()) {
    return "budget";
  }
  if (!findings.final_anchors.distinguishable) {
    return "retracted";
  }
  return isolation.outcome == IsolationOutcome::not_found                              ? "not_found"
         : isolation.outcome == IsolationOutcome::ambiguous || !refinements_resolved ? "ambiguous"
         : verified && boundary_ok                                                     ? "found"
                                                                                       : "not_verified";
}

// Print what a run stopped at its budget knows, and what would settle it.
void print_budget_stop(std::ostream& out, const Findings& findings, const json& result) {
  const json& budget = findings.budget;
  out << "stopped at the budget (" << duration_text(budget["budget_s"].get<double>()) << "): "
      << duration_text(budget["spent_s"].get<double>()) << " spent, " << budget["decisions"].get<int>()
      << " candidates decided; no verified cause yet\n";
  if (findings.isolation.found) {
    out << "isolated so far:";
    for (const json& delta : deltas_json(findings.deltas, findings.isolation.cause)) {
      out << " " << delta["dimension"].get<std::string>() << "/" << delta["name"].get<std::string>();
    }
    out << " (refinements, probes or verification not finished)\n";
  } else if (!result["could_be"].empty()) {
    out << "on the decisions made, the cause could still be any of:\n";
    for (const json& set : result["could_be"]) {
      std::vector<std::string> names;
      for (const json& delta : set) {
        names.push_back(delta["dimension"].get<std::string>() + "/" + delta["name"].get<std::string>());
      }
      out << "  {" << join(names, ", ") << "}\n";
    }
  }
  const json& left = budget["worst_case_left"];
  out << "to settle it: " << budget["resume"].get<std::string>() << " (at worst about "
      << left["decisions"].get<int>() << " more candidates, " << left["runs"].get<int>() << " runs, "
      << duration_text(left["seconds"].get<double>()) << ")\n";
}

}  // namespace

json preflight_to_json(const stats::Preflight& p) {
  return {{"distinguishable", p.distinguishable}, {"good_median", p.good_median}, {"bad_median", p.bad_median},
          {"good_cv", p.good_cv}, {"bad_cv", p.bad_cv}, {"effect", p.effect},
          {"good_fail_rate", p.good_fail_rate}, {"bad_fail_rate", p.bad_fail_rate}, {"metric_p", p.metric_p},
          {"failure_p", p.failure_p}, {"checksum_mismatch", p.checksum_mismatch}, {"message", p.message}};
}

std::string effect_words(const stats::RatioEffect& ratio, const Recipe& recipe) {
  // A direction is claimed only where the interval shows one: "1.12x slower" from one finished run of
  // the cause, or "1.00x faster" with an interval around 1, told the reader more than was measured.
  if (!ratio.low || !ratio.high) {
    return "too few runs to size a change (" + std::to_string(ratio.to_runs) + " with it, " +
           std::to_string(ratio.from_runs) + " good)";
  }
  if (*ratio.low <= 1.0 && *ratio.high >= 1.0) {
    return "no change shown (the interval holds 1x)";
  }
  return stats::comparison_words(1.0, ratio.ratio, recipe_better(recipe), recipe.unit);
}

json cause_effect(const std::vector<double>& from, const std::vector<double>& to, EffectOf of,
                  const Recipe& recipe) {
  const std::optional<stats::RatioEffect> ratio = stats::ratio_effect(from, to);
  if (!ratio) {
    return nullptr;
  }
  return {{"of", of == EffectOf::cause ? "cause" : "anchors"}, {"ratio", ratio->ratio},
          {"low", ratio->low ? json(*ratio->low) : json(nullptr)},
          {"high", ratio->high ? json(*ratio->high) : json(nullptr)}, {"confidence", ratio->confidence},
          {"from_runs", ratio->from_runs}, {"to_runs", ratio->to_runs},
          {"method", "Hodges-Lehmann ratio on the log scale, exact Mann-Whitney interval"},
          {"words", effect_words(*ratio, recipe)}};
}

json result_json(const Findings& findings) {
  const Isolation& isolation = findings.isolation;
  json result = {{"found", false}, {"cause", deltas_json(findings.deltas, isolation.cause)},
                 {"causes", json::array()}, {"evaluations", isolation.evaluations},
                 {"attempts_run", findings.attempts_run}, {"attempts_reused", findings.attempts_reused},
                 {"seconds", findings.seconds},
                 {"verified", {{"forward", isolation.verified_forward}, {"reverse", isolation.verified_reverse}}},
                 {"note", isolation.note}, {"metric", findings.recipe.metric},
                 {"anchors", preflight_to_json(findings.preflight)}, {"anchor_runs", findings.anchor_runs},
                 {"steps", json::array()}, {"refinements", findings.refinements}, {"probes", findings.probes}};
  result["outcome"] = outcome_of(findings);
  result["mode"] = findings.one_run ? "pass-fail" : findings.rate_mode ? "rate" : "metric";
  result["unit"] = findings.recipe.unit;
  result["decisions"] = findings.decisions;
  if (!findings.effect.is_null()) {
    result["effect"] = findings.effect;
  }
  if (!findings.boundary.is_null()) {
    result["boundary_rerun"] = findings.boundary;
  }
  result["rereads_anchors"] = isolation.forward_is_anchor;  // "verified" then only re-read the anchors
  result["could_be"] = json::array();
  for (const DeltaSet& set : isolation.could_be) {
    result["could_be"].push_back(deltas_json(findings.deltas, set));
  }
  result["settle"] = isolation.settle;
  if (!findings.budget.is_null()) {
    // The search's own settle text speaks of untestable sets: here they were only left unasked.
    result["budget"] = findings.budget;
    result["settle"] = findings.budget["resume"].get<std::string>() + " continues it, reusing every run";
  }
  if (result["outcome"] == "retracted") {
    result["final_anchors"] = preflight_to_json(findings.final_anchors);
  }
  result["found"] = result["outcome"] == "found";
  for (const DeltaSet& cause : isolation.causes) {
    result["causes"].push_back(deltas_json(findings.deltas, cause));
  }
  // Per cause, its members that are in it only because they are untestable apart from the rest (a
  // renamed package's other half): never shown needed on their own. Present when any cause has one.
  const auto has_members = [](const DeltaSet& set) { return !set.empty(); };
  if (std::any_of(isolation.coupled.begin(), isolation.coupled.end(), has_members)) {
    result["coupled"] = json::array();
    for (const DeltaSet& coupled : isolation.coupled) {
      result["coupled"].push_back(deltas_json(findings.deltas, coupled));
    }
  }
  if (!result["found"].get<bool>()) {
    // A guess is no answer: `cause` only when found, so a script reading it never takes a guess for
    // one; what the search isolated without verifying it leads `could_be`.
    json& could_be = result["could_be"];
    for (auto guess = result["causes"].rbegin(); guess != result["causes"].rend(); ++guess) {
      if (!guess->empty() && std::find(could_be.begin(), could_be.end(), *guess) == could_be.end()) {
        could_be.insert(could_be.begin(), *guess);
      }
    }
    if (!result["cause"].empty() && std::find(could_be.begin(), could_be.end(), result["cause"]) == could_be.end()) {
      could_be.insert(could_be.begin(), result["cause"]);
    }
    result["cause"] = json::array();
    result["causes"] = json::array();
    result.erase("coupled");
  }
  for (const SearchStep& step : isolation.steps) {
    result["steps"].push_back({{"applied", step.applied}, {"verdict", to_string(step.verdict)}, {"why", step.why}});
  }
  for (const json& decision : findings.verdict_log) {
    if (decision.value("checksum_mismatch", false)) {
      result["checksum_mismatches"].push_back(decision["applied"]);
    }
    if (decision.value("different_failure", false)) {
      result["different_failures"].push_back(decision["applied"]);
    }
  }
  return result;
}

std::string result_file_text(const json& result) {
  // A reader (or `head`) meets the answer before the bookkeeping: nlohmann::json sorts its keys, so the
  // file is written from an ordered copy.
  static constexpr const char* k_order[] = {
      "found", "outcome", "cause", "coupled", "verified", "rereads_anchors", "effect", "could_be", "settle", "note",
      "probes_pending", "budget", "refinements", "probes", "boundary_rerun", "causes", "final_anchors",
      "checksum_mismatches", "different_failures", "mode", "metric", "unit", "anchors", "anchor_runs", "decisions",
      "evaluations", "attempts_run", "attempts_reused", "seconds", "steps"};
  nlohmann::ordered_json ordered = nlohmann::ordered_json::object();
  for (const char* key : k_order) {
    if (result.contains(key)) {
      ordered[key] = nlohmann::ordered_json(result[key]);
    }
  }
  for (const auto& [key, value] : result.items()) {
    if (!ordered.contains(key)) {
      ordered[key] = nlohmann::ordered_json(value);
    }
  }
  return ordered.dump(2) + "\n";
}

std::vector<std::string> caveat_lines(const report::Answer& answer) {
  // One line each, however many decisions they cover; the report lists every decision.
  std::vector<std::string> lines;
  if (!answer.noise.empty()) {
    lines.push_back("noise: " + answer.noise + " — details in the report");
  }
  if (!answer.load.empty()) {
    lines.push_back("load: " + answer.load + " — details in the report");
  }
  return lines;
}

void print_summary(std::ostream& out, const Findings& findings, const json& result, const std::string& run_dir,
                   const std::vector<std::string>& caveats) {
  const bool retracted = result["outcome"] == "retracted";
  const bool boundary_ok = findings.boundary.is_null() || findings.boundary.value("ok", false);
  if (!findings.budget.is_null()) {
    print_budget_stop(out, findings, result);
  } else if (retracted) {
    // Each anchor's count is in the message: the bad anchor, topped up by the decisions, often has more.
    out << "retracted: on all their runs the anchors no longer differ (" << findings.final_anchors.message
        << "); no cause is reported\n";
  } else {
    print_outcome(out, findings.deltas, findings.isolation, findings.refinements, findings.probes);
    if (!findings.boundary.is_null() && boundary_ok) {
      const bool resolved = std::all_of(findings.refinements.begin(), findings.refinements.end(),
                                        [](const json& r) { return r.value("found", false); });
      // Which pair was re-run: a refinement's last good and first bad, or (no refinement ended on one
      // point, or none was made) bad minus the causes and good plus the cause. Journals before "of"
      // re-ran a refinement's pair exactly when one ended on a point.
      const bool any_found = std::any_of(findings.refinements.begin(), findings.refinements.end(),
                                         [](const json& r) { return r.value("found", false); });
      const bool of_refinement = findings.boundary.value("of", any_found ? "refinement" : "causes") == "refinement";
      // In one-run mode chosen from the anchors the good sides ran until they passed the good anchor's count.
      const int passed = findings.boundary.value("good_runs", 0);
      const std::string again =
          passed > 0 ? "gave the same answers again (the good side passed every run, at least the good anchor's " +
                           std::to_string(passed) + ")"
                     : "gave the same answers on a second run";
      if (of_refinement) {
        out << (resolved ? "verified: the last good and the first bad candidate " + again + "\n"
                         : "re-run: the last good and the first bad candidate of the first resolved refinement " +
                               again + "; the other refinements stay undecided\n");
      } else {
        out << "re-run: bad minus the causes and good plus the cause " << again
            << (result.value("rereads_anchors", false) ? " (they are the good and the bad anchor: nothing new verified)"
                                                       : "")
            << (resolved ? "" : "; the first bad inside the refined axis stays undecided (its points were not re-run)")
            << "\n";
      }
    }
    if (!boundary_ok) {
      out << "NOT verified: a boundary candidate gave a different answer on its second run (the test is not "
             "deterministic there); see the verify lines above\n";
    }
  }
  const json& effect = findings.effect;
  if (!effect.is_null() && !retracted) {
    // A cause the run could not verify (stopped at its budget) is what was isolated so far: said so.
    const bool unverified = effect["of"] == "cause" &&
                            !(findings.isolation.verified_forward && findings.isolation.verified_reverse);
    out << "effect of the " << effect["of"].get<std::string>() << (unverified ? " isolated so far (not verified)" : "")
        << ": ";
    if (effect.contains("failures")) {
      const json& f = effect["failures"];
      out << "fails " << f["to"] << " of " << f["to_runs"] << " runs (good: " << f["from"] << " of " << f["from_runs"]
          << ")" << (effect.contains("ratio") ? "; of the runs that finished, " : "");
    }
    if (effect.contains("ratio")) {
      // In the user's terms, the interval in the same terms ("5.76× slower (95 % CI 4.13–10.4×)"); how it
      // was computed is in result.json and the report.
      std::optional<double> low;
      std::optional<double> high;
      if (effect.contains("low") && effect["low"].is_number() && effect.contains("high") && effect["high"].is_number()) {
        low = effect["low"].get<double>();
        high = effect["high"].get<double>();
      }
      const std::string& unit = findings.recipe.unit;
      out << report::factor_words(effect["ratio"].get<double>(), low, high, recipe_better(findings.recipe), unit)
          << " in " << (unit.empty() ? findings.recipe.metric : unit) << ", " << effect["from_runs"] << " good runs vs "
          << effect["to_runs"] << " with the " << (effect["of"] == "cause" ? "cause" : "bad anchor");
    }
    out << "\n";
  }
  for (const std::string& line : caveats) {
    out << line << "\n";
  }
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, "%.0f s", findings.seconds);
  // Counters that count what they say: decided candidates of every stage, runs made in this session.
  const int decisions = findings.decisions;
  out << "decided " << decisions << (decisions == 1 ? " candidate" : " candidates") << " ("
      << findings.isolation.evaluations << " while isolating), " << findings.attempts_run
      << (findings.attempts_run == 1 ? " benchmark run" : " benchmark runs") << " (" << findings.attempts_reused
      << " reused from the journal), " << elapsed << "\n"
      << "result: " << run_dir << "/result.json, report: " << run_dir << "/report.html\n";
}

}  // namespace envbisect
