// Simulate many candidate decisions with the real verdict code (src/stats) against a scripted noisy
// oracle, and compare them with classifying each candidate from a single run.
//
// Oracle: seconds per step (lower is better), log-normal noise with CV 10%, 10% of runs are outliers
// 3x slow. The bad state is `effect` times slower; in the "flaky" mode it also crashes in 1 run of 3.
// Each decision draws fresh anchors (so anchor noise is part of the error), runs preflight, then runs
// the candidate until assess() decides. Usage: bench_verdicts [decisions] [seed].

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "stats/pass_fail.hpp"
#include "stats/samples.hpp"
#include "stats/verdict.hpp"

namespace {

using envbisect::Verdict;
using envbisect::stats::Sample;
using envbisect::stats::SampleSet;

constexpr double k_cv = 0.10;
constexpr double k_outlier_rate = 0.10;
constexpr double k_outlier_factor = 3.0;
constexpr double k_crash_rate = 1.0 / 3.0;
const char* const k_crash_signature = "exit:1|RuntimeError: Detected that you are using FX to symbolically trace";

// What the simulated candidate really is.
enum class Truth { good, bad, middle };

// One benchmark environment of the scripted oracle.
struct Oracle {
  double slowdown = 1.0;  // true median seconds per step
  bool crashes = false;   // crashes in k_crash_rate of runs

  // Return one run's sample.
  Sample run(std::mt19937_64& rng) const {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Sample s;
    s.checksum = "loss=2.3456";
    if (crashes && u(rng) < k_crash_rate) {
      s.failed = true;
      s.failure_signature = k_crash_signature;
      return s;
    }
    std::lognormal_distribution<double> noise(0.0, std::sqrt(std::log(1.0 + k_cv * k_cv)));
    s.metric = slowdown * noise(rng) * (u(rng) < k_outlier_rate ? k_outlier_factor : 1.0);
    return s;
  }
};

// Return `n` runs of `oracle`.
SampleSet runs(const Oracle& oracle, int n, std::mt19937_64& rng) {
  SampleSet set;
  for (int i = 0; i < n; ++i) {
    set.samples.push_back(oracle.run(rng));
  }
  return set;
}

// Counters of one scenario.
struct Tally {
  int decisions = 0, refused = 0, wrong = 0, unstable = 0, runs = 0, anchor_runs = 0;
  int single_wrong = 0, single_total = 0;
};

// Return the verdict a careless tool gives from one run: a crash like bad is bad, otherwise
// whichever anchor median is nearer on a log scale.
Verdict single_run(const Sample& s, const SampleSet& good, const SampleSet& bad) {
  if (s.failed) {
    return Verdict::bad;
  }
  const double g = envbisect::stats::median(good.metrics());
  const std::vector<double> bm = bad.metrics();
  if (bm.empty()) {
    return Verdict::good;
  }
  const double b = envbisect::stats::median(bm);
  return std::fabs(std::log(s.metric / g)) <= std::fabs(std::log(s.metric / b)) ? Verdict::good : Verdict::bad;
}

// Return true when a decided verdict contradicts the truth (unstable and skip are never wrong).
bool is_wrong(Verdict v, Truth t) {
  if (v == Verdict::unstable || v == Verdict::skip) {
    return false;
  }
  switch (t) {
    case Truth::good: return v != Verdict::good;
    case Truth::bad: return v != Verdict::bad;
    case Truth::middle: return v != Verdict::intermediate;
  }
  return true;
}

// Run one decision and add it to `tally`.
void decide_once(double effect, bool flaky, Truth truth, const envbisect::stats::VerdictPolicy& policy,
                 std::mt19937_64& rng, Tally& tally) {
  const Oracle good_env{1.0, false};
  const Oracle bad_env{effect, flaky};
  const Oracle cand_env = truth == Truth::good ? good_env
                          : truth == Truth::bad ? bad_env
                                                : Oracle{std::sqrt(effect), false};
  tally.decisions += 1;
  SampleSet good = runs(good_env, policy.anchor_runs, rng);
  SampleSet bad = runs(bad_env, policy.anchor_runs, rng);
  // As the run loop does: while the anchors are not told apart, add one interleaved pair.
  auto pre = envbisect::stats::preflight(good, bad, policy);
  while (!pre.distinguishable && pre.more_runs_would_help) {
    good.samples.push_back(good_env.run(rng));
    bad.samples.push_back(bad_env.run(rng));
    pre = envbisect::stats::preflight(good, bad, policy);
  }
  // As the run loop does: anchors the preflight wants more runs of get them before the search (paid
  // once per search, counted apart from the candidate's runs).
  while (pre.distinguishable && !envbisect::stats::looks_deterministic(good, bad, policy) &&
         static_cast<int>(good.size()) < pre.anchor_runs_wanted) {
    good.samples.push_back(good_env.run(rng));
    bad.samples.push_back(bad_env.run(rng));
  }
  if (pre.distinguishable) {
    pre = envbisect::stats::preflight(good, bad, policy);
  }
  tally.anchor_runs += static_cast<int>(good.size() + bad.size());
  // The careless baseline sees the same anchors and the candidate's first run.
  SampleSet cand;
  cand.samples.push_back(cand_env.run(rng));
  if (truth != Truth::middle) {
    tally.single_total += 1;
    tally.single_wrong += is_wrong(single_run(cand.samples[0], good, bad), truth) ? 1 : 0;
  }
  if (!pre.distinguishable) {
    tally.refused += 1;
    return;
  }
  for (;;) {
    const auto a = envbisect::stats::assess(cand, good, bad, policy);
    if (a.decided) {
      tally.wrong += is_wrong(a.verdict, truth) ? 1 : 0;
      if (std::getenv("BENCH_SHOW_WRONG") != nullptr && is_wrong(a.verdict, truth)) {
        std::string line;
        for (const Sample& s : cand.samples) {
          line += s.failed ? " X" : " " + std::to_string(s.metric).substr(0, 4);
        }
        std::string anchors = " | good";
        for (const Sample& s : good.samples) {
          anchors += s.failed ? " X" : " " + std::to_string(s.metric).substr(0, 4);
        }
        anchors += " | bad";
        for (const Sample& s : bad.samples) {
          anchors += s.failed ? " X" : " " + std::to_string(s.metric).substr(0, 4);
        }
        std::fprintf(stderr, "WRONG truth=%d effect=%.1f %s |%s%s\n", static_cast<int>(truth), effect,
                     a.reason.c_str(), line.c_str(), anchors.c_str());
      }
      tally.unstable += a.verdict == Verdict::unstable ? 1 : 0;
      break;
    }
    cand.samples.push_back(cand_env.run(rng));
  }
  tally.runs += static_cast<int>(cand.size());
}

// Return wrong verdicts per decision that passed preflight.
double wrong_rate(const Tally& t) {
  const int judged = t.decisions - t.refused;
  return judged > 0 ? static_cast<double>(t.wrong) / judged : 0.0;
}

// Return candidate runs per decision that passed preflight.
double runs_per_decision(const Tally& t) {
  const int judged = t.decisions - t.refused;
  return judged > 0 ? static_cast<double>(t.runs) / judged : 0.0;
}

}  // namespace

int main(int argc, char** argv) {
  const int decisions = argc > 1 ? std::atoi(argv[1]) : 1000;
  std::mt19937_64 rng(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 20261129);
  envbisect::stats::VerdictPolicy policy;
  std::printf("%-6s %-5s %-6s %9s %7s %6s %9s %8s %11s %11s\n", "mode", "effect", "truth", "decisions",
              "refused", "wrong", "wrong%", "unstable", "runs/dec", "1-run wrong%");
  double worst_wrong[3] = {0, 0, 0}, worst_runs_5x = 0, worst_anchor_runs_5x = 0;
  const double effects[3] = {1.2, 1.5, 5.0};
  for (bool flaky : {false, true}) {
    for (int e = 0; e < 3; ++e) {
      // Good and bad candidates alternate; the headline numbers are over these.
      Tally gb, mid;
      for (int i = 0; i < decisions; ++i) {
        decide_once(effects[e], flaky, i % 2 == 0 ? Truth::good : Truth::bad, policy, rng, gb);
      }
      for (int i = 0; i < decisions / 2; ++i) {
        decide_once(effects[e], flaky, Truth::middle, policy, rng, mid);
      }
      for (const auto& [name, t] : {std::pair{"good+bad", gb}, std::pair{"middle", mid}}) {
        const std::string single =
            t.single_total > 0 ? std::to_string(100.0 * t.single_wrong / t.single_total).substr(0, 5) + "%" : "n/a";
        std::printf("%-6s %5.1fx %-8s %7d %7d %6d %8.2f%% %8d %11.2f %11s\n", flaky ? "flaky" : "slow", effects[e],
                    name, t.decisions, t.refused, t.wrong, 100.0 * wrong_rate(t), t.unstable, runs_per_decision(t),
                    single.c_str());
      }
      // Headline figures: the worse of the two modes, over good and bad candidates.
      worst_wrong[e] = std::max(worst_wrong[e], wrong_rate(gb));
      if (e == 2) {
        worst_runs_5x = std::max(worst_runs_5x, runs_per_decision(gb));
        worst_anchor_runs_5x = std::max(worst_anchor_runs_5x, static_cast<double>(gb.anchor_runs) / gb.decisions);
      }
    }
  }
  std::printf("wrong_rate_5x: %.4f\n", worst_wrong[2]);
  std::printf("wrong_rate_1_5x: %.4f\n", worst_wrong[1]);
  std::printf("runs_per_decision_5x: %.2f\n", worst_runs_5x);
  // Both anchors' runs before the search, paid once per search (each decision here draws its own).
  std::printf("anchor_runs_5x: %.2f\n", worst_anchor_runs_5x);
  return 0;
}
