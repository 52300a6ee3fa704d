#include <catch2/catch.hpp>

#include "stats/samples.hpp"

using namespace envbisect;
using namespace envbisect::stats;

TEST_CASE("median, CV and Hodges-Lehmann shift", "[stats][samples]") {
  CHECK(median({3, 1, 2}) == 2.0);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK(median({}) == 0.0);
  CHECK(coefficient_of_variation({1, 1, 1}) == 0.0);
  CHECK(coefficient_of_variation({9, 11}) == Approx(std::sqrt(2.0) / 10.0));
  // Differences {2,1,0,3,2,1,4,3,2}: median 2.
  CHECK(hodges_lehmann_shift({3, 4, 5}, {1, 2, 3}) == 2.0);
}

TEST_CASE("failure_signature keeps what identifies a failure and masks what varies", "[stats][samples]") {
  RunResult run;
  run.status = RunStatus::failed;
  run.exit_code = 1;
  run.error_class = "RuntimeError: FX trace at 0x7ffe12ab in thread 140234 ";
  CHECK(failure_signature(run) == "exit:1|RuntimeError: FX trace at 0xN in thread N");
  run.signal = 11;
  run.error_class.clear();
  CHECK(failure_signature(run) == "signal:11");
  run.status = RunStatus::timeout;
  run.error_class = "step 17";
  CHECK(failure_signature(run) == "timeout");
}

TEST_CASE("to_sample maps run outcomes", "[stats][samples]") {
  RunResult ok;
  ok.status = RunStatus::ok;
  ok.exit_code = 0;
  ok.metric = 4.3;
  ok.checksum = "2.3456";
  const Sample s = to_sample(ok);
  CHECK_FALSE(s.failed);
  CHECK(s.metric == 4.3);
  CHECK(s.checksum == "2.3456");

  RunResult no_metric = ok;
  no_metric.metric.reset();
  CHECK(to_sample(no_metric).failed);
  CHECK(to_sample(no_metric).failure_signature == "exit:0|no metric");

  RunResult skip;
  skip.status = RunStatus::skip;
  skip.exit_code = 125;
  CHECK(to_sample(skip).skipped);
}

TEST_CASE("SampleSet helpers count failures, metrics and checksums", "[stats][samples]") {
  SampleSet set;
  set.samples = {{false, 1.0, "", "a"}, {true, 0.0, "exit:1", ""}, {false, 2.0, "", "a"}, {true, 0.0, "timeout", ""}};
  CHECK(set.metrics() == std::vector<double>{1.0, 2.0});
  CHECK(set.failure_count() == 2);
  CHECK(set.failure_rate() == 0.5);
  CHECK(set.failure_signatures() == std::vector<std::string>{"exit:1", "timeout"});
  CHECK_FALSE(set.checksum_mismatch());
  set.samples.push_back({false, 1.5, "", "b"});
  CHECK(set.checksum_mismatch());
}
