#include "search/isolate.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <numeric>
#include <string>
#include <utility>

namespace envbisect {

namespace {

// True when the verdict says something about the set (good, bad, or partially bad).
bool is_testable(Verdict verdict) {
  return verdict == Verdict::good || verdict == Verdict::bad || verdict == Verdict::intermediate;
}

// True when the set reproduces the effect, fully or partly; isolation treats both alike.
bool counts_as_bad(Verdict verdict) {
  return verdict == Verdict::bad || verdict == Verdict::intermediate;
}

DeltaSet unite(const DeltaSet& a, const DeltaSet& b) {
  DeltaSet out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

DeltaSet subtract(const DeltaSet& a, const DeltaSet& b) {
  DeltaSet out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// The ways to split a group of two or more, best first: halves, then the other half first, then
// boundaries moved one delta at a time (git bisect's answer to a skipped midpoint). Each entry is the
// part tested first; the rest is its complement.
std::vector<DeltaSet> split_parts(const DeltaSet& group) {
  const std::size_t n = group.size();
  const std::size_t mid = n / 2;
  std::vector<std::size_t> lengths;
  for (std::size_t d = 0; d < n; ++d) {
    for (std::size_t m : {mid - std::min(d, mid), mid + d}) {
      if (m >= 1 && m <= n - 1 && std::find(lengths.begin(), lengths.end(), m) == lengths.end()) {
        lengths.push_back(m);
      }
    }
  }
  std::vector<DeltaSet> parts;
  for (std::size_t m : lengths) {
    parts.emplace_back(group.begin(), group.begin() + static_cast<std::ptrdiff_t>(m));
    parts.emplace_back(group.begin() + static_cast<std::ptrdiff_t>(m), group.end());
  }
  return parts;
}

// QuickXplain-style divide and conquer over one oracle, with a memo and a journal of questions.
class Isolator {
public:
  Isolator(const Oracle& oracle, const IsolateOptions& options, Isolation& result)
      : m_oracle(oracle), m_options(options), m_result(result) {}

  // Record a verdict the caller measured; it is never asked again.
  void assume(const DeltaSet& applied, Verdict verdict, std::string why) {
    m_memo.emplace(applied, verdict);
    m_result.steps.push_back(SearchStep{applied, verdict, std::move(why), true});
  }

  // Return the verdict for `applied`, asking the oracle only the first time.
  Verdict ask(const DeltaSet& applied, std::string why) {
    if (auto it = m_memo.find(applied); it != m_memo.end()) {
      return it->second;
    }
    const Verdict verdict = m_oracle(applied);
    m_memo.emplace(applied, verdict);
    m_result.steps.push_back(SearchStep{applied, verdict, std::move(why), false});
    ++m_result.evaluations;
    if (verdict == Verdict::intermediate) {
      m_intermediate.push_back(applied);
    } else if (verdict == Verdict::unstable) {
      m_unstable.push_back(applied);
    }
    return verdict;
  }

  // Return a minimal X of `group` with background+X bad, given background+group bad and (when
  // `background_good`) background good. Ambiguity from skips is recorded, not thrown.
  DeltaSet solve(const DeltaSet& background, const DeltaSet& group, bool background_good) {
    if (group.size() <= 1) {
      if (!background_good && !group.empty()) {
        m_unproven.push_back(group);
      }
      return group;
    }
    int attempts = 0;
    for (const DeltaSet& first : split_parts(group)) {
      if (attempts >= m_options.max_split_attempts) {
        break;
      }
      ++attempts;
      const DeltaSet rest = subtract(group, first);
      const std::string how = attempts == 1 ? "split " + describe(group)
                                            : "split " + describe(group) + " again (untestable before)";
      const Verdict verdict =
          ask(unite(background, first), how + ": test " + describe(first) + " on top of " + describe(background));
      if (counts_as_bad(verdict)) {
        // The first part alone (on the background) is enough: the rest is not needed.
        return solve(background, first, background_good);
      }
      if (verdict != Verdict::good) {
        continue;
      }
      // background+first is good, background+group bad: something in `rest` is needed.
      const DeltaSet with_first = unite(background, first);
      const DeltaSet from_rest = solve(with_first, rest, true);
      const DeltaSet without_first = unite(background, from_rest);
      const Verdict check = ask(without_first, "check " + describe(from_rest) + " without " + describe(first) +
                                                   " on top of " + describe(background) + ": is " +
                                                   describe(first) + " needed too?");
      if (counts_as_bad(check)) {
        return from_rest;
      }
      if (check != Verdict::good) {
        m_notes.push_back("could not test " + describe(without_first) +
                          ", so members of " + describe(first) + " may be unnecessary");
      }
      // Now background+from_rest is (taken as) good and background+from_rest+first is bad.
      return unite(solve(without_first, first, check == Verdict::good), from_rest);
    }
    m_result.ambiguous.push_back(group);
    m_notes.push_back("boxed in by untestable splits: could be any of " + describe(group) + " on top of " +
                      describe(background));
    return group;
  }

  // Append every caveat gathered during the search to `notes`.
  void collect_notes(std::vector<std::string>& notes) const {
    notes.insert(notes.end(), m_notes.begin(), m_notes.end());
    for (const DeltaSet& set : m_unproven) {
      notes.push_back("minimality of " + describe(set) + " unproven (its background was untestable)");
    }
    for (const DeltaSet& set : m_intermediate) {
      notes.push_back("intermediate at " + describe(set) + ": treated as bad, a partial cause");
    }
    for (const DeltaSet& set : m_unstable) {
      notes.push_back("unstable at " + describe(set) + ": treated as untestable");
    }
  }

private:
  const Oracle& m_oracle;
  const IsolateOptions& m_options;
  Isolation& m_result;
  std::map<DeltaSet, Verdict> m_memo;
  std::vector<std::string> m_notes;
  std::vector<DeltaSet> m_unproven;
  std::vector<DeltaSet> m_intermediate;
  std::vector<DeltaSet> m_unstable;
};

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) {
      out += separator;
    }
    out += part;
  }
  return out;
}

}  // namespace

std::string describe(const DeltaSet& deltas) {
  std::string out = "{";
  for (std::size_t i = 0; i < deltas.size();) {
    std::size_t j = i;
    while (j + 1 < deltas.size() && deltas[j + 1] == deltas[j] + 1) {
      ++j;
    }
    if (i > 0) {
      out += ",";
    }
    if (j - i >= 2) {
      out += std::to_string(deltas[i]) + ".." + std::to_string(deltas[j]);
      i = j + 1;
    } else {
      out += std::to_string(deltas[i]);
      ++i;
    }
  }
  return out + "}";
}

Isolation isolate(std::size_t delta_count, const Oracle& oracle) {
  return isolate(delta_count, oracle, IsolateOptions{});
}

Isolation isolate(std::size_t delta_count, const Oracle& oracle, const IsolateOptions& options) {
  Isolation result;
  if (delta_count == 0) {
    result.note = "nothing to isolate: good and bad have no differences";
    return result;
  }
  Isolator isolator(oracle, options, result);
  DeltaSet all(delta_count);
  std::iota(all.begin(), all.end(), std::size_t{0});
  isolator.assume({}, Verdict::good, "good anchor, measured by the caller");
  isolator.assume(all, Verdict::bad, "bad anchor, measured by the caller");

  std::vector<std::string> notes;
  DeltaSet remaining = all;  // bad (measured or verified), with every cause found so far reverted
  DeltaSet reverted;         // union of the causes found so far
  bool monotone = true;
  // Each round removes at least one delta, so this ends; it stops once bad minus the causes is good.
  while (!remaining.empty()) {
    const std::size_t round = result.causes.size() + 1;
    const DeltaSet cause = isolator.solve({}, remaining, true);
    const Verdict forward =
        isolator.ask(cause, "verify cause " + std::to_string(round) + " forward: " + describe(cause) + " alone on top of good");
    result.causes.push_back(cause);
    result.cause_verdicts.push_back(forward);
    // Every cause is a set the search already judged bad, so this is normally a memo hit; it can only
    // disagree if the memo was bypassed, and then the world is not what the search assumed.
    if (forward == Verdict::good) {
      monotone = false;
      notes.push_back("cause " + describe(cause) + " alone evaluated good: the effect is not monotone in the deltas");
    } else if (forward == Verdict::intermediate) {
      notes.push_back("cause " + describe(cause) + " alone is intermediate: a partial cause");
    } else if (!is_testable(forward)) {
      notes.push_back("cause " + describe(cause) + " alone is untestable (" + std::string(forward == Verdict::skip ? "skip" : "unstable") + ")");
    }
    reverted = unite(reverted, cause);
    remaining = subtract(remaining, cause);
    const Verdict reverse = isolator.ask(remaining, "verify reverse: bad minus " + describe(reverted) + " = " +
                                                        describe(remaining) + " on top of good");
    if (reverse == Verdict::good) {
      result.verified_reverse = true;
      break;
    }
    if (!is_testable(reverse)) {
      notes.push_back("bad minus " + describe(reverted) + " is untestable: other causes not ruled out");
      break;
    }
    if (!monotone) {
      break;
    }
    // Bad minus the causes is still (partly) bad: another independent cause lives in `remaining`.
    notes.push_back("bad minus " + describe(reverted) + " is still " +
                    std::string(reverse == Verdict::bad ? "bad" : "intermediate") + ": another independent cause");
  }
  result.cause = result.causes.front();
  result.verified_forward = result.cause_verdicts.front() == Verdict::bad;
  result.found = monotone && !result.cause.empty();
  isolator.collect_notes(notes);
  result.note = join(notes, "; ");
  return result;
}

}  // namespace envbisect
