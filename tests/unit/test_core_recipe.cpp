#include <catch2/catch.hpp>

#include "core/recipe.hpp"
#include "util/error.hpp"

using namespace envbisect;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_recipe(text, "recipe.json");
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a recipe parses with defaults", "[core][recipe]") {
  Recipe recipe = parse_recipe(R"({"format": 1, "command": ["{python}", "bench.py", "--threads", "{threads.drafter}"],
                                   "metric": "tok_per_s", "direction": "higher", "repeats": 5, "seed": 7})",
                               "recipe.json");
  CHECK(recipe.command.size() == 4);
  CHECK(recipe.higher_is_better);
  CHECK(recipe.repeats == 5);
  CHECK(recipe.seed == 7);
  CHECK(recipe_placeholders(recipe) == std::vector<std::string>{"python", "threads.drafter"});
}

TEST_CASE("bad recipes name the file and the field", "[core][recipe]") {
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {R"({"format": 1, "command": ["x"]})", "recipe.json: /metric: missing"},
      {R"({"format": 1, "metric": "m"})", "recipe.json: /command: missing; expected an argv array"},
      {R"({"format": 1, "metric": "m", "command": "python bench.py"})", "/command: expected a non-empty array of strings"},
      {R"({"format": 1, "metric": "m", "command": [""]})", "recipe.json: /command/0: the program to run is empty"},
      {R"({"format": 1, "metric": "m", "command": ["{pyhton}"]})", "/command/0: unknown placeholder {pyhton}"},
      {R"({"format": 1, "metric": "m", "command": ["{threads}"]})", "/command/0: unknown placeholder {threads}"},
      {R"({"format": 1, "metric": "m", "command": ["a}b"]})", "/command/0: unbalanced"},
      {R"({"format": 1, "metric": "m", "command": ["x"], "direction": "up"})", "/direction: expected \"higher\" or \"lower\""},
      {R"({"format": 1, "metric": "m", "command": ["x"], "repeats": 0})", "/repeats: expected an integer from 1 to 100"},
      {R"({"format": 1, "metric": "m", "command": ["x"], "timeout_s": -1})", "/timeout_s: expected a positive number"},
      {R"({"format": 1, "metric": "m", "command": ["x"], "comand": []})", "unknown field 'comand' (did you mean 'command'?)"},
      {R"({"format": 1, "metric": "m", "command": ["x"], "env": {"A": "{cache}"}})", "/env/A: unknown placeholder {cache}"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK_THAT(error_of(c.text), Catch::Contains(c.expected));
  }
}

TEST_CASE("a pass/fail recipe needs no metric, an unknown outcome names the field", "[core][recipe]") {
  const Recipe recipe = parse_recipe(R"({"format": 1, "command": ["sh", "test.sh"], "outcome": "pass-fail"})", "recipe.json");
  CHECK(recipe.pass_fail);
  CHECK(recipe.metric.empty());
  CHECK_FALSE(parse_recipe(R"({"format": 1, "command": ["x"], "metric": "m", "outcome": "metric"})", "r").pass_fail);
  CHECK_THAT(error_of(R"({"format": 1, "command": ["x"], "metric": "m", "outcome": "exit"})"),
             Catch::Contains("recipe.json: /outcome: expected \"metric\" or \"pass-fail\""));
  CHECK_THAT(error_of(R"({"format": 1, "command": ["x"], "outcome": "metric"})"), Catch::Contains("/metric: missing"));
}

TEST_CASE("placeholders expand, braces escape, a missing value names the place", "[core][recipe]") {
  std::map<std::string, std::string> values = {{"python", "/e/bin/python"}, {"threads.t", "3"}};
  CHECK(expand_placeholders("{python}", values, "w") == "/e/bin/python");
  CHECK(expand_placeholders("--t={threads.t} {{x}}", values, "w") == "--t=3 {x}");
  CHECK_THROWS_WITH(expand_placeholders("{data.n}", values, "recipe.json /command/2"),
                    Catch::Contains("recipe.json /command/2: placeholder {data.n}"));
}

TEST_CASE("the benchmark's last JSON line carries the metric", "[core][recipe]") {
  Recipe recipe = parse_recipe(R"({"format": 1, "command": ["x"], "metric": "tok_per_s", "checksum": "loss"})", "r");
  BenchReport report = parse_bench_output("warming up\n{\"tok_per_s\": 1}\nnoise\n{\"tok_per_s\": 21500.5, \"loss\": \"ab12\", \"error\": null}\n", recipe);
  CHECK(report.found_json);
  CHECK(report.metric == Approx(21500.5));
  CHECK(report.checksum == std::optional<std::string>("ab12"));
  CHECK(report.error_class.empty());
  BenchReport failed = parse_bench_output("{\"tok_per_s\": null, \"error\": \"RuntimeError\"}\n", recipe);
  CHECK_FALSE(failed.metric);
  CHECK(failed.error_class == "RuntimeError");
  CHECK_FALSE(parse_bench_output("no json here\n", recipe).found_json);
}

TEST_CASE("a placeholder value with a NUL is refused, naming the placeholder", "[core][recipe]") {
  const std::map<std::string, std::string> values = {{"data.dataset", std::string("train\0 --evil", 13)}};
  CHECK_THROWS_WITH(expand_placeholders("--data={data.dataset}", values, "recipe.json /command/2"),
                    Catch::Contains("recipe.json /command/2: placeholder {data.dataset} holds a NUL character"));
}

TEST_CASE("a recipe with a key named twice names the key's pointer", "[core][recipe]") {
  // The first "command" would be dropped without a word.
  const std::string error = error_of(R"({"format": 1, "command": ["{python}", "a.py"], "metric": "m",
                                         "command": ["{python}", "b.py"]})");
  CHECK(error.find("recipe.json: /command: duplicate key 'command'") != std::string::npos);
  CHECK(error_of(R"({"format": 1, "command": ["x"], "metric": "m", "env": {"A": "1", "A": "2"}})")
            .find("recipe.json: /env/A: duplicate key 'A'") != std::string::npos);
}

TEST_CASE("a recipe names its metric's unit, the last JSON line's keys are kept for diagnosis", "[core][recipe]") {
  Recipe recipe = parse_recipe(R"({"format": 1, "command": ["x"], "metric": "tok_per_s", "unit": "tok/s"})", "r.json");
  CHECK(recipe.unit == "tok/s");
  CHECK(parse_recipe(R"({"format": 1, "command": ["x"], "metric": "m"})", "r.json").unit.empty());
  CHECK_THROWS_WITH(parse_recipe(R"({"format": 1, "command": ["x"], "metric": "m", "unit": 3})", "r.json"),
                    Catch::Contains("/unit"));
  const BenchReport report = parse_bench_output("{\"b\": 1, \"a\": 2}\n", recipe);
  CHECK(report.keys == std::vector<std::string>{"a", "b"});
  CHECK(report.json_line == "{\"b\": 1, \"a\": 2}");
  CHECK(!report.metric);
}

TEST_CASE("a recipe without a metric is a pass/fail test under --deterministic, and without it the error says how",
          "[core][recipe]") {
  const std::string bare = R"({"format": 1, "command": ["sh", "test.sh"]})";
  const Recipe recipe = parse_recipe(bare, "recipe.json", envbisect::Deterministic::yes);
  CHECK(recipe.pass_fail);
  CHECK(recipe.metric.empty());
  const std::string error = error_of(bare);
  CHECK_THAT(error, Catch::Contains("recipe.json: /metric: missing"));
  CHECK_THAT(error, Catch::Contains("--deterministic"));
  CHECK_THAT(error, Catch::Contains("\"outcome\": \"pass-fail\""));
  // A metric of the wrong type is still an error under --deterministic.
  CHECK_THROWS_WITH(parse_recipe(R"({"format": 1, "command": ["x"], "metric": 3})", "r.json",
                                 envbisect::Deterministic::yes),
                    Catch::Contains("/metric: expected a non-empty string"));
}
