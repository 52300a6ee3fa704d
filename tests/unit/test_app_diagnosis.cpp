#include <catch2/catch.hpp>

#include "app/measure/diagnosis.hpp"

using namespace envbisect;

namespace {

ProcessResult exited(int code) {
  ProcessResult process;
  process.spawned = true;
  process.exit_code = code;
  return process;
}

Recipe recipe_reading(const std::string& metric) {
  Recipe recipe;
  recipe.metric = metric;
  recipe.timeout_s = 30;
  return recipe;
}

RunResult failed_with(const Diagnosis& diagnosis) {
  RunResult run;
  run.status = diagnosis.cause == FailureCause::declared_skip || diagnosis.cause == FailureCause::build_failed
                   ? RunStatus::skip
                   : RunStatus::failed;
  run.cause = to_string(diagnosis.cause);
  run.diagnosis = diagnosis.text;
  return run;
}

}  // namespace

TEST_CASE("a JSON line without the metric key names the key, the keys it had and the line", "[diagnosis]") {
  const Recipe recipe = recipe_reading("tok_per_s");
  const std::string out = "warming up\n{\"tokens_per_s\": 1000.0, \"loss\": 1.5}\n";
  const Diagnosis d = diagnose_attempt(exited(0), parse_bench_output(out, recipe), out, "", recipe);
  CHECK(d.cause == FailureCause::no_metric_key);
  CHECK(d.text == "printed JSON without the recipe's metric key \"tok_per_s\"; its keys: loss, tokens_per_s; last "
                  "JSON line: \"{\"tokens_per_s\": 1000.0, \"loss\": 1.5}\"");
}

TEST_CASE("a metric that is not a number is told apart from a missing key", "[diagnosis]") {
  const Recipe recipe = recipe_reading("m");
  const std::string out = "{\"m\": \"fast\"}\n";
  const Diagnosis d = diagnose_attempt(exited(0), parse_bench_output(out, recipe), out, "", recipe);
  CHECK(d.cause == FailureCause::no_metric_key);
  CHECK(d.text.find("whose \"m\" is not a finite number") != std::string::npos);
}

TEST_CASE("NaN and Infinity as Python's json.dumps writes them are a metric that is not a number", "[diagnosis]") {
  const Recipe recipe = recipe_reading("m");
  for (const std::string out : {"{\"m\": NaN}\n", "{\"m\": Infinity, \"note\": \"NaN in a string\"}\n",
                                "{\"m\": -Infinity}\n"}) {
    INFO(out);
    const BenchReport report = parse_bench_output(out, recipe);
    CHECK(report.found_json);
    CHECK_FALSE(report.metric);
    const Diagnosis d = diagnose_attempt(exited(0), report, out, "", recipe);
    CHECK(d.text.find("whose \"m\" is not a finite number") != std::string::npos);
  }
  // A string that holds the words is left alone; the metric beside it is read.
  const BenchReport fine = parse_bench_output("{\"note\": \"NaN, Infinity\", \"m\": 5}\n", recipe);
  REQUIRE(fine.metric);
  CHECK(*fine.metric == 5.0);
}

TEST_CASE("no JSON line quotes the last line printed", "[diagnosis]") {
  const Recipe recipe = recipe_reading("m");
  const std::string out = "throughput: 1000 tok/s\n\n";
  const Diagnosis d = diagnose_attempt(exited(0), parse_bench_output(out, recipe), out, "", recipe);
  CHECK(d.cause == FailureCause::no_json);
  CHECK(d.text.find("last stdout line: \"throughput: 1000 tok/s\"") != std::string::npos);
}

TEST_CASE("how a process ended comes before what it printed", "[diagnosis]") {
  const Recipe recipe = recipe_reading("m");
  ProcessResult missing;
  missing.spawn_error = "python9: not found";
  CHECK(diagnose_attempt(missing, {}, "", "", recipe).cause == FailureCause::not_started);
  ProcessResult slow = exited(-1);
  slow.timed_out = true;
  CHECK(diagnose_attempt(slow, {}, "", "", recipe).text.rfind("timed out after the recipe's timeout of 30 s", 0) == 0);
  ProcessResult killed = exited(-1);
  killed.signal = 11;
  const Diagnosis crash = diagnose_attempt(killed, {}, "", "Segmentation fault\n", recipe);
  CHECK(crash.cause == FailureCause::crashed);
  CHECK(crash.text.find("signal 11") != std::string::npos);
  CHECK(crash.text.find("last stderr line: \"Segmentation fault\"") != std::string::npos);
  BenchReport report;
  report.error_class = "CUDA OOM";
  const Diagnosis nonzero = diagnose_attempt(exited(3), report, "", "", recipe);
  CHECK(nonzero.cause == FailureCause::exited_nonzero);
  CHECK(nonzero.text == "exited 3; error class \"CUDA OOM\"");
  CHECK(diagnose_attempt(exited(125), {}, "", "", recipe).cause == FailureCause::declared_skip);
  // A pass/fail test needs no metric: exit 0 is its result.
  Recipe pass_fail = recipe;
  pass_fail.pass_fail = true;
  CHECK(diagnose_attempt(exited(0), {}, "", "", pass_fail).cause == FailureCause::none);
}

TEST_CASE("cause names round-trip through the journal", "[diagnosis]") {
  for (FailureCause cause : {FailureCause::build_failed, FailureCause::not_started, FailureCause::timed_out,
                             FailureCause::crashed, FailureCause::exited_nonzero, FailureCause::no_json,
                             FailureCause::no_metric_key, FailureCause::declared_skip}) {
    CHECK(failure_cause_from(to_string(cause)) == cause);
  }
  CHECK(failure_cause_from("") == FailureCause::none);
  CHECK(failure_cause_from("eaten by a grue") == FailureCause::none);
}

TEST_CASE("anchors that all fail the same way are an input error, a declared skip or a real difference is not",
          "[diagnosis]") {
  const Recipe recipe = recipe_reading("m");
  const std::string out = "no json\n";
  const RunResult nojson =
      failed_with(diagnose_attempt(exited(0), parse_bench_output(out, recipe), out, "", recipe));
  const std::optional<std::string> same = anchors_input_error({nojson, nojson}, {nojson, nojson});
  REQUIRE(same);
  CHECK(same->find("every run of both anchors (4 of 4) failed the same way") != std::string::npos);
  CHECK(same->find("last stdout line: \"no json\"") != std::string::npos);

  RunResult ok;
  ok.status = RunStatus::ok;
  ok.metric = 1.0;
  CHECK(!anchors_input_error({ok, ok}, {nojson, nojson}));  // bad fails, good works: that is a difference
  const RunResult crash = failed_with({FailureCause::crashed, "crashed"});
  CHECK(!anchors_input_error({nojson, nojson}, {crash, nojson}));
  const RunResult skip = failed_with({FailureCause::declared_skip, "exited 125"});
  CHECK(!anchors_input_error({skip, skip}, {skip, skip}));

  const RunResult unbuildable = failed_with(diagnose_build("p-2.0.whl: refusing entry 'p/../../evil.py'"));
  const std::optional<std::string> build = anchors_input_error({ok, ok}, {unbuildable});
  REQUIRE(build);
  CHECK(*build == "the bad anchor's environment could not be built: p-2.0.whl: refusing entry 'p/../../evil.py'");
}

TEST_CASE("the stderr line a failure cites is the one that names the error, not a frame after it", "[diagnosis]") {
  // What the 1-GPU incident benchmark printed: the exception, then faulthandler's dump of every thread.
  const std::string dump =
      "Traceback (most recent call last):\n"
      "  File \"/r/bench.py\", line 204, in producer\n"
      "    out = model(x)\n"
      "RuntimeError: Detected that you are using FX to symbolically trace a dynamo-optimized function.\n"
      "Thread 0x00007f1 (most recent call first):\n"
      "  File \"/usr/lib/python3.12/threading.py\", line 359 in wait\n"
      "Current thread 0x00007f2 (most recent call first):\n"
      "  File \"/r/bench.py\", line 338 in <module>\n";
  const std::string named =
      "RuntimeError: Detected that you are using FX to symbolically trace a dynamo-optimized function.";
  CHECK(telling_stderr_line(dump, "RuntimeError") == named);
  CHECK(telling_stderr_line(dump) == named);
  // The error class the benchmark reported wins over a later line that also reads as an error.
  CHECK(telling_stderr_line("ValueError: first\nwarn: CUDA error: late\n", "ValueError") == "ValueError: first");
  // Dotted exception names and messages from the C++ side.
  CHECK(telling_stderr_line("torch._dynamo.exc.BackendCompilerFailed: boom\n  File \"x\", line 1 in f\n") ==
        "torch._dynamo.exc.BackendCompilerFailed: boom");
  CHECK(telling_stderr_line("step 10\nCUDA error: an illegal memory access\nstep 11 done\n") ==
        "CUDA error: an illegal memory access");
  // Nothing reads as an error: the last line that is not a frame or a thread header.
  CHECK(telling_stderr_line("loading\nstalled at step 7\nThread 0x1 (most recent call first):\n  File \"a\", line 2 in g\n") ==
        "stalled at step 7");
  // A plain last line stays the last line; nothing gives nothing.
  CHECK(telling_stderr_line("ok\nSegmentation fault\n") == "Segmentation fault");
  CHECK(telling_stderr_line("  File \"a\", line 2 in g\n") == "File \"a\", line 2 in g");
  CHECK(telling_stderr_line("  \n").empty());
  // Not an exception: a lower-case word, or a capitalised word that is not a name ending like one.
  CHECK(telling_stderr_line("Errors: 0\nraise later\n") == "raise later");

  // The diagnosis says which line it quotes: the last one, or a line before frames it passed over.
  const Recipe recipe = recipe_reading("tok_per_s");
  BenchReport report;
  report.error_class = "RuntimeError";
  const Diagnosis failed = diagnose_attempt(exited(1), report, "", dump, recipe);
  CHECK(failed.text == "exited 1; error class \"RuntimeError\"; stderr: \"" + named + "\"");
  CHECK(diagnose_attempt(exited(1), {}, "", "x\nKilled\n", recipe).text == "exited 1; last stderr line: \"Killed\"");
}
