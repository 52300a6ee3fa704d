// What any isolation strategy can reach: the exact optimal decision tree for finding and verifying a
// cause of 1..K_max interacting deltas among D, under "bad iff every member of the cause is applied".
//
//   bench_optimal_tree tree D L1 L2 L3     the tree minimising L1*mean(1) + L2*mean(2) + L3*mean(3), where
//       mean(k) is the mean number of questions over every placement of a k-member cause (as
//       bench_search sets counts them for isolate()); prints each row's mean and worst, the row
//       against the information bound ceil(log2 C(D, k)) + 1, and the weighted optimum.
//   bench_optimal_tree check D             the same optimum from the fast solver (symmetry, bounds) and
//       from a plain exhaustive one, for several weightings; exit 1 when they differ.
//
// The questions are what isolate() asks: "is this subset of the deltas, applied on top of good, bad?".
// The anchors are known (none applied: good; all: bad) and cost nothing. A search ends when one cause
// is left that agrees with every answer AND it has been verified both ways, as envbisect requires: the
// cause alone was asked (bad) and everything but the cause was asked (good). Both are literal
// questions; a search may ask them at any time, and they count like any other.
//
// The solver: states are (causes still possible S, those of them already asked alone A, those whose
// complement was already asked R); a question's value is its weight plus both answers' values. Exact
// memoised search, bounded below by Kraft's inequality over S (every cause ends at its own leaf, at a
// depth of at least its missing verifications and at least 1), states reduced under permutations of
// the deltas, and the questions reduced to subsets of the union of S (the others split S the same
// way) plus the complement questions that also verify. The walk re-derives every path from the
// solved values and checks it independently: the answers leave exactly the true cause, which was
// asked alone and by complement.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

__extension__ typedef unsigned __int128 Bits;  // one bit per possible cause (at most 128)

int popcount(Bits bits) {
  return __builtin_popcountll(static_cast<std::uint64_t>(bits)) +
         __builtin_popcountll(static_cast<std::uint64_t>(bits >> 64));
}

int lowest(Bits bits) {
  const auto low = static_cast<std::uint64_t>(bits);
  return low != 0 ? __builtin_ctzll(low) : 64 + __builtin_ctzll(static_cast<std::uint64_t>(bits >> 64));
}

Bits bit(int index) { return Bits{1} << index; }

double binomial(int n, int k) {
  double out = 1.0;
  for (int i = 1; i <= k; ++i) {
    out = out * (n - k + i) / i;
  }
  return out;
}

struct State {
  Bits s = 0;  // causes that agree with every answer so far
  Bits a = 0;  // of those, the ones asked alone (answer bad)
  Bits r = 0;  // of those, the ones whose complement was asked (answer good)
  bool operator==(const State& other) const { return s == other.s && a == other.a && r == other.r; }
  bool operator<(const State& other) const {
    if (s != other.s) {
      return s < other.s;
    }
    if (a != other.a) {
      return a < other.a;
    }
    return r < other.r;
  }
};

struct StateHash {
  std::size_t operator()(const State& state) const {
    auto mix = [](Bits bits, std::uint64_t k1, std::uint64_t k2) {
      return static_cast<std::uint64_t>(bits) * k1 ^ static_cast<std::uint64_t>(bits >> 64) * k2;
    };
    std::uint64_t h = mix(state.s, 0x9E3779B97F4A7C15ULL, 0xC2B2AE3D27D4EB4FULL) ^
                      mix(state.a, 0x165667B19E3779F9ULL, 0x27D4EB2F165667C5ULL) ^
                      mix(state.r, 0xD6E8FEB86659FD93ULL, 0xFF51AFD7ED558CCDULL);
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

// One question and the states its two answers lead to.
struct Question {
  int set = 0;  // the deltas applied, as a bit mask
  State bad;
  State good;
  double bound = 0.0;
};

class Problem {
 public:
  Problem(int deltas, int max_size, std::array<double, 4> row_weight) : d_(deltas), full_((1 << deltas) - 1) {
    index_.assign(static_cast<std::size_t>(1) << deltas, -1);
    for (int mask = 1; mask <= full_; ++mask) {
      const int size = __builtin_popcount(static_cast<unsigned>(mask));
      if (size <= max_size) {
        index_[static_cast<std::size_t>(mask)] = static_cast<int>(cause_.size());
        cause_.push_back(mask);
        weight_.push_back(row_weight[static_cast<std::size_t>(size)] / binomial(deltas, size));
      }
    }
    if (cause_.size() > 128) {
      std::fprintf(stderr, "at most 128 possible causes (D = %d, sizes up to %d gives %zu)\n", deltas, max_size,
                   cause_.size());
      std::exit(2);
    }
    covered_.assign(static_cast<std::size_t>(1) << deltas, 0);
    for (int set = 0; set <= full_; ++set) {
      for (std::size_t i = 0; i < cause_.size(); ++i) {
        if ((cause_[i] & set) == cause_[i]) {
          covered_[static_cast<std::size_t>(set)] |= bit(static_cast<int>(i));
        }
      }
    }
    for (std::size_t i = 0; i < cause_.size(); ++i) {
      by_size_[static_cast<std::size_t>(__builtin_popcount(static_cast<unsigned>(cause_[i])))] |=
          bit(static_cast<int>(i));
    }
  }

  int full() const { return full_; }
  const std::vector<int>& causes() const { return cause_; }
  State root() const {
    State state;
    for (std::size_t i = 0; i < cause_.size(); ++i) {
      state.s |= bit(static_cast<int>(i));
    }
    return state;
  }

  double weight(Bits bits) const {
    double total = 0.0;
    while (bits != 0) {
      total += weight_[static_cast<std::size_t>(lowest(bits))];
      bits &= bits - 1;
    }
    return total;
  }

  // A single cause left: what is still owed is its missing verification questions.
  double leaf(const State& state) const {
    return weight(state.s) * (((state.a & state.s) != 0 ? 0 : 1) + ((state.r & state.s) != 0 ? 0 : 1));
  }

  // Every question worth asking in `state`, with the states its answers lead to. `reduced` limits them
  // to subsets of the union of the possible causes (plus complement questions that verify a cause);
  // otherwise every subset of the deltas is offered (the plain solver, to check the reduction).
  std::vector<Question> questions(const State& state, bool reduced) const {
    std::vector<Question> out;
    int union_mask = 0;
    for (Bits s = state.s; s != 0; s &= s - 1) {
      union_mask |= cause_[static_cast<std::size_t>(lowest(s))];
    }
    auto offer = [&](int set) {
      Question q;
      q.set = set;
      const Bits bad = state.s & covered_[static_cast<std::size_t>(set)];
      const Bits good = state.s & ~covered_[static_cast<std::size_t>(set)];
      q.bad = State{bad, state.a & bad, state.r & bad};
      q.good = State{good, state.a & good, state.r & good};
      if (const int alone = index_[static_cast<std::size_t>(set)]; alone >= 0 && ((bad >> alone) & 1) != 0) {
        q.bad.a |= bit(alone);
      }
      if (const int rest = index_[static_cast<std::size_t>(full_ & ~set)]; rest >= 0 && ((good >> rest) & 1) != 0) {
        q.good.r |= bit(rest);
      }
      // A question both of whose answers are certain must at least verify something.
      if (bad == 0 && q.good.r == state.r) {
        return;
      }
      if (good == 0 && q.bad.a == state.a) {
        return;
      }
      out.push_back(q);
    };
    if (!reduced) {
      for (int set = 1; set < full_; ++set) {
        offer(set);
      }
      return out;
    }
    // X within the union splits S as any X' with X' & union == X does; of those, X itself verifies X
    // alone and full & ~C verifies C = union & ~X by complement (the same question when union is all).
    for (int set = union_mask;; set = (set - 1) & union_mask) {
      if (set != 0 && set != full_) {
        offer(set);
      }
      const int rest = union_mask & ~set;
      if (union_mask != full_ && rest != 0 && index_[static_cast<std::size_t>(rest)] >= 0) {
        offer(full_ & ~rest);
      }
      if (set == 0) {
        break;
      }
    }
    return out;
  }

  // Kraft's inequality: the causes of S end at distinct leaves, each at least max(1, missing
  // verifications) deep; the least weighted depth over real depths is a lower bound. Causes of one size
  // and one number of missing verifications weigh the same, so they are solved as groups.
  double lower_bound(const State& state) const {
    if (popcount(state.s) == 1) {
      return leaf(state);
    }
    struct Group {
      double count, weight;
      int depth;
    };
    std::vector<Group> groups;
    for (std::size_t size = 1; size < by_size_.size(); ++size) {
      const Bits of_size = state.s & by_size_[size];
      if (of_size == 0) {
        continue;
      }
      const double w = weight_[static_cast<std::size_t>(lowest(of_size))];
      const int verified = popcount(of_size & state.a & state.r);
      const int unverified = popcount(of_size & ~state.a & ~state.r);
      const int half = popcount(of_size) - verified - unverified;
      if (verified + half > 0) {
        groups.push_back({static_cast<double>(verified + half), w, 1});
      }
      if (unverified > 0) {
        groups.push_back({static_cast<double>(unverified), w, 2});
      }
    }
    double kraft = 0.0;
    double fixed_cost = 0.0;
    for (const Group& g : groups) {
      kraft += g.count * std::exp2(-g.depth);
      fixed_cost += g.count * g.weight * g.depth;
    }
    if (kraft <= 1.0) {
      return fixed_cost;
    }
    // As the multiplier mu grows, group g leaves its minimum depth once mu > weight * 2^depth.
    auto key = [](const Group& g) { return g.weight * std::exp2(g.depth); };
    std::sort(groups.begin(), groups.end(), [&](const Group& x, const Group& y) { return key(x) < key(y); });
    double free_weight = 0.0;
    double fixed_kraft = kraft;
    for (std::size_t t = 0; t < groups.size(); ++t) {
      free_weight += groups[t].count * groups[t].weight;
      fixed_kraft -= groups[t].count * std::exp2(-groups[t].depth);
      const double mu = free_weight / (1.0 - fixed_kraft);
      const double next = t + 1 < groups.size() ? key(groups[t + 1]) : 1e300;
      if (fixed_kraft < 1.0 && mu <= next * (1.0 + 1e-12)) {
        double cost = 0.0;
        for (std::size_t u = 0; u < groups.size(); ++u) {
          const double depth =
              u <= t ? std::max<double>(groups[u].depth, std::log2(mu / groups[u].weight)) : groups[u].depth;
          cost += groups[u].count * groups[u].weight * depth;
        }
        return cost * (1.0 - 1e-9);  // rounding must never prune the optimum
      }
    }
    return fixed_cost;
  }

  // The state with its deltas renamed: the least image over the renamings that keep a per-delta
  // signature (how many possible, asked-alone and complement-asked causes of each size hold it) sorted.
  State canonical(const State& state) {
    std::vector<std::array<int, 6>> signature(static_cast<std::size_t>(d_), std::array<int, 6>{});
    auto count = [&](Bits bits, int slot) {
      for (; bits != 0; bits &= bits - 1) {
        const int mask = cause_[static_cast<std::size_t>(lowest(bits))];
        const int size = __builtin_popcount(static_cast<unsigned>(mask));
        for (int e = 0; e < d_; ++e) {
          if (((mask >> e) & 1) != 0) {
            signature[static_cast<std::size_t>(e)][static_cast<std::size_t>(slot == 0 ? size - 1 : 2 + slot)] += 1;
          }
        }
      }
    };
    count(state.s, 0);
    count(state.a, 1);
    count(state.r, 2);
    std::vector<int> order(static_cast<std::size_t>(d_));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int x, int y) {
      return signature[static_cast<std::size_t>(x)] < signature[static_cast<std::size_t>(y)];
    });
    std::vector<std::pair<int, int>> classes;
    for (int i = 0; i < d_;) {
      int j = i;
      while (j < d_ && signature[static_cast<std::size_t>(order[static_cast<std::size_t>(j)])] ==
                           signature[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])]) {
        ++j;
      }
      classes.emplace_back(i, j);
      i = j;
    }
    for (const auto& [begin, end] : classes) {
      std::sort(order.begin() + begin, order.begin() + end);
    }
    State best;
    bool have = false;
    for (;;) {
      std::array<int, 16> to{};
      for (int position = 0; position < d_; ++position) {
        to[static_cast<std::size_t>(order[static_cast<std::size_t>(position)])] = position;
      }
      std::array<int, 16> low{}, high{};
      for (int v = 0; v < 16; ++v) {
        for (int e = 0; e < 4; ++e) {
          if (((v >> e) & 1) != 0) {
            low[static_cast<std::size_t>(v)] |= 1 << to[static_cast<std::size_t>(e)];
            if (e + 4 < d_) {
              high[static_cast<std::size_t>(v)] |= 1 << to[static_cast<std::size_t>(e + 4)];
            }
          }
        }
      }
      auto rename = [&](Bits bits) {
        Bits out = 0;
        for (; bits != 0; bits &= bits - 1) {
          const int mask = cause_[static_cast<std::size_t>(lowest(bits))];
          out |= bit(index_[static_cast<std::size_t>(low[static_cast<std::size_t>(mask & 15)] |
                                                     high[static_cast<std::size_t>(mask >> 4)])]);
        }
        return out;
      };
      const State image{rename(state.s), rename(state.a), rename(state.r)};
      if (!have || image < best) {
        best = image;
        have = true;
      }
      std::size_t c = classes.size();
      while (c > 0 && !std::next_permutation(order.begin() + classes[c - 1].first, order.begin() + classes[c - 1].second)) {
        --c;
      }
      if (c == 0) {
        break;
      }
    }
    return best;
  }

  struct Value {
    double value;
    bool exact;  // false: only a lower bound, at least the cap asked for
  };

  // The optimum of `state` when below `cap`; otherwise a lower bound of at least `cap`.
  Value solve(const State& state, double cap) {
    if (popcount(state.s) == 1) {
      return {leaf(state), true};
    }
    if (auto it = memo_.find(state); it != memo_.end() && (it->second.exact || it->second.value >= cap)) {
      return it->second;
    }
    const State key = canonical(state);
    const Value out = solve_canonical(key, cap);
    memo_[state] = out;
    return out;
  }

  Value exhaustive(const State& state) {
    if (popcount(state.s) == 1) {
      return {leaf(state), true};
    }
    if (auto it = plain_.find(state); it != plain_.end()) {
      return {it->second, true};
    }
    double best = 1e300;
    const double here = weight(state.s);
    for (const Question& q : questions(state, false)) {
      const double value = here + (q.bad.s != 0 ? exhaustive(q.bad).value : 0.0) +
                           (q.good.s != 0 ? exhaustive(q.good).value : 0.0);
      best = std::min(best, value);
    }
    plain_[state] = best;
    return {best, true};
  }

  // The best question of `state` by the solved values (ties: the first in questions()' order).
  Question best_question(const State& state) {
    Question best;
    double best_value = 1e300;
    const double here = weight(state.s);
    for (const Question& q : questions(state, true)) {
      const double value = here + (q.bad.s != 0 ? solve(q.bad, 1e300).value : 0.0) +
                           (q.good.s != 0 ? solve(q.good, 1e300).value : 0.0);
      if (value < best_value - 1e-12) {
        best_value = value;
        best = q;
      }
    }
    return best;
  }

  std::size_t states() const { return memo_.size(); }

 private:
  Value solve_canonical(const State& state, double cap) {
    auto it = memo_.find(state);
    if (it != memo_.end() && (it->second.exact || it->second.value >= cap)) {
      return it->second;
    }
    double floor = lower_bound(state);
    if (it != memo_.end()) {
      floor = std::max(floor, it->second.value);
    }
    if (floor >= cap) {
      memo_[state] = {floor, false};
      return {floor, false};
    }
    const double here = weight(state.s);
    std::vector<Question> qs = questions(state, true);
    for (Question& q : qs) {
      q.bound = here + (q.bad.s != 0 ? lower_bound(q.bad) : 0.0) + (q.good.s != 0 ? lower_bound(q.good) : 0.0);
    }
    std::sort(qs.begin(), qs.end(), [](const Question& x, const Question& y) { return x.bound < y.bound; });
    double best = cap;
    bool found = false;
    for (const Question& q : qs) {
      if (q.bound >= best) {
        break;
      }
      double value = here;
      if (q.bad.s != 0) {
        const Value bad = solve(q.bad, best - value);
        value += bad.value;
        if (!bad.exact || value >= best) {
          continue;
        }
      }
      if (q.good.s != 0) {
        const Value good = solve(q.good, best - value);
        value += good.value;
        if (!good.exact) {
          continue;
        }
      }
      if (value < best) {
        best = value;
        found = true;
      }
    }
    const Value out = found ? Value{best, true} : Value{std::max(floor, cap), false};
    memo_[state] = out;
    return out;
  }

  int d_;
  int full_;
  std::vector<int> cause_;     // each possible cause as a bit mask of deltas
  std::vector<double> weight_; // its prior weight
  std::vector<int> index_;     // bit mask -> index into cause_, or -1
  std::vector<Bits> covered_;  // set -> the causes it holds entirely (bad when applied)
  std::array<Bits, 9> by_size_{};
  std::unordered_map<State, Value, StateHash> memo_;
  std::unordered_map<State, double, StateHash> plain_;
};

struct Row {
  double mean = 0.0;
  int worst = 0;
};

// Walk the solved tree for every possible cause; check each path independently.
bool walk(Problem& problem, int max_size, std::array<Row, 4>& rows) {
  std::array<int, 4> count{};
  for (int truth : problem.causes()) {
    State state = problem.root();
    std::vector<std::pair<int, bool>> asked;
    while (!(popcount(state.s) == 1 && (state.a & state.s) != 0 && (state.r & state.s) != 0)) {
      const Question q = problem.best_question(state);
      const bool bad = (truth & q.set) == truth;
      asked.emplace_back(q.set, bad);
      state = bad ? q.bad : q.good;
    }
    bool alone = false;
    bool complement = false;
    for (const auto& [set, bad] : asked) {
      alone = alone || (set == truth && bad);
      complement = complement || (set == (problem.full() & ~truth) && !bad);
    }
    int agreeing = 0;
    for (int cause : problem.causes()) {
      agreeing += std::all_of(asked.begin(), asked.end(), [&](const auto& qa) {
        return ((cause & qa.first) == cause) == qa.second;
      }) ? 1 : 0;
    }
    if (!alone || !complement || agreeing != 1) {
      std::fprintf(stderr, "path for cause %#x does not end verified (alone %d, complement %d, agreeing %d)\n",
                   truth, alone, complement, agreeing);
      return false;
    }
    const auto size = static_cast<std::size_t>(__builtin_popcount(static_cast<unsigned>(truth)));
    rows[size].mean += static_cast<double>(asked.size());
    rows[size].worst = std::max(rows[size].worst, static_cast<int>(asked.size()));
    count[size] += 1;
  }
  for (int size = 1; size <= max_size; ++size) {
    rows[static_cast<std::size_t>(size)].mean /= count[static_cast<std::size_t>(size)];
  }
  return true;
}

int tree(int deltas, std::array<double, 4> weights) {
  const int max_size = 3;
  Problem problem(deltas, max_size, weights);
  const Problem::Value optimum = problem.solve(problem.root(), 1e300);
  std::array<Row, 4> rows{};
  if (!walk(problem, max_size, rows)) {
    return 1;
  }
  std::printf("D %d, weights %g : %g : %g, %zu states\n", deltas, weights[1], weights[2], weights[3], problem.states());
  std::printf("%-3s %-8s %-6s %-6s %s\n", "K", "mean", "worst", "bound", "mean/bound");
  double weighted = 0.0;
  double goal = 0.0;
  for (int k = 1; k <= max_size; ++k) {
    const Row& row = rows[static_cast<std::size_t>(k)];
    const double bound = std::ceil(std::log2(binomial(deltas, k))) + 1.0;
    std::printf("%-3d %-8.3f %-6d %-6.0f %.3f\n", k, row.mean, row.worst, bound, row.mean / bound);
    weighted += weights[static_cast<std::size_t>(k)] * row.mean;
    goal += weights[static_cast<std::size_t>(k)] * 1.25 * bound;
  }
  // Any strategy's weighted sum is at least the optimum; if even that exceeds the weighted sum of the
  // goals (1.25 x bound per row), no strategy has every row within its goal.
  std::printf("optimum_weighted: %.4f\n", optimum.value);
  std::printf("walked_weighted: %.4f\n", weighted);
  std::printf("goal_weighted: %.4f\n", goal);
  std::printf("every_row_within_goal_possible: %s\n", optimum.value > goal + 1e-9 ? "no" : "not ruled out");
  return std::fabs(weighted - optimum.value) < 1e-6 ? 0 : 1;
}

int check(int deltas) {
  int failures = 0;
  for (const std::array<double, 4>& w : {std::array<double, 4>{0, 1, 1, 1}, std::array<double, 4>{0, 3, 1, 1},
                                         std::array<double, 4>{0, 1, 3, 1}, std::array<double, 4>{0, 1, 1, 3},
                                         std::array<double, 4>{0, 0.2, 1, 5}}) {
    Problem fast(deltas, 3, w);
    Problem plain(deltas, 3, w);
    const double a = fast.solve(fast.root(), 1e300).value;
    const double b = plain.exhaustive(plain.root()).value;
    std::array<Row, 4> rows{};
    const bool walked = walk(fast, 3, rows);
    const bool same = std::fabs(a - b) < 1e-9;
    std::printf("D %d weights %g:%g:%g  solver %.6f  exhaustive %.6f  %s%s\n", deltas, w[1], w[2], w[3], a, b,
                same ? "same" : "DIFFERENT", walked ? "" : ", walk failed");
    failures += (same && walked) ? 0 : 1;
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 5 && args[0] == "tree") {
    const int deltas = std::atoi(args[1].c_str());
    if (deltas < 3 || deltas > 8) {
      std::fprintf(stderr, "D must be 3..8\n");
      return 2;
    }
    return tree(deltas, {0.0, std::atof(args[2].c_str()), std::atof(args[3].c_str()), std::atof(args[4].c_str())});
  }
  if (args.size() == 2 && args[0] == "check") {
    const int deltas = std::atoi(args[1].c_str());
    if (deltas < 3 || deltas > 6) {
      std::fprintf(stderr, "check: D must be 3..6 (the exhaustive solver is slow beyond)\n");
      return 2;
    }
    return check(deltas);
  }
  std::fprintf(stderr, "usage: bench_optimal_tree tree D L1 L2 L3 | check D\n");
  return 2;
}
