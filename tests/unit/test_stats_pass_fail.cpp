#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "stats/mann_whitney.hpp"
#include "stats/pass_fail.hpp"

using namespace envbisect;
using namespace envbisect::stats;

namespace {

const std::string k_fail = "exit:1|AssertionError: expected 42";

// Return a set of runs: 'p' passed, 'f' failed with k_fail, 's' skipped (exit 125).
SampleSet runs(const std::string& pattern) {
  SampleSet set;
  for (char c : pattern) {
    Sample s;
    s.failed = c == 'f';
    s.failure_signature = c == 'f' ? k_fail : "";
    s.skipped = c == 's';
    set.samples.push_back(s);
  }
  return set;
}

}  // namespace

TEST_CASE("a pass/fail candidate is judged by its exit status, as git bisect run does", "[stats][pass_fail]") {
  CHECK_FALSE(assess_pass_fail(runs("")).decided);
  CHECK(assess_pass_fail(runs("p")).verdict == Verdict::good);
  CHECK(assess_pass_fail(runs("f")).verdict == Verdict::bad);
  CHECK(assess_pass_fail(runs("s")).verdict == Verdict::skip);
  // A re-run that disagrees: the test is not deterministic there.
  const Assessment flaky = assess_pass_fail(runs("fp"));
  CHECK(flaky.decided);
  CHECK(flaky.verdict == Verdict::unstable);
  CHECK_THAT(flaky.reason, Catch::Contains("not deterministic"));
}

TEST_CASE("pass/fail anchors must pass on good and fail on bad every time", "[stats][pass_fail]") {
  CHECK(pass_fail_anchors(runs("p"), runs("f")).distinguishable);
  CHECK_FALSE(pass_fail_anchors(runs("f"), runs("f")).distinguishable);
  CHECK_FALSE(pass_fail_anchors(runs("p"), runs("p")).distinguishable);
  const PassFailAnchors skipped = pass_fail_anchors(runs("s"), runs("f"));
  CHECK_FALSE(skipped.distinguishable);
  CHECK_THAT(skipped.message, Catch::Contains("exited 125"));
  CHECK_THAT(pass_fail_anchors(runs("p"), runs("f")).message, Catch::Contains("AssertionError"));
}

TEST_CASE("a pass/fail sample passes on exit 0 without a metric", "[stats][pass_fail]") {
  RunResult ok;
  ok.status = RunStatus::ok;
  ok.exit_code = 0;
  CHECK_FALSE(to_pass_fail_sample(ok).failed);
  CHECK(to_sample(ok).failed);  // a metric recipe needs its metric
  RunResult failed;
  failed.status = RunStatus::failed;
  failed.exit_code = 1;
  CHECK(to_pass_fail_sample(failed).failed);
  RunResult skipped;
  skipped.status = RunStatus::skip;
  CHECK(to_pass_fail_sample(skipped).skipped);
}

TEST_CASE("anchors that pass and fail every time look deterministic, in whatever ways bad fails", "[stats][pass_fail]") {
  const VerdictPolicy policy;  // anchor_runs 5
  CHECK(looks_deterministic(runs("ppppp"), runs("fffff"), policy));
  CHECK_FALSE(looks_deterministic(runs("pppp"), runs("ffff"), policy));    // too few runs
  CHECK(looks_deterministic(runs("pppppp"), runs("ffff"), policy));        // ten in all, one anchor cheaper
  CHECK_FALSE(looks_deterministic(runs("pppppppp"), runs("ff"), policy));  // two crashes say little of a rate
  CHECK(looks_deterministic(runs("ppppppp"), runs("fff"), policy));
  CHECK_FALSE(looks_deterministic(runs("ppppp"), runs("ffpff"), policy));  // bad passed once
  CHECK_FALSE(looks_deterministic(runs("ppfpp"), runs("fffff"), policy));  // good failed once
  // A race that crashes one run and hangs the next: failing is what is deterministic.
  SampleSet two_signatures = runs("fffff");
  two_signatures.samples[2].failure_signature = "Hang";
  CHECK(looks_deterministic(runs("ppppp"), two_signatures, policy));
}

TEST_CASE("the next anchor run goes where it lowers the exact test's p most per second", "[stats][pass_fail]") {
  // Equal run times keep the anchors interleaved, good first.
  CHECK(cheaper_anchor_evidence(2, 2, 7.0, 7.0) == AnchorSide::good);
  CHECK(cheaper_anchor_evidence(3, 2, 7.0, 7.0) == AnchorSide::bad);
  CHECK(cheaper_anchor_evidence(3, 2, 0.0, 13.0) == AnchorSide::bad);  // a time unknown: as if equal
  CHECK(cheaper_anchor_evidence(3, 2, 7.0, 8.5) == AnchorSide::bad);   // within a quarter: as if equal
  CHECK(cheaper_anchor_evidence(3, 2, 7.0, 20.0) == AnchorSide::good);  // beyond: good is cheaper
  // A bad run (a crash after a cold compile) twice a good one: from 2 + 2, the runs go
  // good, good, bad, good, bad, good and reach 1 / C(10, 4) = 1/210 with 6 + 4, where 5 + 5 (1/252)
  // costs 6 s more.
  std::size_t good = 2, bad = 2;
  std::string order;
  while (good + bad < 10) {
    const bool good_next = cheaper_anchor_evidence(good, bad, 7.0, 13.0) == AnchorSide::good;
    order += good_next ? 'g' : 'b';
    (good_next ? good : bad) += 1;
  }
  CHECK(order == "ggbgbg");
  CHECK(good == 6);
  CHECK(fisher_fewer(0, good, bad, bad) < 1.0 / 200);
  // A slow good anchor gets the fewer runs.
  CHECK(cheaper_anchor_evidence(4, 2, 20.0, 7.0) == AnchorSide::bad);
}

TEST_CASE("run times differ when one is more than a quarter longer and both are known", "[stats][pass_fail]") {
  CHECK(run_times_differ(7.0, 13.0));
  CHECK(run_times_differ(13.0, 7.0));
  CHECK_FALSE(run_times_differ(7.0, 8.5));
  CHECK_FALSE(run_times_differ(0.0, 13.0));  // unknown
  CHECK_FALSE(run_times_differ(7.0, 0.0));
}

TEST_CASE("a failure the bad anchor never showed is named, one it showed is not", "[stats][pass_fail]") {
  SampleSet bad = runs("fff");
  bad.samples[1].failure_signature = "Hang";
  SampleSet same = runs("ff");
  same.samples[0].failure_signature = "Hang";
  CHECK(unlike_bad_anchor(same, bad).empty());
  CHECK(unlike_bad_anchor(runs("pp"), bad).empty());
  SampleSet other = runs("pf");
  other.samples[1].failure_signature = "exit:1|ImportError";
  CHECK(unlike_bad_anchor(other, bad) == "exit:1|ImportError");
}
