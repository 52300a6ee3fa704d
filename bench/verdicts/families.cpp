// Simulate whole bisections -- preflight, isolate() with verdicts from src/stats, anchor refreshes,
// the re-check of the anchors before reporting -- on planted regressions, as `envbisect run` does them
// (src/app/run/run.cpp), and count how often the outcome is right, and how often it is confidently wrong
// (exit 0 with a wrong cause). Families: identical anchors (null), single causes, 2- and 3-way
// interactions, two independent causes, two partial causes, small effects at low noise, slow
// outliers, drift, a bimodal machine, an intermittent slowdown and a 40 % crash rate.
//
// Usage: bench_verdict_families [runs per family] [seed] [threads]. Prints one line per family, then,
// last, `null_blame_rate: X`, `confident_wrong_rate: Y`, `right_rate: Z`.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "search/isolate.hpp"
#include "stats/pass_fail.hpp"
#include "stats/replicate.hpp"
#include "stats/samples.hpp"
#include "stats/verdict.hpp"

namespace {

using envbisect::DeltaSet;
using envbisect::Verdict;
using envbisect::stats::Sample;
using envbisect::stats::SampleSet;
using envbisect::stats::VerdictPolicy;

constexpr int k_anchor_refresh = 5;  // as src/app/run/run.cpp: one more anchor pair every 5 decisions
const char* const k_crash = "exit:1|RuntimeError: CUDA error: an illegal memory access";

// One planted regression: how a candidate (a set of applied deltas) measures.
struct Family {
  std::string name;
  bool null = false;                 // good and bad do not differ: any blame is wrong
  std::size_t deltas = 8;
  std::vector<DeltaSet> causes;      // each alone (all members applied) gives `effect`
  bool partial = false;              // causes[0] and causes[1] each give sqrt(effect); together effect
  double effect = 2.0;               // slowdown factor of bad (seconds per step, lower is better)
  double cv = 0.10;                  // log-normal noise
  double outlier_rate = 0.0;         // runs 3x slow, any candidate
  double drift_per_run = 0.0;        // every run of the whole bisection is this much slower than the last
  double bimodal = 0.0;              // fraction of runs on a machine mode 1.3x slower, any candidate
  double intermittent = 0.0;         // fraction of runs of a candidate with the cause that are `effect` slower
  double crash_rate = 0.0;           // crashes of candidates with the cause (metric then unchanged)
};

// The world a simulated bisection runs against.
class World {
public:
  World(const Family& family, std::mt19937_64& rng) : m_family(family), m_rng(rng) {}

  // Return how much of the regression `applied` carries: 0 none, 1 all (partial causes: 0.5 each).
  double dose(const DeltaSet& applied) const {
    auto has = [&](const DeltaSet& cause) {
      return std::all_of(cause.begin(), cause.end(), [&](std::size_t d) {
        return std::binary_search(applied.begin(), applied.end(), d);
      });
    };
    if (m_family.null) {
      return 0.0;
    }
    if (m_family.partial) {
      return 0.5 * (has(m_family.causes[0]) ? 1.0 : 0.0) + 0.5 * (has(m_family.causes[1]) ? 1.0 : 0.0);
    }
    for (const DeltaSet& cause : m_family.causes) {
      if (has(cause)) {
        return 1.0;
      }
    }
    return 0.0;
  }

  // Return one run of `applied`.
  Sample run(const DeltaSet& applied) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double d = dose(applied);
    Sample s;
    s.checksum = "loss=2.3456";
    ++m_runs;
    if (m_family.crash_rate > 0.0 && d > 0.0 && u(m_rng) < m_family.crash_rate * d) {
      s.failed = true;
      s.failure_signature = k_crash;
      return s;
    }
    double median = 1.0;
    if (m_family.intermittent > 0.0) {
      median *= d > 0.0 && u(m_rng) < m_family.intermittent * d ? m_family.effect : 1.0;
    } else if (m_family.crash_rate == 0.0) {
      median *= std::pow(m_family.effect, d);
    }
    median *= 1.0 + m_family.drift_per_run * static_cast<double>(m_runs);
    median *= u(m_rng) < m_family.bimodal ? 1.3 : 1.0;
    median *= u(m_rng) < m_family.outlier_rate ? 3.0 : 1.0;
    std::lognormal_distribution<double> noise(0.0, std::sqrt(std::log(1.0 + m_family.cv * m_family.cv)));
    s.metric = median * noise(m_rng);
    return s;
  }

  // Return how many runs the world has made.
  int runs() const { return m_runs; }

private:
  const Family& m_family;
  std::mt19937_64& m_rng;
  int m_runs = 0;
};

// How one simulated bisection ended.
enum class End { refused, found_right, found_wrong, not_found };

// Return the questions a search asked and their verdicts, " {1,2}=bad {1}=good", for debug lines.
std::string describe_steps(const envbisect::Isolation& isolation) {
  std::string steps;
  for (const envbisect::SearchStep& step : isolation.steps) {
    steps += " " + envbisect::describe(step.applied) + "=" + std::string(envbisect::to_string(step.verdict));
  }
  return steps;
}

// Run one bisection of `family` as `envbisect run` does, and say how it ended.
End bisect_once(const Family& family, std::mt19937_64& rng, int& runs) {
  World world(family, rng);
  VerdictPolicy policy;
  policy.higher_is_better = false;
  // What-if knobs for trying other budgets: BENCH_MAX_RUNS (a candidate's cap, `--max-runs`) and
  // BENCH_MAX_ANCHOR_RUNS (the anchors' metric cap).
  if (const char* cap = std::getenv("BENCH_MAX_RUNS"); cap != nullptr && std::atoi(cap) > 0) {
    policy.max_runs = std::atoi(cap);
  }
  if (const char* cap = std::getenv("BENCH_MAX_ANCHOR_RUNS"); cap != nullptr && std::atoi(cap) > 0) {
    policy.max_anchor_runs = std::atoi(cap);
  }
  DeltaSet all(family.deltas);
  std::iota(all.begin(), all.end(), std::size_t{0});
  SampleSet good, bad;
  int anchor_runs = 0;
  auto anchors_to = [&](int n) {
    while (anchor_runs < n) {
      ++anchor_runs;
      good.samples.push_back(world.run({}));
      bad.samples.push_back(world.run(all));
    }
  };
  anchors_to(policy.anchor_runs);
  auto pre = envbisect::stats::preflight(good, bad, policy);
  while (!pre.distinguishable && pre.more_runs_would_help) {
    anchors_to(anchor_runs + 1);
    pre = envbisect::stats::preflight(good, bad, policy);
  }
  if (!pre.distinguishable) {
    runs = world.runs();
    return End::refused;
  }
  // As the run does: close anchors get more runs before the search leans on them.
  anchors_to(pre.anchor_runs_wanted);
  const bool one_run = envbisect::stats::looks_deterministic(good, bad, policy);
  std::map<DeltaSet, SampleSet> measured;
  int decisions = 0;
  // As the run does: an intermediate verdict is replicated in rounds beside fresh anchor runs, once
  // per candidate; what that decides stands when the candidate is asked again (no new runs).
  std::map<DeltaSet, Verdict> replicated;  // each replicated candidate's verdict on its fresh rounds
  auto replicate = [&](const DeltaSet& applied, envbisect::stats::Assessment a) {
    if (one_run || a.verdict != Verdict::intermediate) {
      return a;
    }
    SampleSet& c = measured[applied];
    const std::size_t from_c = c.size();
    const std::size_t from_a = good.size();
    int rounds = 0;
    const SampleSet earlier_good = good;
    const SampleSet earlier_bad = bad;
    const auto fresh = envbisect::stats::replicate_intermediate(
        [&] {
          c.samples.push_back(world.run(applied));
          anchors_to(anchor_runs + 1);
          envbisect::stats::Rounds r;
          r.candidate.samples.assign(c.samples.begin() + static_cast<std::ptrdiff_t>(from_c), c.samples.end());
          r.good.samples.assign(good.samples.begin() + static_cast<std::ptrdiff_t>(from_a), good.samples.end());
          r.bad.samples.assign(bad.samples.begin() + static_cast<std::ptrdiff_t>(from_a), bad.samples.end());
          return r;
        },
        policy, &rounds, &earlier_good, &earlier_bad);
    replicated[applied] = fresh.verdict;
    if (std::getenv("BENCH_REPLICATE") != nullptr) {
      std::fprintf(stderr, "REPLICATE %s dose=%.2f rounds=%d -> %s\n", family.name.c_str(), world.dose(applied), rounds,
                   std::string(envbisect::to_string(fresh.verdict)).c_str());
    }
    return fresh;
  };
  const envbisect::Oracle oracle = [&](const DeltaSet& applied) {
    if (const auto kept = replicated.find(applied); kept != replicated.end()) {
      ++decisions;  // journaled again as the run does, with no new runs
      return kept->second;
    }
    SampleSet& c = measured[applied];
    while (c.size() < static_cast<std::size_t>(one_run ? 1 : policy.min_runs)) {
      c.samples.push_back(world.run(applied));
    }
    auto a = one_run ? envbisect::stats::assess_pass_fail(c) : envbisect::stats::assess(c, good, bad, policy);
    while (!a.decided) {
      c.samples.push_back(world.run(applied));
      a = envbisect::stats::assess(c, good, bad, policy);
    }
    a = replicate(applied, a);
    ++decisions;
    if (std::getenv("BENCH_UNSTABLE") != nullptr && a.verdict == Verdict::unstable) {
      std::fprintf(stderr, "UNSTABLE %s dose=%.1f anchors=%d: %s\n", family.name.c_str(), world.dose(applied), anchor_runs, a.reason.c_str());
    }
    if (std::getenv("BENCH_DEBUG") != nullptr && world.dose(applied) > 0.0 && a.verdict == Verdict::good) {
      std::fprintf(stderr, "GOODCAUSE %s one_run=%d %s\n", family.name.c_str(), one_run ? 1 : 0, a.reason.c_str());
    }
    if (!one_run && decisions % k_anchor_refresh == 0 && anchor_runs < policy.max_anchor_runs) {
      anchors_to(anchor_runs + 1);
    }
    return a.verdict;
  };
  envbisect::IsolateOptions options;
  // As the run does: min_runs more runs of the set, then the verdict on all of its runs.
  options.recheck = [&](const DeltaSet& applied) {
    if (const auto kept = replicated.find(applied); kept != replicated.end()) {
      return kept->second;
    }
    SampleSet& c = measured[applied];
    const std::size_t target = c.size() + static_cast<std::size_t>(one_run ? 1 : policy.min_runs);
    while (c.size() < target) {
      c.samples.push_back(world.run(applied));
    }
    auto a = one_run ? envbisect::stats::assess_pass_fail(c) : envbisect::stats::assess(c, good, bad, policy);
    while (!a.decided) {
      c.samples.push_back(world.run(applied));
      a = envbisect::stats::assess(c, good, bad, policy);
    }
    a = replicate(applied, a);
    return a.verdict;
  };
  envbisect::Isolation isolation = envbisect::isolate(family.deltas, oracle, options);
  // As the run does: verdicts decided on fewer anchor runs are judged again on all of them; when one
  // no longer holds, the search asks its questions again (runs kept; undecided ones get more runs).
  for (int pass = 0; pass < 2 && !one_run && std::getenv("BENCH_NO_REJUDGE") == nullptr; ++pass) {
    bool stale = false;
    for (const envbisect::SearchStep& step : isolation.steps) {
      if (step.assumed || replicated.count(step.applied) > 0) {
        continue;
      }
      const auto again = envbisect::stats::assess(measured[step.applied], good, bad, policy);
      if (!again.decided || again.verdict != step.verdict) {
        stale = true;
        break;
      }
    }
    if (!stale) {
      break;
    }
    isolation = envbisect::isolate(family.deltas, oracle, options);
  }
  runs = world.runs();
  // The re-check on all anchor runs before reporting (retract when they no longer differ).
  const bool still = one_run ? envbisect::stats::pass_fail_anchors(good, bad).distinguishable
                             : envbisect::stats::preflight(good, bad, policy).distinguishable;
  const bool exit0 = still && isolation.found && isolation.verified_forward && isolation.verified_reverse;
  if (!exit0) {
    if (std::getenv("BENCH_SHOW_OPEN") != nullptr) {
      const std::string steps = describe_steps(isolation);
      std::fprintf(stderr, "OPEN %s: still=%d found=%d fwd=%d rev=%d anchors %d;%s\n", family.name.c_str(), still ? 1 : 0,
                   isolation.found ? 1 : 0, isolation.verified_forward ? 1 : 0, isolation.verified_reverse ? 1 : 0,
                   anchor_runs, steps.c_str());
    }
    return End::not_found;
  }
  if (family.null) {
    return End::found_wrong;
  }
  std::set<DeltaSet> truth;
  if (family.partial) {
    DeltaSet together;
    std::set_union(family.causes[0].begin(), family.causes[0].end(), family.causes[1].begin(),
                   family.causes[1].end(), std::back_inserter(together));
    truth.insert(together);
  } else {
    truth.insert(family.causes.begin(), family.causes.end());
  }
  const std::set<DeltaSet> found(isolation.causes.begin(), isolation.causes.end());
  if (found != truth && std::getenv("BENCH_SHOW_WRONG") != nullptr) {
    const std::string steps = describe_steps(isolation);
    std::fprintf(stderr, "WRONG %s: found %s truth %s anchors %d;%s\n", family.name.c_str(),
                 envbisect::describe(isolation.cause).c_str(), envbisect::describe(*truth.begin()).c_str(), anchor_runs,
                 steps.c_str());
  }
  return found == truth ? End::found_right : End::found_wrong;
}

// The families of issue 19, each with several placements of its causes.
std::vector<Family> families() {
  std::vector<Family> out;
  for (double cv : {0.05, 0.10, 0.15}) {
    for (std::size_t d : {3, 6, 12}) {
      Family f;
      f.name = "null cv" + std::to_string(static_cast<int>(cv * 100)) + " d" + std::to_string(d);
      f.null = true;
      f.deltas = d;
      f.cv = cv;
      out.push_back(f);
    }
  }
  auto add = [&](std::string name, std::function<void(Family&)> tweak) {
    Family f;
    f.name = std::move(name);
    f.causes = {{5}};
    tweak(f);
    out.push_back(f);
  };
  add("single 2x", [](Family&) {});
  add("pair 2x", [](Family& f) { f.causes = {{1, 6}}; });
  add("triple 2x", [](Family& f) { f.deltas = 12; f.causes = {{0, 4, 9}}; });
  add("two independent", [](Family& f) { f.causes = {{2}, {6}}; });
  add("two partial", [](Family& f) { f.causes = {{2}, {6}}; f.partial = true; f.effect = 2.5; });
  for (double effect : {1.3, 1.5, 2.0}) {
    for (double cv : {0.03, 0.10}) {
      add("single " + std::to_string(effect).substr(0, 3) + "x cv" + std::to_string(static_cast<int>(cv * 100)),
          [=](Family& f) { f.effect = effect; f.cv = cv; });
    }
  }
  add("outliers 10%", [](Family& f) { f.outlier_rate = 0.10; });
  add("drift", [](Family& f) { f.drift_per_run = 0.002; });
  add("bimodal machine", [](Family& f) { f.bimodal = 0.5; f.cv = 0.05; });
  add("intermittent 50% 3x", [](Family& f) { f.intermittent = 0.5; f.effect = 3.0; f.cv = 0.05; });
  add("crash 40%", [](Family& f) { f.crash_rate = 0.4; });
  return out;
}

// Counts of one family.
struct Tally {
  std::atomic<int> total{0}, refused{0}, right{0}, wrong{0}, open{0};
  std::atomic<long> runs{0};
};

}  // namespace

int main(int argc, char** argv) {
  const int per_family = argc > 1 ? std::atoi(argv[1]) : 200;
  const unsigned long long seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 20261201;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  // BENCH_FAMILY=TEXT: only the families whose name contains TEXT (for a quick look at one).
  std::vector<Family> all = families();
  if (const char* only = std::getenv("BENCH_FAMILY"); only != nullptr && *only != '\0') {
    std::erase_if(all, [&](const Family& f) { return f.name.find(only) == std::string::npos; });
  }
  std::vector<Tally> tallies(all.size());
  std::atomic<int> next{0};
  const int jobs = static_cast<int>(all.size()) * per_family;
  auto work = [&] {
    for (int job = next++; job < jobs; job = next++) {
      const std::size_t f = static_cast<std::size_t>(job / per_family);
      std::mt19937_64 rng(seed * 1000003ULL + static_cast<unsigned long long>(job));
      // Place the causes anew each run: a random relabelling of the deltas.
      Family family = all[f];
      std::vector<std::size_t> perm(family.deltas);
      std::iota(perm.begin(), perm.end(), std::size_t{0});
      std::shuffle(perm.begin(), perm.end(), rng);
      for (DeltaSet& cause : family.causes) {
        for (std::size_t& d : cause) {
          d = perm[d % family.deltas];
        }
        std::sort(cause.begin(), cause.end());
      }
      int runs = 0;
      const End end = bisect_once(family, rng, runs);
      Tally& t = tallies[f];
      t.total += 1;
      t.runs += runs;
      t.refused += end == End::refused ? 1 : 0;
      t.right += end == End::found_right ? 1 : 0;
      t.wrong += end == End::found_wrong ? 1 : 0;
      t.open += end == End::not_found ? 1 : 0;
    }
  };
  std::vector<std::thread> pool;
  for (int i = 0; i < std::max(threads, 1); ++i) {
    pool.emplace_back(work);
  }
  for (std::thread& t : pool) {
    t.join();
  }
  std::printf("%-24s %6s %8s %7s %7s %9s %9s\n", "family", "runs", "refused", "right", "wrong", "no-cause",
              "runs/bis");
  long null_total = 0, null_blame = 0, total = 0, right = 0, wrong = 0;
  for (std::size_t f = 0; f < all.size(); ++f) {
    const Tally& t = tallies[f];
    std::printf("%-24s %6d %8d %7d %7d %9d %9.1f\n", all[f].name.c_str(), t.total.load(), t.refused.load(),
                t.right.load(), t.wrong.load(), t.open.load(),
                t.total > 0 ? static_cast<double>(t.runs.load()) / t.total.load() : 0.0);
    if (all[f].null) {
      null_total += t.total;
      null_blame += t.wrong;
    } else {
      total += t.total;
      right += t.right;
      wrong += t.wrong;
    }
  }
  std::printf("null_blame_rate: %.4f\n", null_total > 0 ? static_cast<double>(null_blame) / null_total : 0.0);
  std::printf("confident_wrong_rate: %.4f\n", total > 0 ? static_cast<double>(wrong) / total : 0.0);
  std::printf("right_rate: %.4f\n", total > 0 ? static_cast<double>(right) / total : 0.0);
  return 0;
}
