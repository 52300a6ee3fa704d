#pragma once

#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/run/plan/axes.hpp"
#include "app/inputs/restore_check.hpp"
#include "app/run/run.hpp"
#include "app/measure/runners.hpp"
#include "core/delta.hpp"
#include "core/recipe.hpp"
#include "core/state.hpp"
#include "stats/verdict.hpp"

namespace envbisect {

// Return the verdict policy the options ask for: statistical, or pass/fail (exactly --repeats runs,
// default 1) when the recipe is pass/fail (recipe.pass_fail, which --deterministic sets too). Throw
// Error (exit 2) for what the mode cannot do instead of raising it silently: a metric verdict with
// fewer than 2 runs per candidate, --max-runs below the first runs.
stats::VerdictPolicy run_policy(const RunOptions& options, const Recipe& recipe);

// A run's inputs, loaded, checked and planned; nothing has been written for it yet.
struct PlannedRun {
  EnvState good;
  EnvState bad;
  Recipe recipe;                 // its pass_fail set when --deterministic asks
  std::vector<Delta> deltas;     // from good to bad, never empty
  RestoreInputs restore;         // where every package comes from
  bool pass_fail = false;        // judged by exit status alone
  stats::VerdictPolicy policy;
  std::vector<Axis> axes;        // ordered axes (versions, commits, thread counts) to refine inside
  std::vector<std::vector<std::size_t>> units;  // what the search moves: deltas, or pinned groups together
};

// Load and check the three inputs (every file's problems together), diff them, check every package
// has a source (adding download folders to options.wheel_dirs) and plan the search. Throw Error
// (bad_input) naming the file and field when an input is wrong.
PlannedRun plan_run(RunOptions& options);

// Print what the planned run would do and its worst-case number of evaluations, running nothing; the
// runs per anchor and candidate are the ones its policy will make.
void print_plan(const PlannedRun& plan);

// Return where and how runs go: the command line's choice, completed by the recipe (its isolation
// when the command line asks for none, whether isolated runs may reach the network) and, for Slurm,
// the GPUs one run needs (the widest split of the two states) unless --slurm-gpus says.
ExecutionOptions execution_for(const RunOptions& options, const Recipe& recipe, const EnvState& good,
                               const EnvState& bad);

// Return run.json: the inputs (with their hashes, so `resume` can refuse changed ones) and every
// option `resume` reads back.
nlohmann::json run_document(const RunOptions& options, const RestoreInputs& restore,
                            const std::vector<std::string>& wheel_dirs);

}  // namespace envbisect
