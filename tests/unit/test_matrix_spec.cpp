#include <catch2/catch.hpp>

#include <string>

#include "matrix/cells.hpp"
#include "matrix/spec.hpp"
#include "util/error.hpp"

using namespace envbisect;
using namespace envbisect::matrix;

namespace {

const std::string k_spec = R"({
  "format": 1, "name": "nightly", "base": "base.json", "recipe": "recipe.json", "wheels": ["wheels"],
  "threshold": 0.3, "repeats": 2,
  "axes": {"packages.Faux_Lib": ["latest", "1.0"], "threads.workers": [1, 2], "caches.inductor": ["cold", "warm"]},
  "exclude": [{"packages.faux-lib": "1.0", "threads.workers": 2}],
  "include": [{"packages.faux-lib": "0.9", "env.MODE": "strict"}, {"packages.Faux_Lib": "1.0", "threads.workers": 1, "caches.inductor": "cold"}]
})";

// Return the message of the Error that parsing `text` throws ("" when it parses).
std::string spec_error(const std::string& text) {
  try {
    parse_matrix_spec(text, "m.json");
  } catch (const Error& error) {
    CHECK(error.code() == ExitCode::bad_input);
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a matrix spec parses axes, rules and knobs", "[matrix]") {
  MatrixSpec spec = parse_matrix_spec(k_spec, "m.json");
  CHECK(spec.name == "nightly");
  CHECK(spec.threshold == Approx(0.3));
  CHECK(spec.repeats == 2);
  CHECK(spec.min_history == 1);
  REQUIRE(spec.axes.size() == 3);
  // Axes come in name order (a JSON object); package keys are normalised.
  CHECK(spec.axes[0].name == "caches.inductor");
  CHECK(spec.axes[1].dimension == "packages");
  CHECK(spec.axes[1].key == "faux-lib");
  CHECK(spec.axes[2].values == std::vector<std::string>{"1", "2"});
  // Rules name axes by their written name, whatever spelling of the package they used.
  REQUIRE(spec.exclude.size() == 1);
  CHECK(spec.exclude[0] == Assignment{{"packages.Faux_Lib", "1.0"}, {"threads.workers", "2"}});
  REQUIRE(spec.include.size() == 2);
  CHECK(spec.include[0] == Assignment{{"env.MODE", "strict"}, {"packages.Faux_Lib", "0.9"}});
}

TEST_CASE("every problem of a bad matrix spec is reported with its file and JSON pointer", "[matrix]") {
  std::string message = spec_error(R"({"format": 1, "base": "b.json", "treshold": 0.2,
    "axes": {"threads.workers": [0, "two"], "packages.x": ["1.0", "1.0", "not a version"], "gpu.count": [1]},
    "exclude": [{"threads.workers": 3}, {"env.X": "a"}]})");
  CHECK_THAT(message, Catch::Contains("m.json: /recipe: missing (required)"));
  CHECK_THAT(message, Catch::Contains("m.json: /treshold: unknown field 'treshold' (did you mean 'threshold'?)"));
  CHECK_THAT(message, Catch::Contains("m.json: /axes/threads.workers/0: expected a positive integer thread count, got 0"));
  CHECK_THAT(message, Catch::Contains("m.json: /axes/threads.workers/1: expected a positive integer"));
  CHECK_THAT(message, Catch::Contains("m.json: /axes/packages.x/1: '1.0' is listed twice"));
  CHECK_THAT(message, Catch::Contains("m.json: /axes/packages.x/2: 'not a version' is not a PEP 440 version"));
  CHECK_THAT(message, Catch::Contains("m.json: /axes/gpu.count: unknown dimension 'gpu'"));
  CHECK_THAT(message, Catch::Contains("m.json: /exclude/0/threads.workers: '3' is not a value of axis threads.workers"));
  CHECK_THAT(message, Catch::Contains("m.json: /exclude/1/env.X: not an axis of this matrix"));
}

TEST_CASE("a matrix spec rejects a wrong format, a bad threshold and latest without wheels", "[matrix]") {
  CHECK_THAT(spec_error(R"({"format": 2, "base": "b", "recipe": "r", "axes": {"env.A": ["x"]}})"),
             Catch::Contains("/format: unsupported format 2"));
  CHECK_THAT(spec_error(R"({"format": 1, "base": "b", "recipe": "r", "threshold": -1, "axes": {"env.A": ["x"]}})"),
             Catch::Contains("/threshold: expected a relative change above 0"));
  CHECK_THAT(spec_error(R"({"format": 1, "base": "b", "recipe": "r", "axes": {"packages.a": ["latest"]}})"),
             Catch::Contains("/wheels: an axis asks for \"latest\""));
  CHECK_THAT(spec_error(R"({"format": 1, "base": "b", "recipe": "r", "axes": {}})"),
             Catch::Contains("/axes: expected a non-empty object"));
  CHECK_THAT(spec_error("{\"format\": 1,"), Catch::Contains("m.json:1:"));
}

TEST_CASE("cells are the product of the axes minus excludes plus includes, with stable ids", "[matrix]") {
  MatrixSpec spec = parse_matrix_spec(k_spec, "m.json");
  std::vector<Cell> cells = expand_cells(spec);
  // 2 caches x 2 packages x 2 threads = 8, minus 2 excluded (1.0 with 2 threads, both caches), plus 1
  // include (the second include is already a cell of the product).
  REQUIRE(cells.size() == 7);
  CHECK(cells[0].id == "caches.inductor=cold,packages.Faux_Lib=latest,threads.workers=1");
  for (const Cell& cell : cells) {
    CHECK_FALSE((cell.assignment.count("threads.workers") != 0 && cell.assignment.at("threads.workers") == "2" &&
                 cell.assignment.at("packages.Faux_Lib") == "1.0"));
  }
  CHECK(cells.back().id == "env.MODE=strict,packages.Faux_Lib=0.9");
  CHECK(latest_packages(cells) == std::vector<std::string>{"faux-lib"});
  // The same spec gives the same ids (they name the cells' folders night after night).
  std::vector<Cell> again = expand_cells(spec);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    CHECK(again[i].id == cells[i].id);
  }
}

TEST_CASE("a cell id with unsafe characters carries a hash of the exact text", "[matrix]") {
  MatrixSpec spec = parse_matrix_spec(
      R"({"format": 1, "base": "b", "recipe": "r", "axes": {"env.PATHLIKE": ["a/b", "a b"]}})", "m.json");
  std::vector<Cell> cells = expand_cells(spec);
  REQUIRE(cells.size() == 2);
  CHECK(cells[0].id.find('/') == std::string::npos);
  CHECK(cells[0].id.rfind("env.PATHLIKE=a_b-", 0) == 0);
  CHECK(cells[1].id.rfind("env.PATHLIKE=a_b-", 0) == 0);
  CHECK(cells[0].id != cells[1].id);
}

TEST_CASE("a cell's state is the base with its values applied, latest resolved", "[matrix]") {
  EnvState base;
  base.packages["faux-lib"] = PackagePin{"0.5", std::string("faux_lib-0.5-py3-none-any.whl"), std::string("abc")};
  base.packages["other"] = PackagePin{"3.0", std::nullopt, std::nullopt};
  base.caches["inductor"] = CacheState{"inductor", "cold"};
  base.threads["workers"] = 4;
  Cell cell{"c", {{"packages.Faux_Lib", "latest"}, {"threads.workers", "2"}, {"caches.inductor", "warm"},
                  {"env.MODE", "strict"}, {"data.rows", "10"}}};
  EnvState state = cell_state(base, cell, {{"faux-lib", "1.2"}});
  CHECK(state.packages.at("faux-lib") == PackagePin{"1.2", std::nullopt, std::nullopt});
  CHECK(state.packages.at("other").version == "3.0");
  CHECK(state.threads.at("workers") == 2);
  CHECK(state.caches.at("inductor").state == "warm");
  CHECK(state.env.at("MODE") == "strict");
  CHECK(state.data.at("rows") == "10");
  CHECK_THROWS_WITH(cell_state(base, cell, {}), Catch::Contains("no wheel of 'faux-lib'"));
}
