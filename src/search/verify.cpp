#include "search/verify.hpp"

#include <algorithm>
#include <iterator>

namespace envbisect {

namespace {

// Return `a` less the members of `b` (both sorted). Named apart from isolate.cpp's helpers: unity
// builds put both files in one translation unit.
DeltaSet set_less(const DeltaSet& a, const DeltaSet& b) {
  DeltaSet out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// How a re-measurement came out, for a note: " was not good again when re-measured", or for a skip
// (the budget, or runs that were all untestable) " could not be measured again (skip)"; with no
// `expected`, " was bad when re-measured".
std::string remeasured(Verdict again, const std::string& expected) {
  if (again == Verdict::skip) {
    return " could not be measured again (skip)";
  }
  return expected.empty() ? " was " + std::string(to_string(again)) + " when re-measured"
                          : " was not " + expected + " again when re-measured";
}

}  // namespace

std::optional<RevertNeighbour> testable_reverse_neighbour(const DeltaSet& cause, const DeltaSet& remaining,
                                                          const IsolateOptions& options, const SearchAsk& ask,
                                                          const SetName& name) {
  // The caller's partners of the cause first (a rename's other half), then every other delta in order:
  // each neighbour is as near as the next, so a fixed order keeps the questions deterministic.
  std::vector<std::size_t> order;
  if (options.partners) {
    for (std::size_t delta : options.partners(cause)) {
      if (std::binary_search(remaining.begin(), remaining.end(), delta) &&
          std::find(order.begin(), order.end(), delta) == order.end()) {
        order.push_back(delta);
      }
    }
  }
  for (std::size_t delta : remaining) {
    if (std::find(order.begin(), order.end(), delta) == order.end()) {
      order.push_back(delta);
    }
  }
  int attempts = 0;
  for (std::size_t delta : order) {
    if (attempts++ >= options.max_split_attempts) {
      break;
    }
    const DeltaSet neighbour = set_less(remaining, DeltaSet{delta});
    const Verdict verdict =
        ask(neighbour, "bad minus " + name(cause) + " is untestable: ask its neighbour that reverts " +
                           name(DeltaSet{delta}) + " with it: " + name(neighbour) + " on top of good");
    if (verdict == Verdict::good || verdict == Verdict::bad || verdict == Verdict::intermediate) {
      return RevertNeighbour{delta, verdict};
    }
  }
  return std::nullopt;
}

void recheck_answer(const IsolateOptions& options, const DeltaSet& all, const DeltaSet& reverted, Isolation& result,
                    std::vector<std::string>& notes, const SetName& name) {
  for (std::size_t i = 0; i < result.causes.size(); ++i) {
    const Verdict again = result.causes[i] != all ? options.recheck(result.causes[i]) : Verdict::bad;
    if (again != Verdict::bad) {
      result.verified_forward = false;
      result.cause_verdicts[i] = Verdict::unstable;
      notes.push_back("cause " + name(result.causes[i]) + remeasured(again, "bad"));
    }
  }
  // A cause of several members is minimal only if each member is needed: without it, good again. Its
  // coupled deltas are not claimed needed (they are in it because bad could not do without them).
  for (std::size_t i = 0; i < result.causes.size(); ++i) {
    const DeltaSet found = set_less(result.causes[i], i < result.coupled.size() ? result.coupled[i] : DeltaSet{});
    for (std::size_t k = 0; found.size() > 1 && k < found.size() && result.verified_forward; ++k) {
      // Partial causes united into one: without one of them the rest is partial (not bad) at most.
      const DeltaSet without = set_less(found, DeltaSet{found[k]});
      const Verdict again = options.recheck(without);
      // A re-measurement that could not be made (skip) leaves the member's need unconfirmed too.
      if (again == Verdict::skip ||
          (result.united ? again == Verdict::bad : (again == Verdict::bad || again == Verdict::intermediate))) {
        result.verified_forward = false;
        result.could_be.push_back(without);
        notes.push_back(name(without) + remeasured(again, "") + ": " + name(DeltaSet{found[k]}) + " may not be needed");
      }
    }
  }
  const DeltaSet rest = set_less(all, reverted);
  if (const Verdict again = rest.empty() ? Verdict::good : options.recheck(rest); again != Verdict::good) {
    result.verified_reverse = false;
    notes.push_back("bad minus " + name(reverted) + remeasured(again, "good"));
  }
}

std::vector<Contradiction> monotone_contradictions(const std::vector<SetVerdict>& verdicts, std::size_t limit) {
  // The last verdict of each set.
  std::vector<SetVerdict> latest;
  for (auto it = verdicts.rbegin(); it != verdicts.rend(); ++it) {
    const bool seen =
        std::any_of(latest.begin(), latest.end(), [&](const SetVerdict& v) { return v.applied == it->applied; });
    if (!seen) {
      latest.push_back(*it);
    }
  }
  const auto by_size = [](const SetVerdict& a, const SetVerdict& b) {
    return a.applied.size() != b.applied.size() ? a.applied.size() < b.applied.size() : a.applied < b.applied;
  };
  std::sort(latest.begin(), latest.end(), by_size);
  std::vector<Contradiction> out;
  std::vector<DeltaSet> used;
  const auto is_used = [&](const DeltaSet& set) { return std::find(used.begin(), used.end(), set) != used.end(); };
  for (const SetVerdict& good : latest) {
    if (out.size() >= limit) {
      break;
    }
    if (good.verdict != Verdict::good || is_used(good.applied)) {
      continue;
    }
    for (const SetVerdict& bad : latest) {
      if (bad.verdict != Verdict::bad || bad.applied.size() > good.applied.size() || is_used(bad.applied) ||
          !std::includes(good.applied.begin(), good.applied.end(), bad.applied.begin(), bad.applied.end())) {
        continue;
      }
      out.push_back({good.applied, bad.applied});
      used.push_back(good.applied);
      used.push_back(bad.applied);
      break;
    }
  }
  return out;
}

}  // namespace envbisect
