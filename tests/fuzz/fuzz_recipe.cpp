// Fuzz target: the recipe loader, placeholder expansion and the benchmark-output parser. Any input
// either loads or throws envbisect::Error; a loaded recipe expands and converts its timeout as a run does.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>

#include "core/recipe.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // The same bytes as a benchmark's stdout: never throws, whatever the lines hold.
  envbisect::Recipe plain;
  plain.metric = "tok_per_s";
  plain.checksum = "loss_checksum";
  (void)envbisect::parse_bench_output(text, plain);

  envbisect::Recipe recipe;
  try {
    recipe = envbisect::parse_recipe(text, "fuzz-recipe.json");
  } catch (const envbisect::Error&) {
    return 0;
  }
  // Every placeholder a valid recipe names can be filled, and expansion then succeeds.
  std::map<std::string, std::string> values;
  for (const std::string& name : envbisect::recipe_placeholders(recipe)) {
    values[name] = "v";
  }
  for (const std::string& arg : recipe.command) {
    (void)envbisect::expand_placeholders(arg, values, "/command");
  }
  for (const auto& [name, value] : recipe.env) {
    (void)envbisect::expand_placeholders(value, values, "/env/" + name);
  }
  // The timeout becomes a positive number of milliseconds exactly as src/app/measure/evaluate.cpp makes it
  // (UBSan reports a float-to-integer overflow here; 0 would mean "no limit").
  const auto timeout = std::chrono::milliseconds(static_cast<long long>(recipe.timeout_s * 1000));
  if (timeout.count() <= 0 || recipe.repeats < 1 || recipe.repeats > 100 || recipe.command.empty() ||
      recipe.metric.empty()) {
    std::abort();
  }
  return 0;
}
