#include "stats/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "stats/anchors.hpp"
#include "stats/density.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/quantity.hpp"
#include "stats/tail.hpp"

namespace envbisect::stats {

namespace {

// Which anchor one channel of evidence points to.
enum class Leaning {
  good,     // like the good anchor, unlike the bad one
  bad,      // like the bad anchor, unlike the good one
  between,  // unlike both, in between: a partial cause
  unknown,  // not enough evidence yet
  silent,   // the anchors do not differ in this channel: it cannot say anything
};

// How the candidate's failures split between the anchors' signatures and new ones.
struct FailureCounts {
  std::size_t counted_runs = 0;    // runs that are not a new failure (and not skipped)
  std::size_t failures = 0;        // failures with a signature an anchor showed
  std::size_t bad_only = 0;        // of those, signatures only the bad anchor showed
  std::size_t different = 0;       // failures with a signature no anchor showed
  std::string first_different;     // the first such signature, for the reason line
};

// Return the candidate's failures sorted by signature against the anchors'.
FailureCounts count_failures(const SampleSet& candidate, const Anchors& a) {
  FailureCounts c;
  for (const Sample& s : candidate.samples) {
    if (s.skipped) {
      continue;
    }
    const bool known = a.bad_signatures.count(s.failure_signature) > 0 ||
                       a.good_signatures.count(s.failure_signature) > 0;
    if (s.failed && !known) {
      c.different += 1;
      if (c.first_different.empty()) {
        c.first_different = s.failure_signature;
      }
      continue;
    }
    c.counted_runs += 1;
    if (s.failed) {
      c.failures += 1;
      c.bad_only += a.good_signatures.count(s.failure_signature) == 0 ? 1 : 0;
    }
  }
  return c;
}

// Return the likelihood ratio "fails like bad" over "fails like good" of the counted runs.
double failure_likelihood_ratio(const FailureCounts& c, const Anchors& a) {
  const double k = static_cast<double>(c.failures);
  const double clean = static_cast<double>(c.counted_runs - c.failures);
  return std::pow(a.bad_rate / a.good_rate, k) * std::pow((1.0 - a.bad_rate) / (1.0 - a.good_rate), clean);
}

// Return where the failures point: bad or good once the likelihood ratio passes the policy's
// bound, else unknown.
Leaning failure_leaning(double ratio, const VerdictPolicy& policy) {
  if (ratio >= 1.0 / policy.failure_alpha) {
    return Leaning::bad;
  }
  if (ratio <= policy.failure_alpha) {
    return Leaning::good;
  }
  return Leaning::unknown;
}

// Return where the candidate's runs beyond good's worst point (tail channel): bad or good once the
// likelihood ratio of its event count passes the policy's bound (20 either way at the cap), else
// unknown; silent when inactive.
Leaning tail_leaning(const std::vector<double>& c, const Anchors& a, const VerdictPolicy& policy, bool at_cap) {
  if (!a.tail_active || c.empty()) {
    return a.tail_active ? Leaning::unknown : Leaning::silent;
  }
  const double k = static_cast<double>(beyond(c, a.tail_threshold, a.tail_side));
  const double clean = static_cast<double>(c.size()) - k;
  const double ratio = std::pow(a.tail_bad_rate / a.tail_good_rate, k) *
                       std::pow((1.0 - a.tail_bad_rate) / (1.0 - a.tail_good_rate), clean);
  if (at_cap) {
    // As for failures: at the cap the cautious rates have been paid for with many runs.
    return ratio >= 20.0 ? Leaning::bad : ratio <= 0.05 ? Leaning::good : Leaning::unknown;
  }
  return failure_leaning(ratio, policy);
}

// Return the candidate's position (0 at good, 1 at bad) as seen from its better end: the value
// of its sorted positions at index (n-1)/4. Slow outliers hit one run in ten in real benchmarks and
// only ever push towards "bad"; a bad call must not rest on them, so a few of the candidate's worst
// runs are ignored. Needs a non-zero gap.
double robust_low_position(const std::vector<double>& c, const Anchors& a) {
  std::vector<double> positions;
  for (double v : c) {
    positions.push_back((v - a.good_median) / a.gap);
  }
  std::sort(positions.begin(), positions.end());
  return positions[(positions.size() - 1) / 4];
}

// The halfway guard's evidence about the candidate's runs (see bad_over_halfway).
struct HalfwayEvidence {
  double llr = 0.0;             // log likelihood ratio "measures like bad" over "measures halfway"
  bool every_run_firm = false;  // every run counted fully for bad (k_run_evidence_bound)
};

// Return the runs' evidence for "measures like bad" over "measures like a candidate halfway between the
// anchors" (a partial cause): the halfway candidate is good's runs moved by half the gap. One slow
// outlier among good's few runs, moved by half, lands among or past bad's runs (at 4.5x, good's 3x
// outlier lands at 1.4x bad's median), where it held a fifth of the halfway density: bad's own runs
// looked halfway and a bad candidate stayed undecided for many runs. So runs are weighed like with like:
// - a run within bad's reach against good's runs within good's reach moved by half: typical runs
//   against typical runs (an anchor's reach: three robust spreads past its median, as anchors.cpp
//   reaches past good's, the spread taken from both anchors' runs around their medians: five runs'
//   own spread is too often a fraction of the true one, and would leave good's ordinary runs out);
// - a run beyond bad's reach, itself a slow outlier, against all of good's runs moved by half, and for
//   bad against bad's runs together with good's moved by the whole gap: outliers against outliers moved
//   alike, rather than against whichever anchor happened to catch one.
// A candidate truly halfway keeps its protection: its typical runs meet halfway's typical runs, and its
// slow outliers, beyond bad's reach where the gap is small, still meet good's outliers moved by half.
HalfwayEvidence bad_over_halfway(const std::vector<double>& c, const Anchors& a) {
  const double w = a.bandwidth, half = a.gap / 2.0;
  const Side worse = a.tail_side;
  const double bad_median = median(a.bad);
  std::vector<double> residuals;
  for (double g : a.good) {
    residuals.push_back(g - a.good_median);
  }
  for (double b : a.bad) {
    residuals.push_back(b - bad_median);
  }
  const double reach = 3.0 * std::max(robust_sd(residuals), std::abs(a.gap) / 20.0);
  const double signed_reach = worse == Side::above ? reach : -reach;
  const double good_reach = a.good_median + signed_reach, bad_reach = bad_median + signed_reach;
  std::vector<double> typical_good;
  for (double g : a.good) {
    if (beyond({g}, good_reach, worse) == 0) {
      typical_good.push_back(g);
    }
  }
  if (typical_good.empty()) {
    typical_good = a.good;
  }
  std::vector<double> bad_and_moved_good = a.bad;
  for (double g : a.good) {
    bad_and_moved_good.push_back(g + a.gap);
  }
  HalfwayEvidence e;
  std::size_t firm = 0;
  for (double v : c) {
    const double term = beyond({v}, bad_reach, worse) == 0
                            ? log_likelihood_ratio({v}, a.bad, 0.0, typical_good, half, w)
                            : log_likelihood_ratio({v}, bad_and_moved_good, 0.0, a.good, half, w);
    e.llr += term;
    firm += term >= k_run_evidence_bound ? 1 : 0;
  }
  e.every_run_firm = !c.empty() && firm == c.size();
  return e;
}

// Return where the metrics point, and fill the assessment's p-values and position. The anchors fix
// the direction of the regression, so the exact rank tests are one-sided: "worse than good" and
// "better than bad". With densities for both anchors (three runs each or more), good and bad are
// decided by the likelihood of the candidate's runs, a sequential test that stops as soon as the runs
// point one way (see log_likelihood_ratio); the rank test against the other anchor must agree.
// Without them, good needs "better than bad" and the Hodges-Lehmann position within the effect gate
// of good, bad needs "worse than good" and even the candidate's better runs within the gate of bad.
// Intermediate needs both rank tests to reject at the stricter level, in between, and replication:
// twice the first runs, since a few runs between two few-run anchors reach that level by chance.
// `failure_log_ratio` is the log of the failure channel's likelihood ratio bad:good of the same runs;
// `not_good` says the candidate showed a failure only bad showed, which good never showed.
Leaning metric_leaning(const std::vector<double>& c, const Anchors& a, const VerdictPolicy& policy, bool at_cap,
                       double failure_log_ratio, bool not_good, Assessment& out) {
  if (c.size() < 2) {
    return a.metric_reliable ? Leaning::unknown : Leaning::silent;
  }
  const RankTest vs_good = mann_whitney(c, a.good);
  if (!a.metric_reliable) {
    // No direction to test: any move away from good counts against calling it good.
    out.p_vs_good = vs_good.p_two_sided;
    return Leaning::silent;
  }
  const RankTest vs_bad = mann_whitney(c, a.bad);
  const bool up = a.gap > 0.0;
  out.p_vs_good = up ? vs_good.p_greater : vs_good.p_less;
  out.p_vs_bad = up ? vs_bad.p_less : vs_bad.p_greater;
  out.position = hodges_lehmann_shift(c, a.good) / a.gap;
  const double gate = policy.effect_gate;
  if (a.bandwidth > 0.0) {
    // The likelihood channel: bad or good once the runs are 1/failure_alpha times likelier under that
    // anchor's density than under the other's and under a candidate halfway between them (a partial
    // cause must not pass for either anchor); at the cap, likelier than halfway is enough. The rank
    // test against the other anchor must agree.
    const double w = a.bandwidth, half = a.gap / 2.0;
    const double bound = std::log(1.0 / policy.failure_alpha);
    const double half_bound = at_cap ? 0.0 : bound;
    const double llr = log_likelihood_ratio(c, a.bad, 0.0, a.good, 0.0, w);
    // Against good, bad counts both channels: a crash hides a run's metric, and with each run's metric
    // term bounded (log 8) against a bound of log 100, three runs had to measure before "bad" -- a
    // third of a crashing bad state's runs bought nothing. The channels are two views of the same runs,
    // independent given the candidate's state, so their likelihood ratios multiply: a failure like an
    // anchor's counts bad_rate/good_rate, a run that measured also (1-bad_rate)/(1-good_rate) (see
    // failure_likelihood_ratio; the cautious rates keep a few anchor runs from saying much). The
    // failure channel is counted only where it points to bad: a candidate that measures like bad and
    // fails less than bad stays bad (combine()), not undecided. A candidate that showed a failure only
    // bad showed, never seen from good, is not good at all (assess(), combine()): then nothing is left
    // to weigh against good, and bad rests on the metric agreeing -- the rank test against good and the
    // halfway guard.
    const bool like_bad_not_good = llr + std::max(0.0, failure_log_ratio) >= bound || not_good;
    // The halfway guard stays on the metric alone: a partial cause may fail like bad (combine() makes a
    // candidate that fails like bad and measures between intermediate). Besides the bound, it passes
    // when every one of two runs or more counts fully against halfway: a run's term is bounded at
    // log 8, so two runs can never reach log 100, and where a crash took the third run's metric the
    // runs that measured have said all that runs may say.
    const HalfwayEvidence halfway = bad_over_halfway(c, a);
    const bool not_halfway = halfway.llr >= half_bound || (c.size() >= 2 && halfway.every_run_firm);
    if (like_bad_not_good && out.p_vs_good <= policy.alpha && not_halfway) {
      return Leaning::bad;
    }
    if (llr <= -bound && out.p_vs_bad <= policy.alpha &&
        log_likelihood_ratio(c, a.good, 0.0, a.good, half, w) >= half_bound) {
      return Leaning::good;
    }
  } else {
    // Too few anchor runs for densities: the rank tests and the position decide.
    if (out.p_vs_good <= policy.alpha && robust_low_position(c, a) >= 1.0 - gate) {
      return Leaning::bad;
    }
    if (at_cap && out.p_vs_good <= policy.alpha && out.p_vs_bad > policy.alpha && out.position >= 1.0 - gate) {
      return Leaning::bad;
    }
    if (out.p_vs_bad <= policy.alpha && out.position <= gate) {
      return Leaning::good;
    }
  }
  const bool both = out.p_vs_good <= policy.alpha_intermediate && out.p_vs_bad <= policy.alpha_intermediate;
  const bool replicated = c.size() >= 2 * static_cast<std::size_t>(std::max(policy.min_runs, 1));
  if (both && replicated && out.position > gate && out.position < 1.0 - gate) {
    return Leaning::between;
  }
  return Leaning::unknown;
}

// Return the metric part of a reason line.
std::string metric_words(const Assessment& a) {
  return "metric at " + reason_number(100.0 * a.position, "%.0f") + "% of the way from good to bad (p vs good " +
         reason_number(a.p_vs_good) + ", p vs bad " + reason_number(a.p_vs_bad) + ")";
}

// Return the failure part of a reason line.
std::string failure_words(const FailureCounts& c, double ratio) {
  return "failed like an anchor in " + runs_of(c.failures, c.counted_runs) + " runs (likelihood ratio bad:good " +
         reason_number(ratio) + ")";
}

// Set the verdict of a decided assessment.
void decide(Assessment& out, Verdict verdict, std::string reason) {
  out.decided = true;
  out.verdict = verdict;
  out.reason = std::string(to_string(verdict)) + ": " + std::move(reason);
}

// Combine the two channels into a verdict, or leave `out` undecided. A channel that points to bad
// wins over one that points to good, except that failing like bad while measuring unlike bad, or
// measuring like bad while failing unlike bad, is a partial cause; "good" needs every channel the
// anchors differ in to be cleared.
void combine(Leaning metric, Leaning failure, Leaning tail, const FailureCounts& c, double ratio, const Anchors& a,
             const VerdictPolicy& policy, bool at_cap, Assessment& out) {
  const std::string words = metric_words(out) + "; " + failure_words(c, ratio) +
                            (a.tail_active ? std::string("; runs beyond good's worst: ") +
                                                 (tail == Leaning::bad ? "like bad" : tail == Leaning::good ? "like good" : "unclear")
                                           : std::string());
  // A bad anchor that is only sometimes slow: good needs the tail channel cleared too, and the tail
  // channel alone can make a candidate bad where the metric does not say good.
  if (a.tail_active && metric == Leaning::good && tail != Leaning::good) {
    metric = Leaning::unknown;
  }
  if (a.tail_active && tail == Leaning::bad && (metric == Leaning::unknown || metric == Leaning::between)) {
    metric = Leaning::bad;
  }
  // Against a bad anchor whose typical run is like good's, the rank test against bad cannot agree
  // with "good"; the tail channel cleared, a candidate that sits at good and is not significantly
  // worse than good is good.
  if (a.tail_active && tail == Leaning::good && metric == Leaning::unknown && std::abs(out.position) <= policy.effect_gate &&
      out.p_vs_good > policy.alpha) {
    metric = Leaning::good;
  }
  if (failure == Leaning::bad) {
    const bool unlike_bad = metric == Leaning::good || metric == Leaning::between;
    decide(out, unlike_bad ? Verdict::intermediate : Verdict::bad, words);
  } else if (metric == Leaning::bad) {
    // The mirror: measuring like bad while failing clearly less often than bad (the likelihood ratio on
    // the anchors' cautious rates: only where bad fails more than good) is bad's slowdown without its
    // failures -- a partial cause, replicated beside fresh anchor runs (Judge) before it counts. Called
    // bad on a metric gap the anchors showed by chance, a candidate that never fails would otherwise be
    // named a second, independent cause.
    decide(out, failure == Leaning::good ? Verdict::intermediate : Verdict::bad, words);
  } else if (metric == Leaning::between) {
    decide(out, Verdict::intermediate, words);
  } else if (metric == Leaning::good) {
    // A failure only the bad anchor showed blocks "good", even where failures do not tell the anchors
    // apart; where they do, the clean runs must also be enough to clear the candidate.
    const bool cleared = c.bad_only == 0 && (!a.failure_reliable || failure == Leaning::good);
    if (cleared) {
      decide(out, Verdict::good, words);
    }
  } else if (metric == Leaning::silent && failure == Leaning::good && c.bad_only == 0 &&
             out.p_vs_good > (at_cap ? policy.alpha_intermediate : policy.alpha)) {
    // Only failures tell the anchors apart: good needs enough clean runs, none failing like bad, and a
    // metric that did not move away from good's (that would be a regression of its own). At the cap
    // the move must be clear (alpha_intermediate): a search asks about many innocent candidates, and
    // one in twenty of them measures "worse than good" at 0.05 by chance -- it then ended unstable.
    decide(out, Verdict::good, words);
  }
  if (!out.decided) {
    out.reason = "unknown: " + words;
  }
}

}  // namespace

Assessment assess(const SampleSet& candidate, const SampleSet& good, const SampleSet& bad,
                  const VerdictPolicy& policy) {
  Assessment out;
  out.checksum_mismatch = candidate.checksum_mismatch();
  const std::size_t runs = candidate.size();
  // The benchmark's own "cannot test" ends the candidate at once, as in git bisect run.
  if (candidate.any_skipped()) {
    decide(out, Verdict::skip, "the benchmark reported it cannot test this candidate (exit 125)");
    return out;
  }
  const std::vector<double> metrics = candidate.metrics();
  const Scale scale =
      all_positive(good.metrics()) && all_positive(bad.metrics()) && all_positive(metrics) ? Scale::log : Scale::linear;
  const Anchors anchors = prepare_anchors(good, bad, policy, scale);
  const FailureCounts counts = count_failures(candidate, anchors);
  out.different_failure = counts.different > 0;
  const bool enough = runs >= static_cast<std::size_t>(std::max(policy.min_runs, 1));
  // A failure neither anchor shows hides whether the regression is there: untestable.
  if (enough && 2 * counts.different > runs) {
    decide(out, Verdict::skip, "failed unlike either anchor in " + runs_of(counts.different, runs) +
                                   " runs: " + counts.first_different);
    return out;
  }
  if (!anchors.metric_reliable && !anchors.failure_reliable) {
    decide(out, Verdict::unstable, "the anchors cannot be told apart (see preflight)");
    return out;
  }
  const double ratio = failure_likelihood_ratio(counts, anchors);
  const bool at_cap = runs >= static_cast<std::size_t>(policy.max_runs);
  const bool not_good = counts.bad_only > 0 && anchors.good_failures == 0;
  const Leaning metric =
      metric_leaning(on_scale(metrics, scale), anchors, policy, at_cap, std::log(ratio), not_good, out);
  Leaning failure = failure_leaning(ratio, policy);
  if (at_cap && failure == Leaning::unknown) {
    // At the cap the cautious rates (see wilson_bound) have already been paid for with many runs: a
    // ratio of 20 either way decides rather than leaving the candidate unstable.
    failure = ratio >= 20.0 ? Leaning::bad : ratio <= 0.05 ? Leaning::good : Leaning::unknown;
  }
  if (!enough) {
    out.reason = "unknown: " + std::to_string(runs) + " of at least " + std::to_string(policy.min_runs) + " runs";
    return out;
  }
  const Leaning tail = tail_leaning(on_scale(metrics, scale), anchors, policy, at_cap);
  combine(metric, failure, tail, counts, ratio, anchors, policy, at_cap, out);
  // The regression's own failure signature, never seen from the good anchor, is evidence by itself: a
  // candidate showing it is not good. Significantly rarer than in bad makes it a partial cause; at
  // the cap, not significantly rarer makes it bad (rather than unstable, which would stall a search).
  if (!out.decided && counts.bad_only > 0 && anchors.good_failures == 0) {
    const double p = fisher_exact(counts.bad_only, counts.counted_runs, anchors.bad_failures, anchors.bad_runs);
    const std::string words = "failed like bad in " + runs_of(counts.bad_only, counts.counted_runs) +
                              " runs, never seen from good; bad failed " +
                              runs_of(anchors.bad_failures, anchors.bad_runs) +
                              " (Fisher p=" + reason_number(p) + ")";
    // Whatever the rank tests could say, a candidate whose median sits nearer bad's than good's does not
    // measure unlike bad (bad anchors that mostly crash leave too few metrics for the tests).
    const std::vector<double> scaled = on_scale(metrics, scale);
    bool nearer_bad = false;
    if (!scaled.empty() && !anchors.bad.empty() && !anchors.good.empty() && median(anchors.bad) != median(anchors.good)) {
      nearer_bad = (median(scaled) - median(anchors.good)) / (median(anchors.bad) - median(anchors.good)) > 0.5;
    }
    // Where bad gives no metric to compare with, the candidate must at least measure like good.
    const bool silent_but_moved = metric == Leaning::silent && scaled.size() >= 2 && out.p_vs_good <= policy.alpha;
    const bool measures_unlike_bad = !nearer_bad && !silent_but_moved &&
                                     (metric == Leaning::silent || metric == Leaning::good || metric == Leaning::between);
    if (p <= policy.alpha && measures_unlike_bad &&
        anchors.bad_failures * counts.counted_runs > counts.bad_only * anchors.bad_runs) {
      decide(out, Verdict::intermediate, words + ": a partial cause");
    } else if (runs >= static_cast<std::size_t>(policy.max_runs)) {
      decide(out, Verdict::bad, words);
    }
  }
  // At the cap, "still unknown" is itself the answer.
  if (!out.decided && runs >= static_cast<std::size_t>(policy.max_runs)) {
    decide(out, Verdict::unstable, "no verdict after " + std::to_string(runs) + " runs; " + out.reason.substr(9));
  }
  return out;
}

}  // namespace envbisect::stats
