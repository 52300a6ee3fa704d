#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace envbisect {

// How to run the benchmark in a candidate environment (docs/RECIPES.md), format v1.
struct Recipe {
  std::string name;
  std::string description;
  std::string base_dir;                       // folder of the recipe file: {recipe_dir}
  std::vector<std::string> command;           // argv template
  std::vector<std::string> warmup;            // argv template filling warm caches; empty: none
  std::map<std::string, std::string> env;     // extra variables for the benchmark (templates)
  std::string metric;                         // key of the metric in the last JSON line of stdout
  std::string unit;                           // the metric's unit as people write it ("tok/s"); "" when none
  bool higher_is_better = true;
  std::string checksum;                       // key of the determinism checksum; empty: none
  std::string error_field = "error";          // key naming the error class of a failed run
  int repeats = 3;
  double timeout_s = 600.0;
  std::int64_t seed = 0;
  std::string isolation;                      // "none", "bwrap", "podman" or "lxc"; empty: as the CLI says
  bool network = false;                       // whether an isolated run may reach the network
  bool pass_fail = false;                     // "outcome": "pass-fail": the exit status is the whole result
};

// Whether the command line says the benchmark is deterministic (--deterministic): its exit status is
// the whole result, as a recipe's "outcome": "pass-fail" says.
enum class Deterministic { no, yes };

// Parse a recipe document. `source` names the file in messages. Deterministic::yes makes it a
// pass/fail test as "outcome": "pass-fail" does, so it needs no metric. Collect every problem
// (unknown fields, wrong types, unknown placeholders) and throw one Error listing them all.
Recipe parse_recipe(const std::string& text, const std::string& source, Deterministic deterministic = Deterministic::no);

// Return the placeholders named in the recipe's templates ("threads.drafter_threads", "python", ...).
std::vector<std::string> recipe_placeholders(const Recipe& recipe);

// Return the placeholders the warm-up can read: its own argv (the benchmark's command where the recipe
// has no warm-up) and the recipe's env. A state value no placeholder here names never reaches the
// warm-up, so it cannot change the caches the warm-up leaves.
std::set<std::string> warmup_placeholders(const Recipe& recipe);

// Replace every {name} in `text` by values[name] ("{{" and "}}" give literal braces). Throw Error naming
// `where` and the placeholder when a value is missing.
std::string expand_placeholders(const std::string& text, const std::map<std::string, std::string>& values,
                                const std::string& where);

// What the benchmark reported on its last JSON line of stdout.
struct BenchReport {
  std::optional<double> metric;
  std::optional<std::string> checksum;
  std::string error_class;  // empty when the benchmark named none
  bool found_json = false;
  std::vector<std::string> keys;  // the keys of that JSON line, sorted
  std::string json_line;          // that line as printed
};

// Return what the last line of `stdout_text` that parses as a JSON object says, per the recipe's keys.
BenchReport parse_bench_output(const std::string& stdout_text, const Recipe& recipe);

}  // namespace envbisect
