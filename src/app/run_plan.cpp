#include "app/run_plan.hpp"

#include <algorithm>
#include <iostream>
#include <string>

#include "search/isolate.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

std::string describe_set(const std::vector<Delta>& deltas, const std::vector<std::size_t>& set) {
  std::vector<std::string> names;
  for (std::size_t index : set) {
    names.push_back(std::string(to_string(deltas[index].dimension)) + "/" + deltas[index].name);
  }
  return "{" + join(names, ", ") + "}";
}

}  // namespace

void print_plan(const std::vector<Delta>& deltas, const std::vector<Axis>& axes,
                const std::vector<std::vector<std::size_t>>& units, const stats::VerdictPolicy& policy,
                bool pass_fail) {
  std::cout << "plan (nothing is run):\n";
  if (pass_fail) {
    std::cout << "  1. anchors: good and bad, " << policy.anchor_runs << (policy.anchor_runs == 1 ? " run" : " runs")
              << " each; good must pass and bad fail (pass/fail: the exit status is the result)\n";
  } else {
    std::cout << "  1. anchors: good and bad, " << policy.anchor_runs << " runs each, interleaved (up to "
              << policy.max_anchor_runs << " while the preflight needs more)\n";
  }
  std::cout << "  2. isolate the minimal cause among " << deltas.size() << " differences:\n";
  std::vector<const Axis*> axis_of(deltas.size(), nullptr);  // a lookup per delta, not a scan of the axes
  for (const Axis& axis : axes) {
    axis_of.at(axis.delta) = &axis;
  }
  for (std::size_t i = 0; i < deltas.size(); ++i) {
    std::string kind = "toggle";
    if (const Axis* axis = axis_of[i]) {
      kind = "ordered axis, " + std::to_string(axis->size() - 2) + " inner " + axis->kind + ": " +
             describe_axis_points(*axis, 64);
    }
    std::cout << "     " << describe(deltas[i]) << "  [" << kind << "]\n";
  }
  for (const std::vector<std::size_t>& unit : units) {
    if (unit.size() > 1) {
      std::cout << "     moved together (pinned): " << describe_set(deltas, unit) << "\n";
    }
  }
  int refine = 0;
  for (const Axis& axis : axes) {
    refine += bisection_worst_case(axis.size());
  }
  for (std::size_t k = 1; k <= std::min<std::size_t>(3, units.size()); ++k) {
    std::cout << "     worst case with " << k << (k == 1 ? " culprit: " : " interacting culprits: ")
              << isolation_worst_case(units.size(), k) << " candidates to isolate, up to " << refine
              << " to refine inside axes\n";
  }
  if (pass_fail) {
    std::cout << "  3. refine culprits inside their ordered axes; 4. verify: one more run of each of the two boundary "
                 "candidates\n";
    std::cout << "  each candidate: exactly " << policy.min_runs << (policy.min_runs == 1 ? " run" : " runs") << "\n";
    return;
  }
  std::cout << "  3. refine culprits inside their ordered axes; 4. probe thread counts 1..max(4, n) (past 8: doublings "
               "and n) with the cause applied; 5. verify both ways\n";
  std::cout << "  each candidate: " << policy.min_runs << " runs first, more while undecided, at most "
            << policy.max_runs << "\n";
}

stats::VerdictPolicy run_policy(const RunOptions& options, const Recipe& recipe, bool pass_fail) {
  stats::VerdictPolicy policy;
  policy.higher_is_better = recipe.higher_is_better;
  policy.any_change = options.any_change;
  if (pass_fail) {
    // Exactly --repeats runs (default 1) of each candidate and each anchor, all of which must agree.
    const int runs = options.repeats > 0 ? options.repeats : 1;
    if (options.max_runs < runs) {
      throw Error("--max-runs " + std::to_string(options.max_runs) + " is below --repeats " + std::to_string(runs) +
                      ": a pass/fail run makes exactly --repeats runs of each candidate",
                  ExitCode::bad_input);
    }
    policy.min_runs = policy.max_runs = runs;
    policy.anchor_runs = policy.max_anchor_runs = runs;
    return policy;
  }
  policy.min_runs = options.repeats > 0 ? options.repeats : recipe.repeats;
  const std::string source = options.repeats > 0 ? std::string("--repeats")
                                                 : options.recipe_path + ": /repeats";
  if (policy.min_runs < 2) {
    throw Error(source + " " + std::to_string(policy.min_runs) +
                    ": a metric verdict needs at least 2 runs of each candidate; for one run per candidate the test "
                    "must be pass/fail (--deterministic, or \"outcome\": \"pass-fail\" in the recipe)",
                ExitCode::bad_input);
  }
  if (options.max_runs < policy.min_runs) {
    throw Error("--max-runs " + std::to_string(options.max_runs) + " is below the " + std::to_string(policy.min_runs) +
                    " first runs of each candidate (" + source + "); lower those or raise --max-runs",
                ExitCode::bad_input);
  }
  policy.max_runs = options.max_runs;
  policy.anchor_runs = std::max(policy.min_runs, options.anchor_runs);
  policy.max_anchor_runs = std::max(policy.anchor_runs, policy.max_runs);
  return policy;
}

}  // namespace envbisect
