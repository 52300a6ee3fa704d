#include "app/measure/evaluate.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/delta.hpp"
#include "exec/runner.hpp"
#include "store/journal.hpp"

namespace fs = std::filesystem;
using envbisect::ProcessResult;
using envbisect::ProcessSpec;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "envbisect-evaluate-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

// A benchmark that takes a while and reports X from its environment as the metric; attempt 0 of the
// good candidate is slower than the rest, so its attempt 1 finishes first when they run side by side.
class SlowFakeRunner : public envbisect::Runner {
public:
  ProcessResult run(const ProcessSpec& spec) override {
    const int now = ++m_in_flight;
    int seen = m_max_in_flight.load();
    while (now > seen && !m_max_in_flight.compare_exchange_weak(seen, now)) {
    }
    const bool slow = spec.env.at("X") == "100" && spec.cwd.size() >= 2 &&
                      spec.cwd.compare(spec.cwd.size() - 2, 2, "/0") == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(slow ? 80 : 15));
    std::ofstream(spec.stdout_path) << "{\"tok_per_s\": " << spec.env.at("X") << "}\n";
    {
      const std::lock_guard<std::mutex> lock(m_mutex);
      m_gpus.insert(spec.env.count("GPUS") != 0 ? spec.env.at("GPUS") : "");
    }
    --m_in_flight;
    ++m_runs;
    ProcessResult result;
    result.spawned = true;
    result.exit_code = 0;
    return result;
  }
  int max_in_flight() const { return m_max_in_flight.load(); }
  int runs() const { return m_runs.load(); }
  std::set<std::string> gpus() const {
    const std::lock_guard<std::mutex> lock(m_mutex);
    return m_gpus;
  }

private:
  std::atomic<int> m_in_flight{0};
  std::atomic<int> m_max_in_flight{0};
  std::atomic<int> m_runs{0};
  mutable std::mutex m_mutex;
  std::set<std::string> m_gpus;  // the GPU lists the runs were given
};

envbisect::RunSetup make_setup(const fs::path& dir) {
  envbisect::RunSetup setup;
  setup.good.python.interpreter = "/usr/bin/python3";
  setup.good.python.use_as_is = true;  // no environment to build
  setup.bad = setup.good;
  setup.good.env["X"] = "100";
  setup.bad.env["X"] = "20";
  setup.deltas = envbisect::diff_states(setup.good, setup.bad);
  setup.recipe.command = {"{python}", "-c", "pass"};
  setup.recipe.metric = "tok_per_s";
  setup.recipe.base_dir = dir.string();
  setup.recipe.timeout_s = 10;
  setup.recipe_hash = "recipe";
  setup.run_dir = dir.string();
  return setup;
}

std::vector<nlohmann::json> attempt_records(const fs::path& journal) {
  std::vector<nlohmann::json> out;
  std::ifstream in(journal);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json record = nlohmann::json::parse(line);
    if (record.value("type", "") == "attempt") {
      out.push_back(record);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("measure_all runs up to `slots` attempts at once and journals each candidate in order", "[app][evaluate]") {
  TempDir dir;
  envbisect::RunSetup setup = make_setup(dir.path);
  SlowFakeRunner runner;
  {
    envbisect::Journal journal((dir.path / "journal.jsonl").string());
    envbisect::Evaluator evaluator(setup, runner, journal, {});
    const std::vector<envbisect::Candidate> candidates = {evaluator.candidate({}), evaluator.candidate({0})};
    evaluator.measure_all(candidates, 3, 2);
    CHECK(runner.max_in_flight() == 2);
    CHECK(runner.runs() == 6);
    CHECK(evaluator.attempts_run() == 6);
    CHECK(evaluator.attempts(candidates[0]).size() == 3);
    CHECK(*evaluator.attempts(candidates[0]).front().metric == 100.0);
    CHECK(*evaluator.attempts(candidates[1]).back().metric == 20.0);
    // Already measured: nothing more runs.
    evaluator.measure_all(candidates, 3, 2);
    CHECK(runner.runs() == 6);
  }
  std::map<std::string, int> next;
  for (const nlohmann::json& record : attempt_records(dir.path / "journal.jsonl")) {
    CHECK(record["attempt"].get<int>() == next[record["candidate"].get<std::string>()]++);
  }
  CHECK(next.size() == 2);
}

TEST_CASE("measure_all with one slot runs one attempt at a time, as measure() does", "[app][evaluate]") {
  TempDir dir;
  envbisect::RunSetup setup = make_setup(dir.path);
  SlowFakeRunner runner;
  envbisect::Journal journal((dir.path / "journal.jsonl").string());
  envbisect::Evaluator evaluator(setup, runner, journal, {});
  evaluator.measure_all({evaluator.candidate({}), evaluator.candidate({0})}, 2, 1);
  CHECK(runner.max_in_flight() == 1);
  CHECK(runner.runs() == 4);
}

TEST_CASE("measure_all gives each slot its own GPU group, shifted by the split's width", "[app][evaluate]") {
  TempDir dir;
  envbisect::RunSetup setup = make_setup(dir.path);
  for (envbisect::EnvState* state : {&setup.good, &setup.bad}) {
    state->gpus.target = {0, 1};
    state->gpus.drafter = {2};
  }
  setup.recipe.env["GPUS"] = "{gpus.target}";
  SlowFakeRunner runner;
  envbisect::Journal journal((dir.path / "journal.jsonl").string());
  envbisect::Evaluator evaluator(setup, runner, journal, {});
  evaluator.measure_all({evaluator.candidate({}), evaluator.candidate({0})}, 3, 2);
  CHECK(runner.gpus() == std::set<std::string>{"0,1", "3,4"});

  // One slot, or measure(): the split as the state says.
  SlowFakeRunner serial;
  envbisect::Journal journal2((dir.path / "journal2.jsonl").string());
  envbisect::Evaluator evaluator2(setup, serial, journal2, {});
  evaluator2.measure(evaluator2.candidate({}), 2);
  CHECK(serial.gpus() == std::set<std::string>{"0,1"});
}
