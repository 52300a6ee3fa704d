#include "app/run/plan/plan.hpp"
#include "app/run/plan/units.hpp"

#include <algorithm>
#include <iostream>
#include <string>
#include <string_view>

#include "search/isolate.hpp"
#include "app/inputs/load.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"
#include "util/words.hpp"

namespace envbisect {

using nlohmann::json;

namespace {

// Load all three inputs, collecting the problems of every file before giving up.
void load_inputs(const RunOptions& options, EnvState& good, EnvState& bad, Recipe& recipe) {
  std::vector<std::string> messages;
  auto attempt = [&](auto load) {
    try {
      load();
    } catch (const Error& error) {
      messages.push_back(error.what());
    }
  };
  attempt([&] { good = load_state_file(options.good_path); });
  attempt([&] { bad = load_state_file(options.bad_path); });
  attempt([&] { recipe = load_recipe_file(options.recipe_path,
                                              options.deterministic ? Deterministic::yes : Deterministic::no); });
  if (!messages.empty()) {
    throw Error(join(messages, "\n"), ExitCode::bad_input);
  }
  check_run_inputs(good, options.good_path, bad, options.bad_path, recipe, options.recipe_path, options.wheel_dirs);
  check_store_dir(options.store_dir);
}

}  // namespace

void print_plan(const PlannedRun& plan) {
  const std::vector<Delta>& deltas = plan.deltas;
  const std::vector<Axis>& axes = plan.axes;
  const std::vector<std::vector<std::size_t>>& units = plan.units;
  const stats::VerdictPolicy& policy = plan.policy;
  const bool pass_fail = plan.pass_fail;
  std::cout << "plan (nothing is run):\n";
  if (pass_fail) {
    std::cout << "  1. anchors: good and bad, " << policy.anchor_runs << (policy.anchor_runs == 1 ? " run" : " runs")
              << " each; good must pass and bad fail (pass/fail: the exit status is the result)\n";
  } else {
    std::cout << "  1. anchors: good and bad, " << policy.anchor_runs << " runs each, interleaved (up to "
              << policy.max_anchor_runs << " while the preflight needs more)\n";
  }
  std::cout << "  2. isolate the minimal cause among " << counted(static_cast<long long>(deltas.size()), "difference")
            << ":\n";
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
    refine += bisection_worst_case(axis.size()) + static_cast<int>(axis.merge_bases.size());
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

stats::VerdictPolicy run_policy(const RunOptions& options, const Recipe& recipe) {
  stats::VerdictPolicy policy;
  policy.higher_is_better = recipe.higher_is_better;
  policy.unit = recipe.unit;
  policy.any_change = options.any_change;
  if (recipe.pass_fail) {
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

PlannedRun plan_run(RunOptions& options) {
  PlannedRun plan;
  load_inputs(options, plan.good, plan.bad, plan.recipe);
  plan.deltas = diff_states(plan.good, plan.bad);
  if (plan.deltas.empty()) {
    throw Error(options.good_path + " and " + options.bad_path + " describe the same environment: nothing to bisect",
                ExitCode::bad_input);
  }
  // Every pinned build must have a source (wheel folder, store download, uv cache, index) before anything runs.
  plan.restore = restore_packages(RestoreRequest{options.good_path, options.bad_path, options.wheel_dirs,
                                                 options.uv_caches, options.store_dir, options.index_urls,
                                                 options.find_links, options.offline, options.index_timeout_s,
                                                 options.download_timeout_s, options.max_download_gib,
                                                 options.dry_run},
                                  plan.good, plan.bad);
  options.wheel_dirs = plan.restore.wheel_dirs;
  // A pass/fail test (the recipe says so, or --deterministic) is judged by exit status, one run each.
  plan.pass_fail = options.deterministic || plan.recipe.pass_fail;
  plan.recipe.pass_fail = plan.pass_fail;
  plan.policy = run_policy(options, plan.recipe);
  try {
    plan.axes = plan_axes(plan.deltas, plan.good, plan.bad, options.wheel_dirs,
                          options.first_parent ? FirstParent::yes : FirstParent::no);
  } catch (const Error& e) {
    if (std::string_view(e.what()).rfind("/repos/", 0) != 0) {
      throw;
    }
    throw Error(options.good_path + " and " + options.bad_path + ": " + e.what(), e.code());
  }
  plan.units = plan_units(plan.deltas, plan.good, plan.bad, options.wheel_dirs, options.uv_caches);
  pin_group_axes(plan.axes, plan.deltas, plan.units, plan.bad, options.wheel_dirs, options.uv_caches);
  return plan;
}

// Return where and how runs go: the command line's choice, completed by the recipe (its isolation
// when the command line asks for none, whether isolated runs may reach the network) and, for Slurm,
// the GPUs one run needs (the widest split of the two states, when the recipe uses {gpus.*}) unless
// --slurm-gpus says.
ExecutionOptions execution_for(const RunOptions& options, const Recipe& recipe, const EnvState& good,
                               const EnvState& bad) {
  ExecutionOptions execution = options.execution;
  if (execution.isolation == "none" && !recipe.isolation.empty()) {
    execution.isolation = recipe.isolation;
  }
  execution.isolation_network = execution.isolation_network || recipe.network;
  const std::vector<std::string> placeholders = recipe_placeholders(recipe);
  const bool uses_gpus = std::any_of(placeholders.begin(), placeholders.end(),
                                     [](const std::string& name) { return name.rfind("gpus.", 0) == 0; });
  if (execution.executor == "slurm" && execution.slurm_gpus == 0 && uses_gpus) {
    for (const EnvState* state : {&good, &bad}) {
      execution.slurm_gpus = std::max(execution.slurm_gpus,
                                      static_cast<int>(state->gpus.target.size() + state->gpus.drafter.size()));
    }
  }
  return execution;
}

// Return run.json: the inputs (with their hashes, so `resume` can refuse changed ones) and every
// option `resume` reads back.
json run_document(const RunOptions& options, const RestoreInputs& restore, const std::vector<std::string>& wheel_dirs) {
  json run_doc = {{"good", absolute_path(options.good_path, ".")}, {"bad", absolute_path(options.bad_path, ".")},
                  {"recipe", absolute_path(options.recipe_path, ".")}, {"wheels", wheel_dirs},
                  {"repeats", options.repeats}, {"uv_caches", options.uv_caches}, {"store", options.store_dir},
                  {"builder", options.builder}, {"index_url", options.index_url},
                  {"index_urls", restore.shown_index_urls},
                  {"good_sha256", sha256_hex(read_file(options.good_path))},
                  {"bad_sha256", sha256_hex(read_file(options.bad_path))},
                  {"recipe_sha256", sha256_hex(read_file(options.recipe_path))}};
  run_doc["max_runs"] = options.max_runs;
  run_doc["no_probe"] = options.no_probe;
  run_doc["probe"] = options.probe;
  run_doc["anchor_runs"] = options.anchor_runs;
  run_doc["first_parent"] = options.first_parent;
  run_doc["max_log_mb"] = options.max_log_mb;
  // The index limits too: a resumed session runs under the ones the run was given, as its start record says.
  run_doc["index_timeout_s"] = options.index_timeout_s;
  run_doc["download_timeout_s"] = options.download_timeout_s;
  run_doc["max_download_gib"] = options.max_download_gib;
  run_doc["deterministic"] = options.deterministic;
  run_doc["any_change"] = options.any_change;
  run_doc["execution"] = {{"executor", options.execution.executor}, {"host", options.execution.host},
                          {"prefix", options.execution.prefix}, {"slots", options.execution.slots},
                          {"isolation", options.execution.isolation},
                          {"isolation_base", options.execution.isolation_base},
                          {"ssh_config", options.execution.ssh_config},
                          {"slurm_gpus", options.execution.slurm_gpus},
                          {"slurm_partition", options.execution.slurm_partition},
                          {"remote_root", options.execution.remote_root},
                          {"remote_bundle", options.execution.remote_bundle}};
  return run_doc;
}

}  // namespace envbisect
