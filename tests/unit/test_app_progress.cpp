#include <catch2/catch.hpp>

#include <sstream>

#include "app/measure/progress.hpp"

using namespace envbisect;

TEST_CASE("progress lines: a failed run says failed first, even when it printed a metric", "[app][progress]") {
  std::ostringstream out;
  {
    Progress progress(out, ProgressStyle::lines);
    progress.unit("tok/s");
    progress.label("c1", "bad anchor");
    RunResult crashed;
    crashed.status = RunStatus::failed;
    crashed.exit_code = 1;
    crashed.metric = 123314.9;  // the benchmark reported throughput, then exited 1 (a thread crashed)
    crashed.diagnosis = "exited 1; error class \"RuntimeError\"";
    progress.attempt_finished("c1", 0, 4, crashed);
    RunResult fine;
    fine.status = RunStatus::ok;
    fine.metric = 103754.1;
    progress.attempt_finished("c1", 1, 4, fine);
  }
  const std::string text = out.str();
  CHECK_THAT(text, Catch::Contains("run 1/4 finished in") && Catch::Contains(": failed: exited 1"));
  CHECK_THAT(text, Catch::Contains("(it printed metric 123 315 tok/s)"));
  CHECK_THAT(text, Catch::Contains("run 2/4 finished in") && Catch::Contains(": metric 103 754 tok/s"));
}
