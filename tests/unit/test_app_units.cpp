#include "app/run/plan/units.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/delta.hpp"
#include "core/state.hpp"
#include "env_test_support.hpp"

using envbisect::EndsMetadata;
using envbisect::EnvState;
using envbisect::parse_metadata;
using envbisect::parse_state;
using Units = std::vector<std::vector<std::size_t>>;

namespace {

// A state of `packages` (a JSON object's members, as a state file writes them) on Python 3.11.
EnvState state_of(const std::string& packages) {
  return parse_state(R"({"format": 1, "python": {"version": "3.11"}, "packages": {)" + packages + "}}", "state.json");
}

}  // namespace

TEST_CASE("units_from_metadata joins exactly the changed packages one end pins against the other", "[app][units]") {
  // The deltas of good -> bad are in diff_states' order: packages by name, then the thread knob.
  const EnvState good = state_of(R"("numpy": "2.1.0", "torch": "2.10.0", "triton": "3.5.0", "tv": "0.25.0")");
  const EnvState bad = state_of(R"("numpy": "2.2.0", "torch": "2.11.0", "triton": "3.6.0", "tv": "0.26.0")");
  const std::vector<envbisect::Delta> deltas = envbisect::diff_states(good, bad);
  REQUIRE(deltas.size() == 4);  // 0 numpy, 1 torch, 2 triton, 3 tv
  auto meta = [](const std::string& name, const std::string& version, const std::string& requires_dist) {
    return parse_metadata("Name: " + name + "\nVersion: " + version + "\n" + requires_dist);
  };
  struct Case {
    const char* what;
    EndsMetadata metadata;
    Units units;
  };
  const std::vector<Case> cases = {
      {"no metadata: every delta alone", {}, {{0}, {1}, {2}, {3}}},
      {"bad torch pins triton==3.6.0, which good's triton 3.5.0 does not satisfy",
       {{}, {{"torch", meta("torch", "2.11.0", "Requires-Dist: triton==3.6.0\n")}}},
       {{0}, {1, 2}, {3}}},
      {"good torch pins triton==3.5.0, which bad's triton does not satisfy",
       {{{"torch", meta("torch", "2.10.0", "Requires-Dist: triton==3.5.0\n")}}, {}},
       {{0}, {1, 2}, {3}}},
      {"a range both ends satisfy joins nothing",
       {{}, {{"torch", meta("torch", "2.11.0", "Requires-Dist: numpy>=1.17\n")}}},
       {{0}, {1}, {2}, {3}}},
      {"a requirement under a marker joins nothing",
       {{}, {{"torch", meta("torch", "2.11.0", "Requires-Dist: triton==3.6.0; platform_system == \"Linux\"\n")}}},
       {{0}, {1}, {2}, {3}}},
      {"joins are transitive: tv pins torch, torch pins triton",
       {{}, {{"torch", meta("torch", "2.11.0", "Requires-Dist: triton==3.6.0\n")},
             {"tv", meta("tv", "0.26.0", "Requires-Dist: torch==2.11.0\n")}}},
       {{0}, {1, 2, 3}}},
      {"a requirement of an unchanged package joins nothing",
       {{}, {{"torch", meta("torch", "2.11.0", "Requires-Dist: filelock==3.0\n")}}},
       {{0}, {1}, {2}, {3}}},
      {"a package requiring itself joins nothing",
       {{}, {{"torch", meta("torch", "2.11.0", "Requires-Dist: torch==2.10.0\n")}}},
       {{0}, {1}, {2}, {3}}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    CHECK(envbisect::units_from_metadata(deltas, good, bad, c.metadata) == c.units);
  }
}

TEST_CASE("units_from_metadata joins a package the other end lacks, and leaves other dimensions alone",
          "[app][units]") {
  const EnvState good = parse_state(
      R"({"format": 1, "python": {"version": "3.11"}, "packages": {"torch": "2.10.0"}, "threads": {"t": 1}})", "g.json");
  const EnvState bad = parse_state(
      R"({"format": 1, "python": {"version": "3.11"}, "packages": {"torch": "2.11.0", "triton": "3.6.0"},
          "threads": {"t": 2}})",
      "b.json");
  const std::vector<envbisect::Delta> deltas = envbisect::diff_states(good, bad);
  REQUIRE(deltas.size() == 3);  // torch, triton (absent in good), threads/t
  EndsMetadata metadata;
  metadata.bad["torch"] = parse_metadata("Name: torch\nVersion: 2.11.0\nRequires-Dist: triton==3.6.0\n");
  CHECK(envbisect::units_from_metadata(deltas, good, bad, metadata) == Units{{0, 1}, {2}});
}

TEST_CASE("plan_units reads the changed packages' METADATA from the wheel folders", "[app][units]") {
  envbisect::env_test::TempDir dir("units");
  const auto wheels = dir.path / "wheels";
  envbisect::env_test::build_wheels(wheels, {{"fauxtorch", "2.10.0", {{"fauxtorch/__init__.py", ""}}, {"fauxtriton==3.5.0"}},
                                             {"fauxtorch", "2.11.0", {{"fauxtorch/__init__.py", ""}}, {"fauxtriton==3.6.0"}},
                                             {"fauxtriton", "3.5.0", {{"fauxtriton/__init__.py", ""}}, {}},
                                             {"fauxtriton", "3.6.0", {{"fauxtriton/__init__.py", ""}}, {}},
                                             {"fauxnumpy", "1.0", {{"fauxnumpy/__init__.py", ""}}, {}},
                                             {"fauxnumpy", "2.0", {{"fauxnumpy/__init__.py", ""}}, {}}});
  const EnvState good = state_of(R"("fauxnumpy": "1.0", "fauxtorch": "2.10.0", "fauxtriton": "3.5.0")");
  const EnvState bad = state_of(R"("fauxnumpy": "2.0", "fauxtorch": "2.11.0", "fauxtriton": "3.6.0")");
  const std::vector<envbisect::Delta> deltas = envbisect::diff_states(good, bad);
  CHECK(envbisect::plan_units(deltas, good, bad, {wheels.string()}, {}) == Units{{0}, {1, 2}});
  CHECK(envbisect::plan_units(deltas, good, bad, {}, {}) == Units{{0}, {1}, {2}});  // nothing to read: alone
}
