#include "search/informed.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <iterator>
#include <numeric>

#include "util/error.hpp"

namespace envbisect {

namespace {

// Prior mass of a cause having 1, 2 or 3 members; larger causes fall off by k_tail per member. Causes
// of one to three interacting deltas are what regressions look like; the weights were tuned on
// bench/search (docs/PERFORMANCE.md) so that no size among 1..3 pays for another.
constexpr double k_size_weight[] = {3.0, 1.5, 1.0};
constexpr double k_tail = 0.05;

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

std::vector<std::vector<std::size_t>> threshold_splits(const std::vector<double>& weights) {
  const std::size_t count = weights.size();
  std::vector<double> before(count + 1, 0.0);
  std::partial_sum(weights.begin(), weights.end(), before.begin() + 1);
  std::vector<std::vector<double>> cost(count, std::vector<double>(count, 0.0));
  std::vector<std::vector<std::size_t>> split(count, std::vector<std::size_t>(count, 0));
  for (std::size_t length = 2; length <= count; ++length) {
    for (std::size_t a = 0; a + length <= count; ++a) {
      const std::size_t b = a + length - 1;
      double best = 0.0;
      std::size_t best_t = a;
      bool any = false;
      // Twice the distance from the middle, so that ties prefer the balanced split (plain bisection).
      auto off_centre = [&](std::size_t t) { return t * 2 + 1 > a + b ? t * 2 + 1 - (a + b) : (a + b) - (t * 2 + 1); };
      for (std::size_t t = a; t < b; ++t) {
        const double c = cost[a][t] + cost[t + 1][b];
        const double tolerance = 1e-12 * std::max(1.0, std::abs(best));
        if (!any || c < best - tolerance || (c <= best + tolerance && off_centre(t) < off_centre(best_t))) {
          best = c;
          best_t = t;
          any = true;
        }
      }
      cost[a][b] = best + (before[b + 1] - before[a]);
      split[a][b] = best_t;
    }
  }
  return split;
}

namespace {

// Prior mass of a cause of 1, 2, 3 members in the posterior search of few deltas (none for more: such
// a world leaves no hypothesis standing, and the caller falls back); tuned on bench/search.
constexpr double k_small_size_weight[] = {1.7, 1.0, 1.0};
// Weight, in bits, of a verification question a hypothesis still needs (its cause asked alone, and bad
// minus it): questions that also verify are preferred when they are nearly as informative.
constexpr double k_pending_weight = 0.5;

using Mask = std::uint64_t;

DeltaSet members(Mask mask) {
  DeltaSet out;
  for (std::size_t i = 0; mask != 0; ++i, mask >>= 1U) {
    if ((mask & 1U) != 0) {
      out.push_back(i);
    }
  }
  return out;
}

// One candidate cause still consistent with every answer, and which verifications it has had.
struct Hypothesis {
  Mask cause = 0;
  double weight = 0.0;
  bool forward_asked = false;  // the cause alone was asked
  bool reverse_asked = false;  // every delta but the cause was asked
};

// Expected questions still to come for what is left: its entropy plus the pending verifications.
struct Tally {
  double weight = 0.0;
  double weight_log = 0.0;  // sum of w * log2 w
  double pending = 0.0;     // sum of w * verifications still to ask

  void add(double w, int verifications) {
    weight += w;
    weight_log += w * std::log2(w);
    pending += w * verifications;
  }
  double cost() const {
    return weight <= 0.0 ? 0.0 : std::log2(weight) - weight_log / weight + k_pending_weight * pending / weight;
  }
};

// The posterior search over every cause of at most three members among few deltas: each question is
// the set whose answer leaves the least expected cost (entropy plus pending verifications).
std::optional<DeltaSet> posterior_cause(std::size_t delta_count, const InformedAsk& ask,
                                        const std::function<std::string(const DeltaSet&)>& name) {
  const Mask all = (Mask{1} << delta_count) - 1;
  std::vector<Hypothesis> alive;
  for (Mask cause = 1; cause <= all; ++cause) {
    const auto size = static_cast<std::size_t>(std::popcount(cause));
    if (size <= 3) {
      alive.push_back(Hypothesis{cause, k_small_size_weight[size - 1] / binomial(delta_count, size)});
    }
  }
  std::vector<Mask> asked = {0, all};
  while (alive.size() > 1) {
    Mask best_set = 0;
    double best_cost = 0.0;
    for (Mask set = 1; set < all; ++set) {
      if (std::find(asked.begin(), asked.end(), set) != asked.end()) {
        continue;
      }
      Tally bad;
      Tally good;
      for (const Hypothesis& h : alive) {
        const int pending = (h.forward_asked || set == h.cause ? 0 : 1) + (h.reverse_asked || set == (all ^ h.cause) ? 0 : 1);
        ((h.cause & set) == h.cause ? bad : good).add(h.weight, pending);
      }
      const double cost = (bad.weight * bad.cost() + good.weight * good.cost()) / (bad.weight + good.weight);
      if (best_set == 0 || cost < best_cost - 1e-12) {
        best_set = set;
        best_cost = cost;
      }
    }
    const DeltaSet applied = members(best_set);
    const InformedAnswer answer =
        ask(applied, "split the " + std::to_string(alive.size()) + " causes still possible: test " + name(applied));
    if (answer == InformedAnswer::other) {
      return std::nullopt;
    }
    asked.push_back(best_set);
    std::erase_if(alive, [&](const Hypothesis& h) { return ((h.cause & best_set) == h.cause) != (answer == InformedAnswer::bad); });
    for (Hypothesis& h : alive) {
      h.forward_asked = h.forward_asked || best_set == h.cause;
      h.reverse_asked = h.reverse_asked || best_set == (all ^ h.cause);
    }
  }
  if (alive.empty()) {
    return std::nullopt;  // no cause of three or fewer members explains the answers
  }
  // The last one standing: every smaller set inside it was outside a set measured good, so each member
  // is needed; it is the cause once it is measured bad on its own.
  const Mask cause = alive.front().cause;
  if (std::find(asked.begin(), asked.end(), cause) == asked.end() &&
      ask(members(cause), "is " + name(members(cause)) + " the cause on its own?") != InformedAnswer::bad) {
    return std::nullopt;
  }
  return members(cause);
}

}  // namespace

std::optional<DeltaSet> informed_cause(std::size_t delta_count, const InformedAsk& ask,
                                       const std::function<std::string(const DeltaSet&)>& name) {
  if (delta_count == 0 || delta_count > k_informed_max_deltas) {
    throw Error("informed search takes 1 to " + std::to_string(k_informed_max_deltas) + " deltas, not " +
                std::to_string(delta_count));
  }
  if (delta_count <= k_posterior_max_deltas) {
    return posterior_cause(delta_count, ask, name);
  }
  DeltaSet found;
  std::vector<std::size_t> window(delta_count);  // found + window is bad (measured, or the bad anchor)
  std::iota(window.begin(), window.end(), std::size_t{0});
  while (!window.empty()) {
    // The outcome is the shortest bad prefix length of the window on top of found: 0 means found alone
    // is bad (it is the cause); with nothing found, length 0 is the good anchor and cannot be it.
    const std::size_t n = window.size();
    const std::vector<std::vector<std::size_t>> split =
        threshold_splits(prefix_length_weights(delta_count, found.size(), n));
    std::size_t lo = found.empty() ? 1 : 0;
    std::size_t hi = n;
    while (lo < hi) {
      const std::size_t t = split[lo][hi];
      DeltaSet prefix(window.begin(), window.begin() + static_cast<std::ptrdiff_t>(t));
      std::sort(prefix.begin(), prefix.end());
      DeltaSet applied;
      std::set_union(found.begin(), found.end(), prefix.begin(), prefix.end(), std::back_inserter(applied));
      const std::string why = t == 0 ? "is " + name(found) + " enough on its own, without " +
                                           name(DeltaSet(window.begin(), window.end())) + "?"
                                     : "bisect the prefixes of " + name(DeltaSet(window.begin(), window.end())) +
                                           " on top of " + name(found) + ", weighted toward small causes: test " +
                                           name(prefix);
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
