#include "stats/rate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace envbisect::stats {

namespace {

// Return P(X <= k) for X ~ Binomial(n, p), summed in log space.
double binomial_cdf(std::size_t k, std::size_t n, double p) {
  if (p <= 0.0) {
    return 1.0;
  }
  if (p >= 1.0) {
    return k >= n ? 1.0 : 0.0;
  }
  double total = 0.0;
  const double lp = std::log(p), lq = std::log1p(-p);
  for (std::size_t i = 0; i <= std::min(k, n); ++i) {
    const double log_choose = std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(i) + 1) -
                              std::lgamma(static_cast<double>(n - i) + 1);
    total += std::exp(log_choose + static_cast<double>(i) * lp + static_cast<double>(n - i) * lq);
  }
  return std::min(total, 1.0);
}

// Return the p at which `tail(p)` crosses `target`, `tail` decreasing in p on [0, 1] (bisection).
template <typename Tail>
double solve_decreasing(Tail tail, double target) {
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2.0;
    if (tail(mid) > target) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return (lo + hi) / 2.0;
}

}  // namespace

RateInterval rate_interval(std::size_t failures, std::size_t runs, double confidence) {
  RateInterval out;
  out.failures = failures;
  out.runs = runs;
  if (runs == 0) {
    return out;
  }
  const double tail = (1.0 - confidence) / 2.0;
  out.rate = static_cast<double>(failures) / static_cast<double>(runs);
  // Lower end: the p at which k or more failures have probability tail; upper: k or fewer.
  out.low = failures == 0 ? 0.0 : solve_decreasing([&](double p) { return binomial_cdf(failures - 1, runs, p); }, 1.0 - tail);
  out.high = failures >= runs ? 1.0 : solve_decreasing([&](double p) { return binomial_cdf(failures, runs, p); }, tail);
  return out;
}

std::string rate_words(const RateInterval& interval) {
  char text[128];
  std::snprintf(text, sizeof text, "fails %zu of %zu, %.0f %%, 95 %% CI %.0f\xE2\x80\x93%.0f %%", interval.failures,
                interval.runs, 100.0 * interval.rate, 100.0 * interval.low, 100.0 * interval.high);
  return text;
}

double more_failures_p(std::size_t failures, std::size_t runs, double p) {
  if (failures == 0) {
    return 1.0;
  }
  if (failures > runs) {
    return 0.0;
  }
  return std::max(0.0, 1.0 - binomial_cdf(failures - 1, runs, p));
}

RateCall sprt_rate(std::size_t failures, std::size_t runs, double p_low, double p_high, double alpha, double beta) {
  const double k = static_cast<double>(failures);
  const double clean = static_cast<double>(runs - std::min(failures, runs));
  const double llr = k * std::log(p_high / p_low) + clean * std::log((1.0 - p_high) / (1.0 - p_low));
  if (llr >= std::log((1.0 - beta) / alpha)) {
    return RateCall::high;
  }
  if (llr <= std::log(beta / (1.0 - alpha))) {
    return RateCall::low;
  }
  return RateCall::undecided;
}

namespace {

// The hypotheses from the anchors' counts, without the bar's floor: p_low from good, p_high half of bad.
RateHypotheses anchor_hypotheses(std::size_t good_failures, std::size_t good_runs, std::size_t bad_failures,
                                 std::size_t bad_runs) {
  RateHypotheses out;
  if (good_runs == 0 || bad_runs == 0) {
    return out;
  }
  out.p_low = (static_cast<double>(good_failures) + 0.5) / (static_cast<double>(good_runs) + 1.0);
  const double bad = (static_cast<double>(bad_failures) + 0.5) / (static_cast<double>(bad_runs) + 1.0);
  out.p_high = std::min(0.95, std::max(bad / 2.0, 2.0 * out.p_low));
  out.usable = out.p_high < bad + 1e-12 && out.p_high > out.p_low;
  return out;
}

}  // namespace

RateHypotheses rate_hypotheses(std::size_t good_failures, std::size_t good_runs, std::size_t bad_failures,
                               std::size_t bad_runs) {
  RateHypotheses out = anchor_hypotheses(good_failures, good_runs, bad_failures, bad_runs);
  if (good_runs > 0 && bad_runs > 0) {
    out.p_high_floor = std::min(out.p_high, rate_interval(bad_failures, bad_runs, 0.80).low / 2.0);
  }
  return out;
}

RateHypotheses part_hypotheses(std::size_t good_failures, std::size_t good_runs, std::size_t bad_failures,
                               std::size_t bad_runs) {
  // A part's bar already stands on the low end of bad's rate: no floor (0), so its ruling stays open to
  // the bad anchor's next runs.
  RateHypotheses out = anchor_hypotheses(good_failures, good_runs, bad_failures, bad_runs);
  if (!out.usable) {
    return out;
  }
  const double low_bad = rate_interval(bad_failures, bad_runs, 0.80).low;
  out.p_high = std::min(out.p_high, low_bad / 4.0);
  out.usable = out.p_high > out.p_low;
  return out;
}

namespace {

RateRuling ruling_now(std::size_t failures, std::size_t runs, const RateHypotheses& h, std::size_t good_runs,
                      std::size_t bad_runs, double alpha_high, double alpha_low) {
  RateRuling out;
  if (!h.usable) {
    return out;
  }
  out.call = sprt_rate(failures, runs, h.p_low, h.p_high, alpha_high, alpha_low);
  out.between_rates = out.call != RateCall::high && more_failures_p(failures, runs, h.p_low) < alpha_high;
  // Would a bar at the low end of the bad anchor's plausible rates call otherwise?
  const bool bar_open = !(h.p_high_floor > h.p_low) ||
                        sprt_rate(failures, runs, h.p_low, h.p_high_floor, alpha_high, alpha_low) != out.call;
  out.bar_short = (out.between_rates || (out.call == RateCall::low && failures > 0)) && bad_runs < runs && bar_open;
  out.good_short = out.call == RateCall::low && failures > 0 && good_runs < runs;
  if (out.between_rates || out.bar_short || out.good_short) {
    out.call = RateCall::undecided;
  }
  return out;
}

}  // namespace

RateRuling rate_ruling(std::size_t failures, std::size_t runs, const RateHypotheses& h, std::size_t good_runs,
                       std::size_t bad_runs, double alpha_high, double alpha_low) {
  RateRuling out = ruling_now(failures, runs, h, good_runs, bad_runs, alpha_high, alpha_low);
  if (out.bar_short || out.good_short) {
    // An anchor's top-up only keeps a call from resting on its few runs. Where the candidate's next run,
    // failing or passing, leaves no anchor short, that run settles the question the top-up would ask.
    const auto settles = [&](std::size_t failed) {
      const RateRuling next = ruling_now(failed, runs + 1, h, good_runs, bad_runs, alpha_high, alpha_low);
      return !next.bar_short && !next.good_short;
    };
    out.next_run_first = settles(failures + 1) && settles(failures);
  }
  return out;
}

TopUp anchor_to_top_up(const RateRuling& ruling) {
  if (ruling.next_run_first) {
    return TopUp::none;
  }
  if (ruling.good_short) {
    return TopUp::good;
  }
  return ruling.bar_short ? TopUp::bad : TopUp::none;
}

int passes_to_clear_part(std::size_t good_failures, std::size_t good_runs, std::size_t bad_failures,
                         std::size_t bad_runs, double level, int floor) {
  const RateHypotheses h = part_hypotheses(good_failures, good_runs, bad_failures, bad_runs);
  if (!h.usable) {
    return floor;
  }
  return std::max(floor, static_cast<int>(std::ceil(std::log(level) / std::log(1.0 - h.p_high))));
}

}  // namespace envbisect::stats
