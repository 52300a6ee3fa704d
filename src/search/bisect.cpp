#include "search/bisect.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace envbisect {

namespace {


// Return the point `git rev-list --bisect` picks among good+1..bad on a chain: find_bisection sweeps
// the candidates newest first, giving each the weight of its parent plus one, so the first commit
// within one of halfway to be weighed is the oldest such one above the lowest (whose weight, 1, is
// never checked); two candidates leave only the lower one. Measured with git 2.39 on chains of 2..9.
std::size_t git_midpoint(std::size_t good, std::size_t bad) {
  const std::size_t n = bad - good;
  return n <= 2 ? good + 1 : good + std::max<std::size_t>(2, n / 2);
}

// The interior points of (good, bad) in the order to try them: git's midpoint, then its neighbours
// alternating above and below, nearest first (git bisect moves off a skipped commit the same way).
// Computed one at a time: an axis of 2^63 numbers is never listed.
class ProbeOrder {
public:
  ProbeOrder(std::size_t good, std::size_t bad) : m_good(good), m_bad(bad), m_mid(git_midpoint(good, bad)) {}

  // Return the next point to try, or nothing when every interior point was given.
  std::optional<std::size_t> next() {
    while (m_mid + m_d < m_bad || m_mid >= m_good + 1 + m_d) {
      const std::size_t d = m_d;
      if (!m_below_next) {
        m_below_next = true;
        if (d > 0 && m_mid + d < m_bad) {
          return m_mid + d;
        }
      }
      m_below_next = false;
      ++m_d;
      if (m_mid >= m_good + 1 + d) {
        return m_mid - d;
      }
    }
    return std::nullopt;
  }

private:
  std::size_t m_good;
  std::size_t m_bad;
  std::size_t m_mid;
  std::size_t m_d = 0;
  bool m_below_next = false;
};

}  // namespace

std::string point_label(const PointLabel& label, std::size_t index) {
  return label ? label(index) : std::to_string(index);
}

std::string describe_points(const PointLabel& label, std::size_t low, std::size_t high) {
  if (low == high) {
    return point_label(label, low);
  }
  if (high == low + 1) {
    return point_label(label, low) + "," + point_label(label, high);
  }
  // Not "a..b": for commits that is git's range notation, which leaves a out.
  return point_label(label, low) + " to " + point_label(label, high) + " (" + std::to_string(high - low + 1) + ")";
}

Bisection first_bad(std::size_t count, const IndexOracle& oracle, const PointLabel& label) {
  Bisection result;
  if (count < 2) {
    result.note = "nothing to bisect: need a good and a bad point";
    return result;
  }
  std::size_t good = 0;
  std::size_t bad = count - 1;
  result.steps.push_back(BisectStep{good, Verdict::good, "good end, measured by the caller", true});
  result.steps.push_back(BisectStep{bad, Verdict::bad, "bad end, measured by the caller", true});
  std::map<std::size_t, Verdict> memo;
  std::vector<std::string> notes;

  // Invariant: `good` is good, `bad` is bad (or intermediate), so the first bad is in good+1..bad.
  while (bad - good > 1) {
    bool moved = false;
    const std::size_t mid = git_midpoint(good, bad);
    ProbeOrder order(good, bad);
    for (std::optional<std::size_t> next = order.next(); next; next = order.next()) {
      const std::size_t index = *next;
      if (auto it = memo.find(index); it != memo.end()) {
        continue;  // only untestable points stay relevant after being asked
      }
      const std::string why = index == mid ? "bisect " + describe_points(label, good + 1, bad) + ": test midpoint " +
                                                 point_label(label, index)
                                           : "bisect " + describe_points(label, good + 1, bad) + ": midpoint " +
                                                 point_label(label, mid) + " untestable, test neighbour " +
                                                 point_label(label, index);
      const Verdict verdict = oracle(index);
      memo.emplace(index, verdict);
      result.steps.push_back(BisectStep{index, verdict, why, false});
      ++result.evaluations;
      if (verdict == Verdict::good) {
        good = index;
        moved = true;
        break;
      }
      if (verdict == Verdict::bad || verdict == Verdict::intermediate) {
        if (verdict == Verdict::intermediate) {
          notes.push_back("intermediate at " + point_label(label, index) + ": treated as bad, a partial effect");
        }
        bad = index;
        moved = true;
        break;
      }
      notes.push_back(std::string(verdict == Verdict::skip ? "skip" : "unstable") + " at " +
                      point_label(label, index) + ": untestable");
    }
    if (!moved) {
      // Every point strictly between the known good and the known bad is untestable.
      break;
    }
  }
  result.last_good = good;
  result.first_bad = bad;
  result.found = bad - good == 1;
  if (!result.found) {
    notes.insert(notes.begin(), "boxed in by untestable points: the first bad could be any of " +
                                    describe_points(label, good + 1, bad));
  }
  for (const std::string& note : notes) {
    result.note += (result.note.empty() ? "" : "; ") + note;
  }
  return result;
}

}  // namespace envbisect
