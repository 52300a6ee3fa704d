#include "search/informed.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>

#include "util/error.hpp"

namespace envbisect {

namespace {

// Prior mass of a cause having 1, 2 or 3 members; larger causes fall off by k_tail per member. Causes
// of one to three interacting deltas are what regressions look like; the weights were tuned on
// bench/search (docs/PERFORMANCE.md) so that every size among 1..3 stays within 1.25 of the
// information bound at 16 and 40 deltas.
constexpr double k_size_weight[] = {4.0, 2.0, 1.0};
constexpr double k_tail = 0.05;

// Questions a whole search may take beyond the plain bisection's K*(ceil(log2 n)+1): room for the
// trees to lean toward likely causes (isolation_worst_case counts it).
constexpr std::size_t k_slack = 1;

double size_weight(std::size_t members) {
  if (members == 0) {
    return 0.0;
  }
  if (members <= 3) {
    return k_size_weight[members - 1];
  }
  return k_size_weight[2] * std::pow(k_tail, static_cast<double>(members - 3));
}

double binomial(std::size_t n, std::size_t k) {
  if (k > n) {
    return 0.0;
  }
  double out = 1.0;
  for (std::size_t i = 1; i <= k; ++i) {
    out = out * static_cast<double>(n - k + i) / static_cast<double>(i);
  }
  return out;
}

// Weight of one particular cause of `members` deltas among `delta_count`.
double cause_weight(std::size_t delta_count, std::size_t members) {
  return members > delta_count ? 0.0 : size_weight(members) / binomial(delta_count, members);
}

DeltaSet with(DeltaSet set, std::size_t member) {
  set.insert(std::upper_bound(set.begin(), set.end(), member), member);
  return set;
}

std::size_t ceil_log2(std::size_t n) {
  std::size_t out = 0;
  while ((std::size_t{1} << out) < n) {
    ++out;
  }
  return out;
}

}  // namespace

std::vector<double> prefix_length_weights(std::size_t delta_count, std::size_t found, std::size_t window) {
  std::vector<double> out(window + 1, 0.0);
  out[0] = found > 0 ? cause_weight(delta_count, found) : 0.0;
  // Length j: the last needed delta of the window is its j-th, with t-1 more among the j-1 before it.
  for (std::size_t j = 1; j <= window; ++j) {
    for (std::size_t t = 1; t <= j; ++t) {
      out[j] += binomial(j - 1, t - 1) * cause_weight(delta_count, found + t);
    }
  }
  return out;
}

ThresholdTree::ThresholdTree(const std::vector<double>& weights, std::size_t first, std::size_t zero_limit,
                             std::size_t limit)
    : m_count(weights.size()) {
  // No subtree needs to be deeper than it has outcomes.
  m_height = std::min(std::max(zero_limit, limit), m_count);
  const std::size_t levels = m_height + 1;
  constexpr double none = std::numeric_limits<double>::infinity();
  std::vector<double> before(m_count + 1, 0.0);
  std::partial_sum(weights.begin(), weights.end(), before.begin() + 1);
  auto index = [&](std::size_t a, std::size_t b, std::size_t depth) { return (a * m_count + b) * levels + depth; };
  std::vector<double> cost(m_count * m_count * levels, none);
  m_split.assign(m_count * m_count * levels, 0);
  for (std::size_t a = first; a < m_count; ++a) {
    for (std::size_t depth = 0; depth <= m_height; ++depth) {
      cost[index(a, a, depth)] = depth <= (a == 0 ? zero_limit : limit) ? 0.0 : none;
    }
  }
  for (std::size_t length = 2; first + length <= m_count; ++length) {
    for (std::size_t a = first; a + length <= m_count; ++a) {
      const std::size_t b = a + length - 1;
      // Twice the distance from the middle: ties go to the balanced split (plain bisection).
      auto off_centre = [&](std::size_t t) { return t * 2 + 1 > a + b ? t * 2 + 1 - (a + b) : (a + b) - (t * 2 + 1); };
      for (std::size_t depth = 0; depth < m_height; ++depth) {
        double best = none;
        std::size_t best_t = a + (b - a) / 2;
        for (std::size_t t = a; t < b; ++t) {
          const double c = cost[index(a, t, depth + 1)] + cost[index(t + 1, b, depth + 1)];
          if (c == none) {
            continue;  // a side of this split cannot meet its depth limits
          }
          const double tolerance = 1e-12 * std::max(1.0, std::abs(c));
          if (c < best - tolerance || (c <= best + tolerance && off_centre(t) < off_centre(best_t))) {
            best = c;
            best_t = t;
          }
        }
        cost[index(a, b, depth)] = best + (before[b + 1] - before[a]);
        m_split[index(a, b, depth)] = best_t;
      }
    }
  }
  m_infeasible = first + 1 < m_count && cost[index(first, m_count - 1, 0)] == none;
}

std::optional<DeltaSet> informed_cause(std::size_t delta_count, const InformedAsk& ask,
                                       const std::function<std::string(const DeltaSet&)>& name,
                                       const std::function<bool()>& complement_first) {
  if (delta_count == 0 || delta_count > k_informed_max_deltas) {
    throw Error("informed search takes 1 to " + std::to_string(k_informed_max_deltas) + " deltas, not " +
                std::to_string(delta_count));
  }
  // The plain bisection's worst case plus k_slack: K members within K*(depth+1)+k_slack questions. A
  // stage that finds member s may go as deep as leaves room for one more question per later stage.
  const std::size_t depth = ceil_log2(delta_count);
  std::size_t used = 0;  // questions of the stages so far, along this path (memo hits included)
  DeltaSet found;
  std::vector<std::size_t> window(delta_count);  // found + window is bad (measured, or the bad anchor)
  std::iota(window.begin(), window.end(), std::size_t{0});
  while (!window.empty()) {
    // The outcome is the shortest bad prefix length of the window on top of found: 0 means found alone
    // is bad (it is the cause); with nothing found, length 0 is the good anchor and cannot be it.
    const std::size_t n = window.size();
    const std::size_t stage = found.size() + 1;
    const std::size_t zero_limit = found.empty() ? 0 : found.size() * (depth + 1) + k_slack - used;
    const std::size_t limit = stage * (depth + 1) - 1 + k_slack - used;
    ThresholdTree tree(prefix_length_weights(delta_count, found.size(), n), found.empty() ? 1 : 0, zero_limit, limit);
    if (tree.infeasible()) {
      tree = ThresholdTree(prefix_length_weights(delta_count, found.size(), n), found.empty() ? 1 : 0, n, n);
    }
    std::size_t lo = found.empty() ? 1 : 0;
    std::size_t hi = n;
    std::size_t asked = 0;
    while (lo < hi) {
      if (found.empty() && hi == lo + 1 && complement_first && complement_first()) {
        // The first member, between lengths lo and hi: is window[lo] needed? Bad minus it being good
        // says so, and holds the shorter prefix (window[0..lo), nothing found yet) inside it. A later
        // member's "bad minus it" is no reverse check of the cause, and mostly bad. Outside the trees'
        // depth limits (and `used`): one question more at most, in all.
        const std::size_t d = window[lo];
        DeltaSet others;
        for (std::size_t i = 0; i < delta_count; ++i) {
          if (i != d) {
            others.push_back(i);
          }
        }
        const DeltaSet shorter(window.begin(), window.begin() + static_cast<std::ptrdiff_t>(lo));
        if (others != shorter) {  // with two deltas they are the same question
          if (ask(others, "is " + name(DeltaSet{d}) + " needed? bad minus it: test " + name(others)) ==
              InformedAnswer::good) {
            lo = hi;
            break;
          }
        }
      }
      const std::size_t t = tree.split(lo, hi, asked++);
      DeltaSet prefix(window.begin(), window.begin() + static_cast<std::ptrdiff_t>(t));
      DeltaSet applied;
      std::set_union(found.begin(), found.end(), prefix.begin(), prefix.end(), std::back_inserter(applied));
      const DeltaSet rest(window.begin(), window.end());
      const std::string why = t == 0 ? "is " + name(found) + " enough on its own, without " + name(rest) + "?"
                                     : "bisect the prefixes of " + name(rest) + " on top of " + name(found) +
                                           ", weighted toward small causes: test " + name(prefix);
      const InformedAnswer answer = ask(applied, why);
      if (answer == InformedAnswer::other) {
        return std::nullopt;
      }
      if (answer == InformedAnswer::bad) {
        hi = t;
      } else {
        lo = t + 1;
      }
    }
    used += asked;
    if (lo == 0) {
      break;  // found alone was measured bad: it is the whole cause
    }
    // The prefix of length lo is bad, that of length lo-1 good: its last delta is needed, and the rest
    // of the cause (if any) lies before it.
    found = with(found, window[lo - 1]);
    window.resize(lo - 1);
  }
  // Every member is needed (a prefix without it, with every other member, was good), and found was
  // measured bad: the last bad prefix, or found alone.
  return found;
}

}  // namespace envbisect
