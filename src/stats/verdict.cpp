#include "stats/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <vector>

#include "stats/mann_whitney.hpp"

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
};

// Return the anchors prepared for comparison; `use_log` picks the scale.
Anchors prepare(const SampleSet& good, const SampleSet& bad, const VerdictPolicy& policy,
                bool use_log) {
  Anchors a;
  a.good = on_scale(good.metrics(), use_log);
  a.bad = on_scale(bad.metrics(), use_log);
  a.gap = hodges_lehmann_shift(a.bad, a.good);
  a.good_median = median(a.good);
  a.metric_reliable = a.gap != 0.0 && mann_whitney(a.good, a.bad).p_two_sided <= policy.preflight_alpha;
  a.failure_reliable = fisher_exact(good.failure_count(), good.size(), bad.failure_count(),
                                    bad.size()) <= policy.preflight_alpha;
  a.good_failures = good.failure_count();
  a.bad_failures = bad.failure_count();
  a.bad_runs = bad.size();
  a.good_rate = wilson_bound(good.failure_count(), good.size(), +1.0);
  a.bad_rate = std::max(a.good_rate, wilson_bound(bad.failure_count(), bad.size(), -1.0));
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
// "better than bad". Good needs the second to reject and the Hodges-Lehmann position within the
// effect gate of good; bad needs the first to reject and even the candidate's better runs within the
// gate of bad; intermediate needs both to reject at the stricter level, in between.
Leaning metric_leaning(const std::vector<double>& c, const Anchors& a, const VerdictPolicy& policy,
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
  if (out.p_vs_good <= policy.alpha && robust_low_position(c, a) >= 1.0 - gate) {
    return Leaning::bad;
  }
  if (out.p_vs_bad <= policy.alpha && out.position <= gate) {
    return Leaning::good;
  }
  const bool both = out.p_vs_good <= policy.alpha_intermediate && out.p_vs_bad <= policy.alpha_intermediate;
  if (both && out.position > gate && out.position < 1.0 - gate) {
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
void combine(Leaning metric, Leaning failure, const FailureCounts& c, double ratio, const Anchors& a,
             const VerdictPolicy& policy, Assessment& out) {
  const std::string words = metric_words(out) + "; " + failure_words(c, ratio);
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
             out.p_vs_good > policy.alpha) {
    // Only failures tell the anchors apart: good needs enough clean runs, none failing like bad, and a
    // metric that did not move away from good's (that would be a regression of its own).
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
  const Leaning metric = metric_leaning(on_scale(metrics, use_log), anchors, policy, out);
  const Leaning failure = failure_leaning(ratio, policy);
  if (!enough) {
    out.reason = "unknown: " + std::to_string(runs) + " of at least " + std::to_string(policy.min_runs) + " runs";
    return out;
  }
  combine(metric, failure, counts, ratio, anchors, policy, out);
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
std::string anchor_words(const char* name, const SampleSet& set, double med, double cv) {
  std::string words = std::string(name) + ": ";
  if (set.metrics().empty()) {
    words += "no run produced a metric";
  } else {
    words += "median " + num(med, "%.4g") + ", CV " + num(100.0 * cv, "%.1f") + "%";
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

// Return the advice printed when the anchors cannot be told apart.
std::string advice(const Preflight& p, const VerdictPolicy& policy) {
  std::string words = "cannot tell good from bad: rank test p=" + num(p.metric_p) + ", failure test p=" +
                      num(p.failure_p) + " (need <= " + num(policy.preflight_alpha) + "). Try: ";
  // With very few anchor runs no outcome can reach the level.
  const std::size_t n = static_cast<std::size_t>(std::max(policy.anchor_runs, 1));
  if (smallest_p(n) > policy.preflight_alpha) {
    words += "more anchor runs (" + std::to_string(n) + " each can never reach the level); ";
  }
  words += "more repeats (--anchor-runs " + std::to_string(2 * n) + "), a longer benchmark (less noise";
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
  p.metric_p = mann_whitney(a.good, a.bad).p_two_sided;
  p.failure_p = fisher_exact(good.failure_count(), good.size(), bad.failure_count(), bad.size());
  p.by_metric = a.metric_reliable;
  p.by_failure = a.failure_reliable;
  p.checksum_mismatch = good.checksum_mismatch() || bad.checksum_mismatch();
  const bool skipped = good.any_skipped() || bad.any_skipped();
  p.distinguishable = (p.by_metric || p.by_failure) && !skipped;
  const std::size_t fewest = std::min(good.size(), bad.size());
  p.more_runs_would_help = !p.distinguishable && !skipped && fewest < static_cast<std::size_t>(policy.max_anchor_runs);

  p.message = anchor_words("good", good, p.good_median, p.good_cv) + "; " +
              anchor_words("bad", bad, p.bad_median, p.bad_cv);
  if (p.effect > 0.0) {
    p.message += "; bad is " + num(p.effect, "%.2f") + "x " + (p.effect >= 1.0 ? "worse" : "better (!)");
  }
  if (skipped) {
    p.message += ". An anchor run exited 125 (skip): the benchmark cannot test an anchor";
  } else if (p.distinguishable) {
    p.message += std::string(". Distinguishable by ") +
                 (p.by_metric && p.by_failure ? "metric and failures" : p.by_metric ? "metric" : "failures") +
                 " (rank test p=" + num(p.metric_p) + ", failure test p=" + num(p.failure_p) + ")";
  } else {
    p.message += ". " + advice(p, policy);
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
