#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/render.hpp"
#include "report/report_flags.hpp"
#include "report/report_model.hpp"

using nlohmann::json;
using namespace envbisect::report;

namespace {

// A finished run: noisy good anchor (CV 25 %), one noisy decision, one quiet one, and an environment
// rebuilt after the bad anchor's run 2 changed two of its files.
std::vector<json> records() {
  const std::string bad_anchor = "bbbbbbbbbbbbbbbb0000";
  return {
      {{"type", "start"}, {"version", "0.1.0"}, {"resumed", false}, {"run", json::object()},
       {"deltas", {{{"dimension", "env"}, {"name", "A"}, {"good", "old"}, {"bad", "new"}}}}},
      {{"type", "attempt"}, {"candidate", "aaaaaaaaaaaaaaaa0000"}, {"applied", json::array()}, {"env_hash", "e0"},
       {"attempt", 0}, {"status", "ok"}, {"metric", 100.0}, {"t", 1000.0}},
      {{"type", "attempt"}, {"candidate", bad_anchor}, {"applied", {0}}, {"env_hash", "e1e1e1e1e1e1e1e1"},
       {"attempt", 2}, {"status", "ok"}, {"metric", 20.0}, {"t", 1001.0}},
      {{"type", "build"}, {"env_hash", "e1e1e1e1e1e1e1e1"}, {"ok", true}, {"t", 1002.0},
       {"damaged", {{"files", {"lib/python3.11/site-packages/p/__init__.py", "bin/tool"}},
                    {"after_attempt", {{"candidate", bad_anchor}, {"attempt", 2}}}}}},
      {{"type", "build"}, {"env_hash", "e2e2e2e2e2e2e2e2"}, {"ok", true}, {"t", 1003.0},
       {"damaged", {{"files", {"a", "b", "c", "d", "e", "f", "g"}}, {"after_attempt", nullptr}}}},
      {{"type", "build"}, {"env_hash", "e3e3e3e3e3e3e3e3"}, {"ok", true}, {"t", 1003.5}},
      {{"type", "preflight"}, {"anchor_runs", 5},
       {"preflight", {{"distinguishable", true}, {"good_cv", 0.25}, {"bad_cv", 0.05}, {"message", "bad is 5x worse"}}}},
      {{"type", "decision"}, {"n", 1}, {"stage", "isolate"}, {"label", "{env/A}"}, {"applied", {0}},
       {"candidate", "cccccccccccccccc0000"}, {"verdict", "bad"}, {"runs", 4}, {"median", 21.0}, {"cv", 0.3125},
       {"noisy", true}},
      {{"type", "decision"}, {"n", 2}, {"stage", "isolate"}, {"label", "{}"}, {"applied", json::array()},
       {"candidate", "dddddddddddddddd0000"}, {"verdict", "good"}, {"runs", 3}, {"median", 99.0}, {"cv", 0.02},
       {"noisy", false}},
  };
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

}  // namespace

TEST_CASE("noisy anchors and decisions are flagged in every report format", "[report][flags]") {
  const ReportModel model = model_from_journal(records(), json::object(), "/runs/x");
  const std::vector<std::string> flags = noise_flags(model);
  REQUIRE(flags.size() == 2);
  CHECK(flags[0] == "the good anchor's runs: CV 25.0 %, above the 10.0 % noise threshold; verdicts need more runs "
                    "and small effects can hide");
  CHECK(flags[1] == "decision #1 {env/A}: 4 runs with CV 31.2 %, above the 10.0 % noise threshold");
  const std::string md = render_markdown(model);
  CHECK(has(md, "- noisy: the good anchor's runs: CV 25.0 %, above the 10.0 % noise threshold;"));
  CHECK(has(md, "- noisy: decision #1 {env/A}: 4 runs with CV 31.2 %, above the 10.0 % noise threshold\n"));
  CHECK_FALSE(has(md, "decision #2 {}:"));
  CHECK(has(render_html(model), "<li>noisy: decision #1 {env/A}: 4 runs with CV 31.2 %"));
  const json doc = json::parse(render_json(model));
  CHECK(doc["verdict"]["noisy"].size() == 2);
  CHECK(doc["timeline"][0]["noisy"] == true);
}

TEST_CASE("an environment a benchmark changed is flagged with its files and the run after which it was found",
          "[report][flags]") {
  const ReportModel model = model_from_journal(records(), json::object(), "/runs/x");
  const std::vector<std::string> flags = damage_flags(model);
  REQUIRE(flags.size() == 2);
  CHECK(flags[0] == "environment e1e1e1e1e1e1 was rebuilt: 2 files changed (lib/python3.11/site-packages/p/__init__.py, "
                    "bin/tool) after run 2 of bad anchor");
  CHECK(flags[1] == "environment e2e2e2e2e2e2 was rebuilt: 7 files changed (a, b, c, d, e and 2 more) before this "
                    "run used it");
  const std::string md = render_markdown(model);
  CHECK(has(md, "- changed by a benchmark: environment e1e1e1e1e1e1 was rebuilt: 2 files changed"));
  CHECK(has(render_html(model), "<li>changed by a benchmark: environment e1e1e1e1e1e1"));
  CHECK(json::parse(render_json(model))["verdict"]["changed_by_a_benchmark"].size() == 2);
}

TEST_CASE("a change written through a shared store file is one flag that names the latest run anywhere too",
          "[report][flags]") {
  // The bad side's benchmark rewrote a store file hard-linked into the good anchor's environment: the
  // good anchor's environment is found changed before each of its runs, the last run in it being its
  // own, while the run that wrote was the bad anchor's.
  const std::string good_anchor = "aaaaaaaaaaaaaaaa0000";
  const std::string bad_anchor = "bbbbbbbbbbbbbbbb0000";
  std::vector<json> journal = {records()[0], records()[1], records()[2]};
  for (int i = 0; i < 3; ++i) {
    journal.push_back({{"type", "build"}, {"env_hash", i < 2 ? "e0e0e0e0e0e0e0e0" : "e9e9e9e9e9e9e9e9"}, {"ok", true},
                       {"t", 1010.0 + i},
                       {"damaged", {{"files", {"lib/python3.11/site-packages/victim/__pycache__/__init__.cpython-311.pyc"}},
                                    {"after_attempt", {{"candidate", good_anchor}, {"attempt", i + 1}}},
                                    {"latest_attempt", {{"candidate", bad_anchor}, {"attempt", i + 1}}}}}});
  }
  const std::vector<std::string> flags = damage_flags(model_from_journal(journal, json::object(), "/runs/x"));
  REQUIRE(flags.size() == 1);
  CHECK(flags[0] == "environment e0e0e0e0e0e0 was rebuilt: 1 file changed "
                    "(lib/python3.11/site-packages/victim/__pycache__/__init__.cpython-311.pyc) after run 1 of good "
                    "anchor, the last in it; or by run 1 of bad anchor, the latest anywhere, through a store file the "
                    "environments share (the same files changed 3 times in all, in 2 environments)");
}

TEST_CASE("counts in the journal line agree with their nouns", "[report][flags]") {
  std::vector<json> one = records();
  one.resize(2);  // one session, one attempt
  const std::string md = render_markdown(model_from_journal(one, json::object(), "/runs/x"));
  CHECK(has(md, "- journal: 1 session, 1 attempt, from "));
  CHECK_FALSE(has(md, "session(s)"));
  const std::string all = render_markdown(model_from_journal(records(), json::object(), "/runs/x"));
  CHECK(has(all, "- journal: 1 session, 2 attempts, from "));
}
