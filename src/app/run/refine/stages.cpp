#include "app/run/refine/stages.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <string_view>

#include "stats/pass_fail.hpp"
#include "store/journal.hpp"
#include "util/strings.hpp"

namespace envbisect {

using nlohmann::json;

nlohmann::json refine_cause(const StageContext& context, const std::vector<Axis>& axes, const DeltaSet& cause,
                            const EnvState& cause_state) {
  json refinements = json::array();
  const std::vector<Delta>& deltas = context.deltas;
  for (const Axis& axis : axes) {
    if (std::find(cause.begin(), cause.end(), axis.delta) == cause.end()) {
      continue;
    }
    const Delta& delta = deltas[axis.delta];
    std::cout << "refine " << to_string(delta.dimension) << "/" << delta.name << " over " << axis.size() - 2
              << " inner " << axis.kind << ":\n";
    bool cut = false;  // a point answered skip only because the budget or a stop ended measuring
    IndexOracle refine_point = [&](std::size_t index) {
      EnvState state = with_axis_point(cause_state, deltas, axis, index);
      const Verdict verdict =
          context.decide(context.evaluator.candidate_for(state, cause), "refine",
                         std::string(to_string(delta.dimension)) + "/" + delta.name + " = " + axis.point(index));
      cut = cut || (verdict == Verdict::skip && context.stopped && context.stopped());
      return verdict;
    };
    // Good is not an ancestor of bad: the range leaves through the merge bases, asked first as git
    // bisect asks them. Only when each is good may the search assume the range's outside parents good.
    std::string base_note;
    std::string bad_base;
    int bases_asked = 0;
    for (const std::string& base : axis.merge_bases) {
      ++bases_asked;
      EnvState state = cause_state;
      state.repos[delta.name].commit = base;
      state.repos[delta.name].ref.clear();
      const std::string label = std::string(to_string(delta.dimension)) + "/" + delta.name + " = " + base;
      const Verdict verdict = context.decide(context.evaluator.candidate_for(state, cause), "refine", label + " (merge base)");
      if (verdict == Verdict::good) {
        continue;
      }
      bad_base = base;
      const bool stopped = verdict == Verdict::skip && context.stopped && context.stopped();
      base_note = stopped ? "not finished: the budget ran out before the merge base " + base +
                                " was measured (resume to continue)"
                  : verdict == Verdict::bad || verdict == Verdict::intermediate
                      ? "the merge base " + base + " of good and bad is bad: the change is older than good, which "
                        "is not an ancestor of bad; it was fixed between the merge base and good, not introduced "
                        "between good and bad (git bisect stops there too), so no first bad commit is named"
                      : "the merge base " + base + " of good and bad is untestable (" + std::string(to_string(verdict)) +
                        "): good is not an ancestor of bad, and without a good merge base the range's first bad "
                        "commit cannot be told";
      break;
    }
    if (!bad_base.empty()) {
      json entry = {{"delta", delta_to_json(delta)}, {"kind", axis.kind}, {"points", axis_points_json(axis)},
                    {"found", false}, {"last_good", axis.point(0)}, {"first_bad", axis.point(axis.size() - 1)},
                    {"evaluations", bases_asked}, {"note", base_note}, {"merge_base", bad_base}};
      context.journal.append({{"type", "refine"}, {"refine", entry}});
      refinements.push_back(entry);
      std::cout << "  unresolved: " << base_note << "\n";
      continue;
    }
    if (!axis.merge_bases.empty()) {
      std::cout << "  good is not an ancestor of bad: the merge base" << (axis.merge_bases.size() > 1 ? "s are" : " is")
                << " good, so the range's commits are bisected as git bisect does\n";
    }
    // With k slots an axis (a chain, or a commit DAG with merges) is searched k points a round: their
    // first runs go side by side, then each point is decided in order (extra runs one at a time).
    const auto slots = static_cast<std::size_t>(context.slots);
    Bisection bisection =
        slots > 1
            ? bisect_axis_k(axis, slots, [&](const std::vector<std::size_t>& indices) {
                std::vector<Candidate> batch;
                for (std::size_t index : indices) {
                  batch.push_back(
                      context.evaluator.candidate_for(with_axis_point(cause_state, deltas, axis, index), cause));
                }
                context.evaluator.measure_all(batch, context.min_runs, context.slots);
                std::vector<Verdict> verdicts;
                for (std::size_t index : indices) {
                  verdicts.push_back(refine_point(index));
                }
                return verdicts;
              }).bisection
            : bisect_axis(axis, refine_point);
    if (bases_asked > 0) {
      // The merge bases were questions too, asked first.
      bisection.evaluations += bases_asked;
      const std::string tested = "good is not an ancestor of bad: the merge base" +
                                 std::string(bases_asked > 1 ? "s " : " ") + join(axis.merge_bases, ", ") +
                                 " tested good first, as git bisect does";
      bisection.note = bisection.note.empty() ? tested : bisection.note + "; " + tested;
    }
    if (!bisection.found && cut) {
      // Not boxed in by untestable points: the points were never run.
      bisection.note = "not finished: the budget ran out before every point was measured (resume to continue)";
    }
    json entry = {{"delta", delta_to_json(delta)}, {"kind", axis.kind}, {"points", axis_points_json(axis)},
                  {"found", bisection.found}, {"last_good", axis.point(bisection.last_good)},
                  {"first_bad", axis.point(bisection.first_bad)}, {"evaluations", bisection.evaluations},
                  {"note", bisection.note}};
    context.journal.append({{"type", "refine"}, {"refine", entry}});
    refinements.push_back(entry);
    if (bisection.found) {
      std::cout << "  first bad " << axis.kind << ": " << axis.point(bisection.first_bad) << " (last good "
                << axis.point(bisection.last_good) << ")" << (bisection.note.empty() ? "" : "; " + bisection.note)
                << "\n";
    } else {
      // Boxed in (or cut by the budget): the points between were never measured good or bad, so no first
      // bad is claimed.
      std::cout << "  unresolved: " << bisection.note << "\n";
    }
  }
  return refinements;
}

std::vector<DeltaSet> good_parts_of_cause(const Isolation& isolation) {
  std::vector<DeltaSet> parts;
  if (isolation.cause.size() < 2) {
    return parts;
  }
  for (const SearchStep& step : isolation.steps) {
    const bool part = !step.applied.empty() && step.applied.size() < isolation.cause.size() &&
                      std::includes(isolation.cause.begin(), isolation.cause.end(), step.applied.begin(),
                                    step.applied.end());
    if (!step.assumed && step.verdict == Verdict::good && part &&
        std::find(parts.begin(), parts.end(), step.applied) == parts.end()) {
      parts.push_back(step.applied);
    }
  }
  // Not for a union of partial causes (each member adds to the effect, so none is good without the
  // rest), nor less a coupled member (untestable apart from its partner).
  const DeltaSet coupled = isolation.coupled.empty() ? DeltaSet{} : isolation.coupled.front();
  for (std::size_t i = 0; i < isolation.cause.size() && !isolation.united; ++i) {
    if (std::find(coupled.begin(), coupled.end(), isolation.cause[i]) != coupled.end()) {
      continue;
    }
    DeltaSet less = isolation.cause;
    less.erase(less.begin() + static_cast<std::ptrdiff_t>(i));
    if (std::find(parts.begin(), parts.end(), less) == parts.end()) {
      parts.push_back(less);
    }
  }
  return parts;
}

namespace {

// Each candidate re-run, with the verdict the answer says it has (and, for a good side, the runs it
// must pass; 0: the good side's count).
struct Check {
  Candidate candidate;
  std::string label;
  Verdict expected;
  int runs = 0;
};

// Seconds a run of `candidate` takes: the mean of its runs so far, else of all runs.
double seconds_per_run(const StageContext& context, const Candidate& candidate) {
  const std::vector<RunResult>& runs = context.evaluator.attempts(candidate);
  return runs.empty() ? context.evaluator.mean_run_seconds() : mean_wall_seconds(runs);
}

// Return the checks in the order they are re-run: the bad sides first (one more run each), then the
// good sides; where their run times differ (stats::run_times_differ: by more than a quarter), cheapest
// run first, else in the answer's order (timing noise would pick it).
std::vector<Check> bad_sides_then_cheapest_good_sides(const StageContext& context, std::vector<Check> to_check) {
  std::vector<double> cost;
  for (const Check& check : to_check) {
    cost.push_back(check.expected == Verdict::good ? seconds_per_run(context, check.candidate) : -1.0);
  }
  double cheapest = 0.0, dearest = 0.0;
  for (double c : cost) {
    if (c > 0.0) {
      cheapest = cheapest > 0.0 ? std::min(cheapest, c) : c;
      dearest = std::max(dearest, c);
    }
  }
  if (!stats::run_times_differ(cheapest, dearest)) {
    for (double& c : cost) {
      c = std::min(c, 0.0);
    }
  }
  std::vector<std::size_t> order(to_check.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&cost](std::size_t a, std::size_t b) { return cost[a] < cost[b]; });
  std::vector<Check> ordered;
  for (std::size_t i : order) {
    ordered.push_back(to_check[i]);
  }
  return ordered;
}

// The runs rerun() is asked to bring a check to: none for a bad side (one more run), a good side's own
// count, else the good anchor's.
int runs_asked(const Check& check, int good_runs) {
  return check.expected != Verdict::good ? 0 : check.runs > 0 ? check.runs : good_runs;
}

// The runs each check will have when rerun() has decided it: one more than now, or the count asked
// where that is more (rerun()'s rule).
int runs_when_decided(const Check& check, int good_runs, const RunsInView& in_view) {
  return std::max(in_view.seen(check.candidate) + 1, runs_asked(check, good_runs));
}

// From `first` on, run the good sides that rerun() would hold to several runs side by side, each to
// one run short of its count (rerun() runs the last and decides). Next runs the side whose next run
// would end soonest were each side's runs laid end to end from the start of the rounds (ties: in
// `to_check`'s order): every side gets about the same seconds, so a race that bites one of them shows
// at about twice what that side's own runs to the failure cost, whichever side it is -- not after a
// cheaper clean side passed all its runs first (a race needs threads, and threads make runs dear),
// nor after a dear clean side held up a cheap racing one. A side whose run fails ends the rounds and
// moves to `first`: it is decided next, on the runs it has (return true then).
bool good_sides_side_by_side(const StageContext& context, std::vector<Check>& to_check, std::size_t first,
                             int good_runs, const RunsInView& in_view) {
  struct Held {
    std::size_t index;
    int target;
    double seconds;  // a run's
    double spent = 0.0;
  };
  std::vector<Held> held;
  for (std::size_t i = first; i < to_check.size(); ++i) {
    if (to_check[i].expected == Verdict::good) {
      held.push_back({i, runs_when_decided(to_check[i], good_runs, in_view) - 1,
                      std::max(seconds_per_run(context, to_check[i].candidate), 1e-3)});
    }
  }
  if (held.size() < 2) {
    return false;  // one side alone runs as rerun() runs it
  }
  std::cout << "verify: " << held.size()
            << " good sides side by side, about equal seconds each (one that fails is decided first):\n";
  for (;;) {
    Held* next = nullptr;
    for (Held& side : held) {
      if (in_view.seen(to_check[side.index].candidate) < side.target &&
          (next == nullptr || side.spent + side.seconds < next->spent + next->seconds)) {
        next = &side;
      }
    }
    if (next == nullptr) {
      return false;
    }
    const Candidate& candidate = to_check[next->index].candidate;
    if (!in_view.run_while_passing(candidate, in_view.seen(candidate) + 1)) {
      // Failed (or the budget stopped it): decide it next.
      std::rotate(to_check.begin() + static_cast<std::ptrdiff_t>(first),
                  to_check.begin() + static_cast<std::ptrdiff_t>(next->index),
                  to_check.begin() + static_cast<std::ptrdiff_t>(next->index) + 1);
      return true;
    }
    next->spent += next->seconds;
  }
}

}  // namespace

nlohmann::json verify_boundary(const StageContext& context, const std::vector<Axis>& axes, const Isolation& isolation,
                               const nlohmann::json& refinements, const EnvState& cause_state,
                               const RerunCandidate& rerun, int good_runs, int part_runs, BoundarySides* sides,
                               const RunsInView* in_view) {
  std::vector<Check> to_check;
  // refine_cause() journals one entry per axis of the cause, in axis order.
  std::size_t entry = 0;
  for (const Axis& axis : axes) {
    if (std::find(isolation.cause.begin(), isolation.cause.end(), axis.delta) == isolation.cause.end()) {
      continue;
    }
    const json& refinement = refinements.at(entry++);
    if (!to_check.empty() || !refinement.value("found", false)) {
      continue;
    }
    const Delta& delta = context.deltas[axis.delta];
    for (const char* key : {"last_good", "first_bad"}) {
      const std::string point = refinement[key].get<std::string>();
      // A numbers axis is a range, never listed: its index is the distance from the good end.
      std::size_t index = 0;
      if (axis.numbers) {
        const std::int64_t value = std::stoll(point);
        index = axis.numbers->from <= axis.numbers->to ? static_cast<std::size_t>(value - axis.numbers->from)
                                                       : static_cast<std::size_t>(axis.numbers->from - value);
      } else {
        index = static_cast<std::size_t>(std::find(axis.points.begin(), axis.points.end(), point) - axis.points.begin());
      }
      to_check.push_back(
          {context.evaluator.candidate_for(with_axis_point(cause_state, context.deltas, axis, index), isolation.cause),
           std::string(to_string(delta.dimension)) + "/" + delta.name + " = " + point,
           std::string_view(key) == "last_good" ? Verdict::good : Verdict::bad});
    }
  }
  // No refined axis ended on one first bad point: the answer rests on the causes themselves.
  const bool of_refinement = !to_check.empty();
  DeltaSet reverted;
  for (const DeltaSet& cause : isolation.causes) {
    reverted.insert(reverted.end(), cause.begin(), cause.end());
  }
  std::sort(reverted.begin(), reverted.end());
  DeltaSet rest;
  for (std::size_t i = 0; i < context.deltas.size(); ++i) {
    if (!std::binary_search(reverted.begin(), reverted.end(), i)) {
      rest.push_back(i);
    }
  }
  if (!of_refinement) {
    to_check.push_back({context.evaluator.candidate(rest), "bad minus the causes", Verdict::good});
    to_check.push_back({context.evaluator.candidate(isolation.cause), "good plus the cause", Verdict::bad});
  } else if (good_runs > 0 && !rest.empty()) {
    // The other good side of the answer ("bad - cause -> good") is held to the same count.
    to_check.push_back({context.evaluator.candidate(rest), "bad minus the causes", Verdict::good});
  }
  if (good_runs > 0 && isolation.cause.size() > 1) {
    // A cause of several members says each is needed: the parts of it the search found good are
    // good sides of the answer too (a race that bites in some runs passes one or two easily, and the
    // answer would name an interaction that is one difference alone).
    for (const DeltaSet& part : good_parts_of_cause(isolation)) {
      to_check.push_back({context.evaluator.candidate(part), "part of the cause " + describe_set(context.deltas, part),
                          Verdict::good, std::max(good_runs, part_runs)});
    }
  }
  to_check = bad_sides_then_cheapest_good_sides(context, std::move(to_check));
  json checks = json::array();
  bool ok = true;
  if (good_runs > 0) {
    std::cout << "verify: the good side until it has passed " << good_runs
              << " runs, as the good anchor did (a race that bites only in some runs can pass one or two), the "
                 "bad side once more:\n";
  } else {
    std::cout << "verify: one more run of each boundary candidate:\n";
  }
  bool side_by_side = in_view != nullptr;
  for (std::size_t i = 0; i < to_check.size(); ++i) {
    bool failed = false;
    if (side_by_side && to_check[i].expected == Verdict::good) {
      // The bad sides before it ran first (one run each); the good sides run side by side.
      side_by_side = false;
      failed = good_sides_side_by_side(context, to_check, i, good_runs, *in_view);
    }
    const Check& check = to_check[i];
    const Verdict verdict =
        failed ? in_view->decide(check.candidate, check.label)
               : rerun(check.candidate, check.label, runs_asked(check, good_runs));
    ok = ok && verdict == check.expected;
    if (sides != nullptr) {
      (check.expected == Verdict::good ? sides->good : sides->bad).push_back(check.candidate);
      (check.expected == Verdict::good ? sides->good_labels : sides->bad_labels).push_back(check.label);
    }
    checks.push_back({{"label", check.label}, {"expected", to_string(check.expected)},
                      {"verdict", to_string(verdict)}});
    if (!ok) {
      // The answer did not hold: the checks after this one cannot verify it any more, and a good side
      // held to 27 passes on the GPU costs minutes (the search asks again on what it learnt).
      break;
    }
  }
  json out = {{"checks", checks},
              {"ok", ok},
              {"of", of_refinement ? "refinement" : "causes"},
              {"good_runs", good_runs}};
  context.journal.append({{"type", "verify"}, {"verify", out}});
  return out;
}

void print_outcome(std::ostream& out, const std::vector<Delta>& deltas, const Isolation& isolation,
                   const nlohmann::json& refinements, const nlohmann::json& probes) {
  if (isolation.outcome == IsolationOutcome::not_found) {
    out << "no minimal cause isolated: " << isolation.note << "\n";
    return;
  }
  if (isolation.outcome == IsolationOutcome::ambiguous) {
    out << "ambiguous: no cause verified; it could be any of:\n";
    for (const DeltaSet& set : isolation.could_be) {
      std::vector<std::string> names;
      for (std::size_t index : set) {
        names.push_back(std::string(to_string(deltas[index].dimension)) + "/" + deltas[index].name);
      }
      out << "  {" << join(names, ", ") << "}\n";
    }
    if (!isolation.settle.empty()) {
      out << "to settle it: " << isolation.settle << "\n";
    }
    if (!isolation.note.empty()) {
      out << "note: " << isolation.note << "\n";
    }
    return;
  }
  // Members in the cause only because they are untestable apart from it (a rename's other half) say so.
  const DeltaSet coupled = isolation.coupled.empty() ? DeltaSet{} : isolation.coupled.front();
  out << "cause (" << isolation.cause.size()
      << (isolation.cause.size() == 1 ? " difference"
          : coupled.empty()            ? " differences, together"
                                       : " differences, untestable apart")
      << "):\n";
  for (std::size_t index : isolation.cause) {
    const bool partner = std::find(coupled.begin(), coupled.end(), index) != coupled.end();
    out << "  " << describe(deltas[index]) << (partner ? "  (cannot be tested apart from the rest)" : "") << "\n";
  }
  if (isolation.forward_is_anchor) {
    // good + everything is the bad anchor and bad - everything the good one: re-reading them proves nothing.
    out << "not a verification: the cause is every difference, so good + cause is the bad anchor and bad - cause the "
           "good anchor, re-read"
        << (isolation.cause.size() > 1 && coupled.empty()
                ? "; each member is needed because the smaller sets the search measured were good"
                                       : "")
        << "\n";
  } else {
    out << "verified: good + cause -> " << (isolation.verified_forward ? "bad" : "NOT bad") << "; bad - "
        << (isolation.causes.size() > 1 ? "causes" : "cause") << " -> "
        << (isolation.verified_reverse ? "good" : "NOT good")
        << (isolation.reverse_is_anchor ? " (that is the good anchor itself: not a separate check)" : "") << "\n";
  }
  if (!isolation.note.empty()) {
    out << "note: " << isolation.note << "\n";
  }
  for (const json& refinement : refinements) {
    out << "inside " << refinement["delta"]["dimension"].get<std::string>() << "/"
        << refinement["delta"]["name"].get<std::string>();
    if (refinement.value("found", false)) {
      out << ": first bad " << refinement["first_bad"].get<std::string>() << ", last good "
          << refinement["last_good"].get<std::string>() << "\n";
    } else {
      out << ": unresolved (" << refinement.value("note", std::string()) << ")\n";
    }
  }
  std::map<std::string, std::vector<std::string>> bites;
  for (const json& probe : probes) {
    std::string cache = probe["cache"].get<std::string>();
    bites[probe["knob"].get<std::string>() + (cache.empty() ? "" : ", " + cache)].push_back(
        std::to_string(probe["value"].get<std::int64_t>()) + ": " + probe["verdict"].get<std::string>());
  }
  for (const auto& [knob, values] : bites) {
    out << "when it bites (" << knob << "): " << join(values, ", ") << "\n";
  }
}

}  // namespace envbisect
