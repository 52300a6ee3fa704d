#include "search/kary.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace envbisect {

namespace {


}  // namespace

std::vector<std::size_t> kary_probes(std::size_t good, std::size_t bad, std::size_t k,
                                     const std::vector<std::size_t>& asked) {
  // The untried points of (good, bad) by rank, computed without listing the interval (2^63 numbers).
  std::vector<std::size_t> tried;
  for (std::size_t index : asked) {
    if (index > good && index < bad) {
      tried.push_back(index);
    }
  }
  std::sort(tried.begin(), tried.end());
  tried.erase(std::unique(tried.begin(), tried.end()), tried.end());
  auto untried = [&](std::size_t rank) {  // the rank-th (1-based) untried point
    std::size_t index = good + rank;
    for (std::size_t taken : tried) {
      if (taken > index) {
        break;
      }
      ++index;
    }
    return index;
  };
  const std::size_t m = bad - good - 1 - tried.size();
  k = std::max<std::size_t>(1, std::min(k, m));
  std::vector<std::size_t> probes;
  // rank = (j+1)(m+1)/(k+1), written so that it cannot overflow for m near 2^63.
  const std::size_t q = (m + 1) / (k + 1);
  const std::size_t r = (m + 1) % (k + 1);
  for (std::size_t j = 0; j < k && m > 0; ++j) {
    // One point a round is git's choice: never the lowest of three or more (see first_bad()).
    const std::size_t rank = k == 1 && m >= 2 ? std::max<std::size_t>(2, m / 2 + (m % 2))
                                              : (j + 1) * q + (j + 1) * r / (k + 1);
    const std::size_t index = untried(rank == 0 ? 1 : rank);
    if (probes.empty() || probes.back() != index) {
      probes.push_back(index);
    }
  }
  return probes;
}

KaryBisection kary_first_bad(std::size_t count, std::size_t k, const BatchIndexOracle& oracle,
                             const PointLabel& label) {
  KaryBisection out;
  Bisection& result = out.bisection;
  if (count < 2) {
    result.note = "nothing to bisect: need a good and a bad point";
    return out;
  }
  std::size_t good = 0;
  std::size_t bad = count - 1;
  result.steps.push_back(BisectStep{good, Verdict::good, "good end, measured by the caller", true});
  result.steps.push_back(BisectStep{bad, Verdict::bad, "bad end, measured by the caller", true});
  std::vector<std::size_t> asked;
  std::vector<std::string> notes;

  // Invariant: `good` is good, `bad` is bad (or intermediate), so the first bad is in good+1..bad.
  while (bad - good > 1) {
    const std::vector<std::size_t> probes = kary_probes(good, bad, k, asked);
    if (probes.empty()) {
      break;  // every point strictly between is untestable
    }
    ++out.rounds;
    const std::vector<Verdict> verdicts = oracle(probes);
    const std::string why = "round " + std::to_string(out.rounds) + ", " + std::to_string(probes.size()) +
                            " at once over " + describe_points(label, good + 1, bad) + ": test ";
    std::map<std::size_t, Verdict> answers;
    for (std::size_t i = 0; i < probes.size(); ++i) {
      const Verdict verdict = i < verdicts.size() ? verdicts[i] : Verdict::skip;
      asked.push_back(probes[i]);
      answers.emplace(probes[i], verdict);
      result.steps.push_back(BisectStep{probes[i], verdict, why + point_label(label, probes[i]), false});
      ++result.evaluations;
    }
    // The lowest bad answer bounds from above; the highest good answer below it bounds from below.
    for (const auto& [index, verdict] : answers) {
      if (verdict == Verdict::bad || verdict == Verdict::intermediate) {
        if (verdict == Verdict::intermediate) {
          notes.push_back("intermediate at " + point_label(label, index) + ": treated as bad, a partial effect");
        }
        bad = index;
        break;
      }
    }
    for (const auto& [index, verdict] : answers) {
      if (index < bad && verdict == Verdict::good) {
        good = std::max(good, index);
      }
      if (verdict == Verdict::skip || verdict == Verdict::unstable) {
        notes.push_back(std::string(verdict == Verdict::skip ? "skip" : "unstable") + " at " +
                        point_label(label, index) + ": untestable");
      }
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
  return out;
}

}  // namespace envbisect
