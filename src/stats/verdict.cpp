#include "stats/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <vector>

#include "stats/density.hpp"
#include "stats/tail.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/quantity.hpp"

namespace envbisect::stats {

namespace {

// How many times more lenient than Bonferroni each preflight look of a channel may be (see
// look_alpha()): calibrated so that the looks from 5 to 20 runs (30 for failures) together spend
// preflight_alpha on identical anchors.
constexpr double k_metric_look_factor = 3.5;
constexpr double k_failure_look_factor = 9.0;

// Which anchor one channel of evidence points to.
enum class Leaning {
  good,     // like the good anchor, unlike the bad one
  bad,      // like the bad anchor, unlike the good one
  between,  // unlike both, in between: a partial cause
  unknown,  // not enough evidence yet
  silent,   // the anchors do not differ in this channel: it cannot say anything
};

// Format a number for a reason line ("0.018", "96%").
std::string num(double value, const char* format = "%.3g") {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

// Return "k of n" for a count of runs.
std::string of(std::size_t k, std::size_t n) {
  return std::to_string(k) + " of " + std::to_string(n);
}

// Return true when every value is positive, so ratios (a log scale) make sense.
bool all_positive(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return v > 0.0; });
}

// Return the values on the scale the rules compare on: log when `use_log`, else unchanged.
std::vector<double> on_scale(std::vector<double> values, bool use_log) {
  if (use_log) {
    for (double& v : values) {
      v = std::log(v);
    }
  }
  return values;
}

// Return the Wilson score bound (one standard error, `side` -1 lower, +1 upper) of a failure rate.
// The bad anchor's rate is taken at its lower bound and the good one's at its upper bound, so that
// five anchor runs, which say little about a rate, make every failure and every clean run count for
// less: 0 of 5 is "up to 17%", not "never", and 2 of 5 is "at least 22%".
double wilson_bound(std::size_t failures, std::size_t runs, double side) {
  const double n = static_cast<double>(std::max<std::size_t>(runs, 1));
  const double rate = static_cast<double>(failures) / n;
  const double spread = std::sqrt(rate * (1.0 - rate) / n + 1.0 / (4.0 * n * n));
  return (rate + 1.0 / (2.0 * n) + side * spread) / (1.0 + 1.0 / n);
}

// Return the rank-test p of "bad is worse than good" (on the comparison scale), or of "bad differs"
// with any_change.
double metric_worse_p(const std::vector<double>& good, const std::vector<double>& bad, const VerdictPolicy& policy) {
  const RankTest test = mann_whitney(bad, good);
  if (policy.any_change) {
    return test.p_two_sided;
  }
  return policy.higher_is_better ? test.p_less : test.p_greater;
}

// Return the rank-test p of "bad is better than good": a bad anchor the user probably mislabelled.
double metric_better_p(const std::vector<double>& good, const std::vector<double>& bad, const VerdictPolicy& policy) {
  const RankTest test = mann_whitney(bad, good);
  return policy.higher_is_better ? test.p_greater : test.p_less;
}

// What both anchors say, prepared once per assessment.
struct Anchors {
  std::vector<double> good, bad;     // metrics on the comparison scale
  double gap = 0.0;                  // Hodges-Lehmann shift of bad over good on that scale
  bool metric_reliable = false;      // the metric channel tells the anchors apart
  bool failure_reliable = false;     // the failure channel tells the anchors apart
  double good_rate = 0.0, bad_rate = 0.0;  // cautious failure rates, see wilson_bound()
  double good_median = 0.0;          // median good metric on the comparison scale
  std::set<std::string> good_signatures, bad_signatures;
  std::size_t good_failures = 0;     // raw counts, for the failure-signature rule
  std::size_t bad_failures = 0, bad_runs = 0;
  // The tail channel, for a bad anchor that is only sometimes slow (half its runs 3x slower, a machine
  // with two clock modes): runs beyond the worst good run are events, counted like failures.
  bool tail_active = false;          // the bad anchor is often inside good's range, yet beyond it significantly often
  double tail_threshold = 0.0;       // the worst good metric on the comparison scale
  bool tail_up = true;               // worse is larger on the comparison scale
  double tail_good_rate = 0.0, tail_bad_rate = 0.0;  // cautious event rates, see wilson_bound()
  double bandwidth = 0.0;            // kernel width of the likelihood channel; 0: channel off
};

// Return the anchors prepared for comparison; `use_log` picks the scale.
Anchors prepare(const SampleSet& good, const SampleSet& bad, const VerdictPolicy& policy,
                bool use_log) {
  Anchors a;
  a.good = on_scale(good.metrics(), use_log);
  a.bad = on_scale(bad.metrics(), use_log);
  a.gap = hodges_lehmann_shift(a.bad, a.good);
  const std::size_t looked = std::min(good.size(), bad.size());
  a.good_median = median(a.good);
  // The channels count only in the direction the user called bad (any direction with any_change), at
  // the level the preflight tested them.
  const double level = look_alpha(policy, Channel::metric, looked);
  a.metric_reliable = a.gap != 0.0 && (metric_worse_p(a.good, a.bad, policy) <= level ||
                                       tail_worse_p(a.good, a.bad, policy, use_log) <= level);
  a.failure_reliable = fisher_fewer(good.failure_count(), good.size(), bad.failure_count(), bad.size()) <=
                       look_alpha(policy, Channel::failure, looked);
  a.good_failures = good.failure_count();
  a.bad_failures = bad.failure_count();
  a.bad_runs = bad.size();
  a.good_rate = wilson_bound(good.failure_count(), good.size(), +1.0);
  a.bad_rate = std::max(a.good_rate, wilson_bound(bad.failure_count(), bad.size(), -1.0));
  if (a.metric_reliable && !a.good.empty() && !a.bad.empty()) {
    // The threshold is three robust spreads of good's beyond its median, so good's own slow outliers
    // neither move it nor hide the channel; good's runs beyond it, and one more for caution, set good's
    // event rate.
    a.tail_up = a.gap > 0.0;
    const double reach = 3.0 * std::max(robust_sd(a.good), std::abs(a.gap) / 20.0);
    a.tail_threshold = a.good_median + (a.tail_up ? reach : -reach);
    const std::size_t events = beyond(a.bad, a.tail_threshold, a.tail_up);
    // Active when bad has two modes: a tenth of its runs or more inside good's reach, a tenth or more
    // twice as far out, and few in between (a plain shift, however noisy, leaves no such gap). There the
    // median and the likelihood of a few runs cannot see the regression, so good must clear this channel too.
    const double far = a.good_median + (a.tail_up ? 2.0 * reach : -2.0 * reach);
    const std::size_t far_runs = beyond(a.bad, far, a.tail_up);
    const std::size_t inside = a.bad.size() - events;
    a.tail_active = 10 * inside >= a.bad.size() && 10 * far_runs >= a.bad.size() &&
                    10 * (inside + far_runs) >= 8 * a.bad.size();
    // Good's rate as a Laplace estimate ((events + 1) / (runs + 2)), bad's at its cautious lower bound:
    // overrating bad's rate is what makes a few clean runs clear a cause; cautious bounds on both
    // sides made a clean run worth so little that an innocent candidate stayed unstable at the cap.
    const double good_events = static_cast<double>(beyond(a.good, a.tail_threshold, a.tail_up));
    a.tail_good_rate = (good_events + 1.0) / (static_cast<double>(a.good.size()) + 2.0);
    a.tail_bad_rate = std::max(a.tail_good_rate, wilson_bound(events, a.bad.size(), -1.0));
  }
  if (a.metric_reliable && a.good.size() >= 3 && a.bad.size() >= 3) {
    a.bandwidth = kernel_width(a.good, a.bad);
  }
  for (const std::string& s : good.failure_signatures()) {
    a.good_signatures.insert(s);
  }
  for (const std::string& s : bad.failure_signatures()) {
    a.bad_signatures.insert(s);
  }
  return a;
}

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
  const double k = static_cast<double>(beyond(c, a.tail_threshold, a.tail_up));
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

// Return where the metrics point, and fill the assessment's p-values and position. The anchors fix
// the direction of the regression, so the exact rank tests are one-sided: "worse than good" and
// "better than bad". With densities for both anchors (three runs each or more), good and bad are
// decided by the likelihood of the candidate's runs, a sequential test that stops as soon as the runs
// point one way (see log_likelihood_ratio); the rank test against the other anchor must agree.
// Without them, good needs "better than bad" and the Hodges-Lehmann position within the effect gate
// of good, bad needs "worse than good" and even the candidate's better runs within the gate of bad.
// Intermediate needs both rank tests to reject at the stricter level, in between, and replication:
// twice the first runs, since a few runs between two few-run anchors reach that level by chance.
Leaning metric_leaning(const std::vector<double>& c, const Anchors& a, const VerdictPolicy& policy, bool at_cap,
                       Assessment& out) {
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
    if (llr >= bound && out.p_vs_good <= policy.alpha &&
        log_likelihood_ratio(c, a.bad, 0.0, a.good, half, w) >= half_bound) {
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
  return "metric at " + num(100.0 * a.position, "%.0f") + "% of the way from good to bad (p vs good " +
         num(a.p_vs_good) + ", p vs bad " + num(a.p_vs_bad) + ")";
}

// Return the failure part of a reason line.
std::string failure_words(const FailureCounts& c, double ratio) {
  return "failed like an anchor in " + of(c.failures, c.counted_runs) + " runs (likelihood ratio bad:good " +
         num(ratio) + ")";
}

// Set the verdict of a decided assessment.
void decide(Assessment& out, Verdict verdict, std::string reason) {
  out.decided = true;
  out.verdict = verdict;
  out.reason = std::string(to_string(verdict)) + ": " + std::move(reason);
}

// Combine the two channels into a verdict, or leave `out` undecided. A channel that points to bad
// wins over one that points to good, except that failing like bad while measuring unlike bad is a
// partial cause; "good" needs every channel the anchors differ in to be cleared.
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
    decide(out, Verdict::bad, words);
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

double look_alpha(const VerdictPolicy& policy, Channel channel, std::size_t runs) {
  const int first = std::max(policy.anchor_runs, 1);
  const int cap = std::max(first, channel == Channel::metric
                                      ? policy.max_anchor_runs
                                      : std::max(policy.max_anchor_runs, policy.max_failure_anchor_runs));
  // The looks share most of their runs, so their false alarms coincide: Bonferroni over the looks
  // spent about a third of the level on identical anchors (metric: 1.5 % of 5 %; failures: 0.5-1.5 %).
  // Simulating the null (identical anchors through preflight(): rank and tail tests, failure rates
  // 10-50 %; the unit test "preflight's looks together spend about its level on identical anchors"
  // replays it) gave the number of looks that count as independent for 5..20 runs (30 for
  // failures): the looks divided by these factors. At the default 5..40 the same factors spend
  // about 1 % on identical anchors: a level nearer 5 % there (1 + 2.58 ln(cap / first) independent
  // looks) measured worse on bench/verdicts (right_rate 0.9894 against 0.9912, crash-only 926 against
  // 968 of 1000), so the stricter level stays (docs/PERFORMANCE.md).
  (void)runs;
  const double factor = channel == Channel::metric ? k_metric_look_factor : k_failure_look_factor;
  const int looks = cap - first + 1;
  // Every look at the same level (Pocock): a level that dropped at a later look turned anchors told
  // apart early indistinguishable again once the search gave them more runs, and every verdict after
  // that unstable. Never more lenient than one look at the whole level.
  return policy.preflight_alpha / std::max(1.0, static_cast<double>(looks) / factor);
}

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
  const bool use_log = all_positive(good.metrics()) && all_positive(bad.metrics()) && all_positive(metrics);
  const Anchors anchors = prepare(good, bad, policy, use_log);
  const FailureCounts counts = count_failures(candidate, anchors);
  out.different_failure = counts.different > 0;
  const bool enough = runs >= static_cast<std::size_t>(std::max(policy.min_runs, 1));
  // A failure neither anchor shows hides whether the regression is there: untestable.
  if (enough && 2 * counts.different > runs) {
    decide(out, Verdict::skip, "failed unlike either anchor in " + of(counts.different, runs) +
                                   " runs: " + counts.first_different);
    return out;
  }
  if (!anchors.metric_reliable && !anchors.failure_reliable) {
    decide(out, Verdict::unstable, "the anchors cannot be told apart (see preflight)");
    return out;
  }
  const double ratio = failure_likelihood_ratio(counts, anchors);
  const bool at_cap = runs >= static_cast<std::size_t>(policy.max_runs);
  const Leaning metric = metric_leaning(on_scale(metrics, use_log), anchors, policy, at_cap, out);
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
  const Leaning tail = tail_leaning(on_scale(metrics, use_log), anchors, policy, at_cap);
  combine(metric, failure, tail, counts, ratio, anchors, policy, at_cap, out);
  // The regression's own failure signature, never seen from the good anchor, is evidence by itself: a
  // candidate showing it is not good. Significantly rarer than in bad makes it a partial cause; at
  // the cap, not significantly rarer makes it bad (rather than unstable, which would stall a search).
  if (!out.decided && counts.bad_only > 0 && anchors.good_failures == 0) {
    const double p = fisher_exact(counts.bad_only, counts.counted_runs, anchors.bad_failures, anchors.bad_runs);
    const std::string words = "failed like bad in " + of(counts.bad_only, counts.counted_runs) +
                              " runs, never seen from good; bad failed " + of(anchors.bad_failures, anchors.bad_runs) +
                              " (Fisher p=" + num(p) + ")";
    // Whatever the rank tests could say, a candidate whose median sits nearer bad's than good's does not
    // measure unlike bad (bad anchors that mostly crash leave too few metrics for the tests).
    const std::vector<double> scaled = on_scale(metrics, use_log);
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

namespace {

// Return one anchor's summary for the preflight message.
std::string anchor_words(const char* name, const SampleSet& set, double med, double cv, const std::string& unit) {
  std::string words = std::string(name) + ": ";
  if (set.metrics().empty()) {
    words += "no run produced a metric";
  } else {
    words += "median " + human_number(med) + (unit.empty() ? "" : " " + unit) + ", CV " + num(100.0 * cv, "%.1f") + "%";
  }
  words += ", failed " + of(set.failure_count(), set.size());
  const std::vector<std::string> signatures = set.failure_signatures();
  if (!signatures.empty()) {
    words += " (" + signatures.front() + (signatures.size() > 1 ? ", ..." : "") + ")";
  }
  return words;
}

// Return 2 / C(2n, n): the smallest two-sided rank-test p that n runs per anchor can give.
double smallest_p(std::size_t n) {
  double arrangements = 1.0;
  for (std::size_t i = 1; i <= n; ++i) {
    arrangements = arrangements * static_cast<double>(n + i) / static_cast<double>(i);
  }
  return 2.0 / arrangements;
}

// Return the number of clean runs after which failures alone clear a candidate as good, or 0
// when clean runs carry no evidence.
int runs_to_clear(const Anchors& a, const VerdictPolicy& policy) {
  const double per_run = (1.0 - a.bad_rate) / (1.0 - a.good_rate);
  if (per_run >= 1.0) {
    return 0;
  }
  return static_cast<int>(std::ceil(std::log(policy.failure_alpha) / std::log(per_run)));
}

// Return the advice printed when the anchors cannot be told apart after `runs` runs of each: never a
// budget already spent.
std::string advice(const Preflight& p, std::size_t runs) {
  std::string words = "cannot tell good from bad: rank test p=" + num(p.metric_p) + ", failure test p=" +
                      num(p.failure_p) + " (need <= " + num(p.look_alpha) + " one-sided at this look). Try: ";
  // With very few anchor runs no outcome can reach the level.
  const std::size_t n = std::max<std::size_t>(runs, 1);
  if (smallest_p(n) / 2.0 > p.look_alpha) {
    words += "more anchor runs (" + std::to_string(n) + " each can never reach the level); ";
  }
  words += "more runs of each anchor (--anchor-runs " + std::to_string(2 * n) + ", after " + std::to_string(n) +
           " each here), a longer benchmark (less noise";
  words += p.good_cv > 0.0 ? ", good CV " + num(100.0 * p.good_cv, "%.1f") + "%" : "";
  words += "), or check that the bad state really differs";
  return words;
}

}  // namespace

Preflight preflight(const SampleSet& good, const SampleSet& bad, const VerdictPolicy& policy) {
  Preflight p;
  const std::vector<double> g = good.metrics(), b = bad.metrics();
  p.good_median = median(g);
  p.bad_median = median(b);
  p.good_cv = coefficient_of_variation(g);
  p.bad_cv = coefficient_of_variation(b);
  p.good_fail_rate = good.failure_rate();
  p.bad_fail_rate = bad.failure_rate();
  // Effect as "times worse": > 1 when bad is slower (or lower throughput) than good.
  if (p.good_median > 0.0 && p.bad_median > 0.0) {
    p.effect = policy.higher_is_better ? p.good_median / p.bad_median : p.bad_median / p.good_median;
  }
  const bool use_log = all_positive(g) && all_positive(b);
  const Anchors a = prepare(good, bad, policy, use_log);
  p.metric_p = metric_worse_p(a.good, a.bad, policy);
  p.tail_p = tail_worse_p(a.good, a.bad, policy, use_log);
  p.failure_p = fisher_fewer(good.failure_count(), good.size(), bad.failure_count(), bad.size());
  p.look_alpha = look_alpha(policy, Channel::metric, std::min(good.size(), bad.size()));
  p.by_metric = a.metric_reliable;
  p.by_failure = a.failure_reliable;
  p.checksum_mismatch = good.checksum_mismatch() || bad.checksum_mismatch();
  const bool skipped = good.any_skipped() || bad.any_skipped();
  // A bad anchor that measures better than good is most likely mislabelled: stop unless asked not to.
  p.bad_is_better = !policy.any_change && !p.by_failure && !a.good.empty() && !a.bad.empty() &&
                    metric_better_p(a.good, a.bad, policy) <= p.look_alpha;
  p.distinguishable = (p.by_metric || p.by_failure) && !skipped && !p.bad_is_better;
  const std::size_t fewest = std::min(good.size(), bad.size());
  // The failure channel may extend the anchors on its own while bad fails more often than good.
  const bool failures_lean_bad = bad.failure_rate() > good.failure_rate();
  const int cap = failures_lean_bad ? std::max(policy.max_anchor_runs, policy.max_failure_anchor_runs)
                                    : policy.max_anchor_runs;
  p.more_runs_would_help = !p.distinguishable && !skipped && !p.bad_is_better && fewest < static_cast<std::size_t>(cap);

  p.message = anchor_words("good", good, p.good_median, p.good_cv, policy.unit) + "; " +
              anchor_words("bad", bad, p.bad_median, p.bad_cv, policy.unit);
  if (p.effect > 0.0) {
    // The factor is never below 1x: "bad is 1.96x better", not "0.51x better (!)".
    p.message += "; bad is " + comparison_words(p.good_median, p.bad_median, policy.higher_is_better, "");
  }
  if (skipped) {
    p.message += ". An anchor run exited 125 (skip): the benchmark cannot test an anchor";
  } else if (p.bad_is_better) {
    p.message += ". The bad anchor measures better than good (rank test p=" + num(metric_better_p(a.good, a.bad, policy)) +
                 "): check which state is bad and the recipe's direction, or pass --any-change to bisect any change";
  } else if (p.distinguishable) {
    p.message += std::string(". Distinguishable by ") +
                 (p.by_metric && p.by_failure ? "metric and failures" : p.by_metric ? "metric" : "failures") +
                 " (rank test p=" + num(p.metric_p) +
                 (p.tail_p < p.metric_p ? ", runs beyond the anchors' common reach p=" + num(p.tail_p) : std::string()) +
                 ", failure test p=" + num(p.failure_p) + ", this look at " +
                 num(p.look_alpha) + ")";
  } else {
    p.message += ". " + advice(p, fewest);
  }
  if (p.distinguishable) {
    const double spread = std::max(std::min(robust_sd(a.good), robust_sd(a.bad)), 1e-12);
    const bool close = !p.by_metric || a.tail_active || std::abs(a.gap) < 5.0 * spread;
    p.anchor_runs_wanted = static_cast<int>(fewest);
    if (close) {
      p.anchor_runs_wanted = std::max(p.anchor_runs_wanted, std::min(2 * policy.anchor_runs, policy.max_anchor_runs));
    }
    if (a.tail_active) {
      // A bad anchor slow in only some runs: the tail channel weighs a candidate's runs by both anchors'
      // rates of runs beyond good's reach, and the re-check before reporting tests the anchors again;
      // both need the anchors' full runs, so they get them before the search.
      p.anchor_runs_wanted = std::max(p.anchor_runs_wanted, policy.max_anchor_runs);
    }
  }
  // Failures alone can call a candidate good only after enough clean runs; say so if the cap is lower.
  const int clear = runs_to_clear(a, policy);
  if (p.distinguishable && !p.by_metric && clear > policy.max_runs) {
    p.message += ". Only failures tell the anchors apart: calling a candidate good needs " + std::to_string(clear) +
                 " clean runs, more than --max-runs " + std::to_string(policy.max_runs);
  }
  if (p.checksum_mismatch) {
    p.message += ". Warning: an anchor's fixed-seed checksum varied between runs (nondeterminism)";
  }
  return p;
}

}  // namespace envbisect::stats
