#include "app/run_stages.hpp"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>

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
    IndexOracle refine_point = [&](std::size_t index) {
      EnvState state = with_axis_point(cause_state, deltas, axis, index);
      return context.decide(context.evaluator.candidate_for(state, cause), "refine",
                            std::string(to_string(delta.dimension)) + "/" + delta.name + " = " + axis.point(index));
    };
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
    json entry = {{"delta", delta_to_json(delta)}, {"kind", axis.kind}, {"points", axis_points_json(axis)},
                  {"found", bisection.found}, {"last_good", axis.point(bisection.last_good)},
                  {"first_bad", axis.point(bisection.first_bad)}, {"evaluations", bisection.evaluations},
                  {"note", bisection.note}};
    context.journal.append({{"type", "refine"}, {"refine", entry}});
    refinements.push_back(entry);
    std::cout << "  first bad " << axis.kind << ": " << axis.point(bisection.first_bad) << " (last good "
              << axis.point(bisection.last_good) << ")" << (bisection.note.empty() ? "" : "; " + bisection.note)
              << "\n";
  }
  return refinements;
}

nlohmann::json probe_modifiers(const StageContext& context, const DeltaSet& cause, const EnvState& cause_state) {
  json probes = json::array();
  std::vector<EnvState> variants = {cause_state};
  for (const auto& [name, cache] : cause_state.caches) {
    if (cache.state == "warm" || cache.state == "cold") {
      EnvState flipped = cause_state;
      flipped.caches[name].state = cache.state == "warm" ? "cold" : "warm";
      variants.push_back(flipped);
    }
  }
  for (const auto& [knob, count] : cause_state.threads) {
    std::int64_t top = std::max<std::int64_t>(4, count);
    // Every count up to 8, then doublings and the state's own count: 10^7 threads is 30 probes, not 10^7.
    std::vector<std::int64_t> values;
    for (std::int64_t value = 1; value <= top; value = value < 8 ? value + 1 : (value > top / 2 ? top : value * 2)) {
      values.push_back(value);
      if (value == top) {
        break;
      }
    }
    for (const EnvState& variant : variants) {
      std::vector<std::string> cache_states;
      for (const auto& [name, cache] : variant.caches) {
        cache_states.push_back(name + ":" + cache.state);
      }
      std::string caches = join(cache_states, ",");
      std::cout << "probe threads/" << knob << " " << (top <= 8 ? "1.." + std::to_string(top) : "1..8, doublings, " + std::to_string(top))
                << " with the cause applied"
                << (caches.empty() ? "" : ", caches " + caches) << ":\n";
      for (const std::int64_t value : values) {
        EnvState state = variant;
        state.threads[knob] = value;
        std::string label = "threads/" + knob + " = " + std::to_string(value) + (caches.empty() ? "" : ", " + caches);
        Verdict verdict = context.decide(context.evaluator.candidate_for(state, cause), "probe", label);
        // The median the decision saw (anchor runs added after it do not count).
        json probe = {{"type", "probe"}, {"knob", "threads/" + knob}, {"value", value},
                      {"cache", caches}, {"verdict", to_string(verdict)},
                      {"median", context.decisions.back()["median"]}};
        context.journal.append(probe);
        probes.push_back(probe);
      }
    }
  }
  return probes;
}

void print_outcome(std::ostream& out, const std::vector<Delta>& deltas, const Isolation& isolation,
                   const nlohmann::json& refinements, const nlohmann::json& probes) {
  if (!isolation.found) {
    out << "no minimal cause isolated: " << isolation.note << "\n";
    return;
  }
  out << "cause (" << isolation.cause.size() << (isolation.cause.size() == 1 ? " difference" : " differences, together")
      << "):\n";
  for (std::size_t index : isolation.cause) {
    out << "  " << describe(deltas[index]) << "\n";
  }
  out << "verified: good + cause -> " << (isolation.verified_forward ? "bad" : "NOT bad") << "; bad - cause -> "
      << (isolation.verified_reverse ? "good" : "NOT good") << "\n";
  if (!isolation.note.empty()) {
    out << "note: " << isolation.note << "\n";
  }
  for (const json& refinement : refinements) {
    out << "inside " << refinement["delta"]["dimension"].get<std::string>() << "/"
        << refinement["delta"]["name"].get<std::string>() << ": first bad " << refinement["first_bad"].get<std::string>()
        << ", last good " << refinement["last_good"].get<std::string>() << "\n";
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
