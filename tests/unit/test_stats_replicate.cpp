#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "stats/replicate.hpp"

using namespace envbisect;
using namespace envbisect::stats;

namespace {

// One successful run with this metric (tok/s here: higher is better).
Sample run(double metric) { return {false, metric, "", "loss=2.34"}; }

// A jitter of a few percent that repeats, so the tests are deterministic.
double jitter(int i) { return 1.0 + 0.03 * std::sin(1.7 * i); }

// Rounds whose i-th run of each side is `level` times the jitter; counts how many were asked for.
struct World {
  World(double candidate_level, double good_level, double bad_level)
      : candidate(candidate_level), good(good_level), bad(bad_level) {}
  double candidate;
  double good;
  double bad;
  int asked = 0;
  Rounds rounds;
  NextRound next() {
    return [this] {
      ++asked;
      rounds.candidate.samples.push_back(run(candidate * jitter(asked)));
      rounds.good.samples.push_back(run(good * jitter(asked + 7)));
      rounds.bad.samples.push_back(run(bad * jitter(asked + 13)));
      return rounds;
    };
  }
};

VerdictPolicy throughput() {
  VerdictPolicy policy;
  policy.higher_is_better = true;
  return policy;
}

}  // namespace

TEST_CASE("an intermediate that was drift is judged good beside fresh anchor runs", "[stats][replicate]") {
  // The anchors were measured at 140K (good) and 23K (bad); the machine slowed by 40 % since, so
  // an innocent candidate measures 85K: between the old anchors, but like good measured now.
  World world{85'000, 84'000, 14'000};
  int rounds = 0;
  const Assessment a = replicate_intermediate(world.next(), throughput(), &rounds);
  CHECK(a.decided);
  CHECK(a.verdict == Verdict::good);
  CHECK(rounds == world.asked);
  CHECK(rounds >= throughput().anchor_runs);  // never judged on fewer fresh anchor runs than preflight
  CHECK(a.reason.find("beside fresh anchor runs") != std::string::npos);
}

TEST_CASE("a real partial cause stays intermediate when replicated", "[stats][replicate]") {
  World world{55'000, 140'000, 23'000};
  const Assessment a = replicate_intermediate(world.next(), throughput());
  CHECK(a.decided);
  CHECK(a.verdict == Verdict::intermediate);
}

TEST_CASE("fresh anchors that no longer differ leave the candidate unstable at the cap", "[stats][replicate]") {
  World world{100'000, 100'000, 100'000};
  VerdictPolicy policy = throughput();
  policy.max_runs = 8;
  int rounds = 0;
  const Assessment a = replicate_intermediate(world.next(), policy, &rounds);
  CHECK(a.decided);
  CHECK(a.verdict == Verdict::unstable);
  CHECK(rounds == 8);
  CHECK(a.reason.find("no longer tell them apart") != std::string::npos);
}

TEST_CASE("without drift a partial cause is replicated in min_runs rounds", "[stats][replicate]") {
  // The anchors measure now what they measured before: three rounds confirm the partial cause.
  World earlier{0, 140'000, 23'000};
  for (int i = 0; i < 5; ++i) {
    earlier.next()();
  }
  World world{55'000, 140'000, 23'000};
  int rounds = 0;
  const Assessment a =
      replicate_intermediate(world.next(), throughput(), &rounds, &earlier.rounds.good, &earlier.rounds.bad);
  CHECK(a.verdict == Verdict::intermediate);
  CHECK(rounds == throughput().min_runs);
  CHECK(a.reason.find("no drift") != std::string::npos);
}

TEST_CASE("drift of the anchors takes the full replication, not the shortcut", "[stats][replicate]") {
  World earlier{0, 140'000, 23'000};
  for (int i = 0; i < 5; ++i) {
    earlier.next()();
  }
  // 40 % slower now: the innocent candidate measures like good does now.
  World world{85'000, 84'000, 14'000};
  int rounds = 0;
  const Assessment a =
      replicate_intermediate(world.next(), throughput(), &rounds, &earlier.rounds.good, &earlier.rounds.bad);
  CHECK(a.verdict == Verdict::good);
  CHECK(rounds > throughput().min_runs);
}
