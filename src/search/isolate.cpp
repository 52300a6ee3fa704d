#include "search/isolate.hpp"

#include "search/informed.hpp"
#include "search/kary.hpp"
#include "search/verify.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <numeric>
#include <optional>
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

DeltaSet sorted(DeltaSet set) {
  std::sort(set.begin(), set.end());
  return set;
}

DeltaSet subtract(const DeltaSet& a, const DeltaSet& b) {
  DeltaSet out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// The order in which prefix lengths are tried between lo and hi (exclusive): the midpoint, then
// its neighbours nearest first (git bisect's answer to an untestable midpoint).
std::vector<std::size_t> prefix_lengths(std::size_t lo, std::size_t hi) {
  std::vector<std::size_t> out;
  const std::size_t mid = lo + (hi - lo) / 2;
  for (std::size_t d = 0; out.size() < hi - lo - 1; ++d) {
    for (std::size_t m : {mid - std::min(d, mid), mid + d}) {
      if (m > lo && m < hi && std::find(out.begin(), out.end(), m) == out.end()) {
        out.push_back(m);
      }
    }
  }
  return out;
}

// Progressive prefix bisection over one oracle, with a memo and a journal of questions.
class Isolator {
public:
  Isolator(const Oracle& oracle, const IsolateOptions& options, Isolation& result)
      : m_oracle(oracle), m_options(options), m_result(result) {}

  // Return the set's name in `why` texts and notes.
  std::string name(const DeltaSet& set) const {
    return m_options.describe ? m_options.describe(set) : describe(set);
  }

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

  // Return a minimal X of `group` with X bad, given `group` bad and {} good (both known). Each round
  // bisects the prefixes of what is left, in the order given, for the shortest one that is bad on
  // top of the members found so far (C): its last element u is needed (the prefix before it, with C,
  // is good), so C grows by u and the search goes on inside the elements before u, until C alone is
  // bad. Every member is needed: removing one leaves a subset of a set seen good (monotone world).
  // About K*(log2(n)+1) questions for K members among n. Untestable prefixes: nearby lengths are
  // tried, then the suffixes (the reverse order); when all are untestable the rest of the window is
  // kept whole ("could be any of").
  DeltaSet solve(const DeltaSet& group) {
    DeltaSet found;
    std::vector<std::size_t> window(group.begin(), group.end());  // found + window is bad
    std::vector<DeltaSet> untestable_subsets;                       // "found alone is good" unproven
    while (!window.empty()) {
      const std::size_t n = window.size();
      // Shortest bad run of `window` on top of `found`: the prefix (or suffix) of length hi is bad.
      bool located = false;
      for (int pass = 0; pass < 2 && !located; ++pass) {
        const bool suffixes = pass == 1;
        auto part = [&](std::size_t length) {
          return suffixes ? DeltaSet(window.end() - static_cast<std::ptrdiff_t>(length), window.end())
                          : DeltaSet(window.begin(), window.begin() + static_cast<std::ptrdiff_t>(length));
        };
        std::size_t lo = 0;
        std::size_t hi = n;
        int attempts = 0;
        bool boxed = false;
        while (hi - lo > 1 && !boxed) {
          if (m_options.slots > 1 && hi - lo > 2) {
            // k lengths at once, evenly spaced; then the window shrinks to the gap that holds the edge.
            std::vector<std::size_t> lengths = kary_probes(lo, hi, m_options.slots, {});
            std::vector<DeltaSet> sets;
            for (std::size_t m : lengths) {
              DeltaSet set = unite(found, sorted(part(m)));
              if (m_memo.count(set) == 0) {
                sets.push_back(set);
              }
            }
            if (m_options.prefetch && !sets.empty()) {
              m_options.prefetch(sets);
            }
            const std::size_t old_lo = lo;
            const std::size_t old_hi = hi;
            for (std::size_t m : lengths) {
              const std::string what = suffixes ? "suffixes" : "prefixes";
              const Verdict verdict =
                  ask(unite(found, sorted(part(m))), "bisect the " + what + " of " + name(sorted(window)) + " on top of " +
                                                         name(found) + ", " + std::to_string(lengths.size()) +
                                                         " lengths at once: test " + name(sorted(part(m))));
              if (counts_as_bad(verdict) && m < hi) {
                hi = m;
              }
            }
            for (std::size_t m : lengths) {
              if (m < hi && m > lo && m_memo.at(unite(found, sorted(part(m)))) == Verdict::good) {
                lo = m;
              }
            }
            if (lo != old_lo || hi != old_hi) {
              continue;
            }
            // Every length of the round was untestable: fall back to one at a time, nearest first.
          }
          bool decided = false;
          for (std::size_t m : prefix_lengths(lo, hi)) {
            if (attempts >= m_options.max_split_attempts) {
              break;
            }
            ++attempts;
            const DeltaSet piece = part(m);
            const std::string what = suffixes ? "suffixes" : "prefixes";
            const std::string how = attempts == 1 ? "bisect the " + what + " of " + name(sorted(window))
                                                             : "bisect the " + what + " of " + name(sorted(window)) +
                                                                   " again (untestable before)";
            const Verdict verdict = ask(unite(found, sorted(piece)),
                                        how + " on top of " + name(found) + ": test " + name(sorted(piece)));
            if (counts_as_bad(verdict)) {
              hi = m;
              decided = true;
              attempts = 0;
              break;
            }
            if (verdict == Verdict::good) {
              lo = m;
              decided = true;
              attempts = 0;
              break;
            }
          }
          boxed = !decided;
        }
        if (boxed) {
          if (!suffixes) {
            continue;  // try the other orientation before giving up
          }
          const DeltaSet rest = sorted(std::vector<std::size_t>(window.begin(), window.end()));
          m_result.ambiguous.push_back(rest);
          for (std::size_t member : rest) {
            m_could_be.push_back(unite(found, DeltaSet{member}));
          }
          m_could_be.push_back(unite(found, rest));
          m_notes.push_back("boxed in by untestable mixes: could be any of " + name(rest) + " on top of " +
                            name(found));
          return unite(found, rest);
        }
        // The run of length hi is bad, that of length hi-1 good (or the untested found alone): its
        // outermost element is needed.
        located = true;
        const std::size_t u = suffixes ? window[n - hi] : window[hi - 1];
        found = unite(found, DeltaSet{u});
        if (suffixes) {
          window.erase(window.begin(), window.begin() + static_cast<std::ptrdiff_t>(n - hi + 1));
        } else {
          window.resize(hi - 1);
        }
      }
      if (window.empty()) {
        break;
      }
      const Verdict alone = ask(found, "is " + name(found) + " enough on its own, without " +
                                           name(sorted(window)) + "?");
      if (counts_as_bad(alone)) {
        break;
      }
      if (alone != Verdict::good) {
        untestable_subsets.push_back(found);
      }
    }
    if (!untestable_subsets.empty()) {
      // A smaller set was never measured good or bad: it may be the cause on its own.
      m_unproven.push_back(found);
      m_could_be.insert(m_could_be.end(), untestable_subsets.begin(), untestable_subsets.end());
      m_could_be.push_back(found);
    }
    return found;
  }

  // Return the smallest base + Y, Y drawn from `rest` in order, that is fully bad (intermediate counts
  // as not yet), given base alone intermediate and base + rest bad; empty when an answer on the way was
  // untestable. The same progressive prefix bisection as solve(), with "bad" in place of "bad or
  // partial": what completes a partial cause.
  DeltaSet complete(const DeltaSet& base, const DeltaSet& rest) {
    DeltaSet found = base;
    std::vector<std::size_t> window(rest.begin(), rest.end());  // found + window is bad
    while (!window.empty()) {
      std::size_t lo = 0;
      std::size_t hi = window.size();
      while (hi - lo > 1) {
        const std::size_t mid = lo + (hi - lo) / 2;
        const DeltaSet piece(window.begin(), window.begin() + static_cast<std::ptrdiff_t>(mid));
        const Verdict verdict = ask(unite(found, piece), "complete the partial cause " + name(found) + ": test " +
                                                             name(piece) + " with it");
        if (verdict == Verdict::bad) {
          hi = mid;
        } else if (is_testable(verdict)) {
          lo = mid;
        } else {
          return {};
        }
      }
      found = unite(found, DeltaSet{window[hi - 1]});
      window.resize(hi - 1);
      if (window.empty()) {
        break;
      }
      const Verdict alone = ask(found, "is " + name(found) + " bad without " + name(sorted(window)) + "?");
      if (alone == Verdict::bad) {
        break;
      }
      if (!is_testable(alone)) {
        return {};
      }
    }
    return found;
  }

  // Return true when the search was boxed in or could not prove a cause minimal.
  bool uncertain() const { return !m_could_be.empty(); }

  // Return the candidate causes the uncertain parts of the search left open.
  const std::vector<DeltaSet>& could_be() const { return m_could_be; }

  // Return the sets the search asked that came back untestable: skip, then unstable.
  std::vector<DeltaSet> untestable(Verdict kind) const {
    std::vector<DeltaSet> out;
    for (const SearchStep& step : m_result.steps) {
      if (!step.assumed && step.verdict == kind) {
        out.push_back(step.applied);
      }
    }
    return out;
  }

  // Append every caveat gathered during the search to `notes`.
  void collect_notes(std::vector<std::string>& notes) const {
    notes.insert(notes.end(), m_notes.begin(), m_notes.end());
    for (const DeltaSet& set : m_unproven) {
      notes.push_back("minimality of " + name(set) + " unproven (a smaller set was untestable)");
    }
    for (const DeltaSet& set : m_intermediate) {
      notes.push_back("intermediate at " + name(set) + ": treated as bad, a partial cause");
    }
    for (const DeltaSet& set : m_unstable) {
      notes.push_back("unstable at " + name(set) + ": treated as untestable");
    }
  }

private:
  const Oracle& m_oracle;
  const IsolateOptions& m_options;
  Isolation& m_result;
  std::map<DeltaSet, Verdict> m_memo;
  std::vector<std::string> m_notes;
  std::vector<DeltaSet> m_unproven;
  std::vector<DeltaSet> m_could_be;  // candidate causes left open by boxed-in or unproven searches
  std::vector<DeltaSet> m_intermediate;
  std::vector<DeltaSet> m_unstable;
};

std::string join_parts(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) {
      out += separator;
    }
    out += part;
  }
  return out;
}

// Bad minus the causes (`remaining`) was untestable: ask its nearest testable neighbour, which reverts
// one more delta with the last cause (git bisect's answer to an untestable midpoint). When one answers
// and that delta is untestable alone on top of good as well, the two are untestable apart, as a renamed
// package's removal and addition are (bad without the new package still needs the old one, good with
// the old one removed needs the new one): the cause becomes both, measured whole on top of good, and
// the neighbour's verdict is the reverse check's. The cause alone stays named in the note;
// the coupled delta is in the cause because the evidence cannot take it out, never as needed on its own.
// Both facts must be learnt apart from the skipped set: with one delta left, its neighbour is the good
// anchor and it alone on top of good is the skipped set itself, so none is asked and nothing coupled.
// Return the reverse verdict: skip when no neighbour tried was testable.
Verdict revert_with_neighbour(Isolator& isolator, const IsolateOptions& options, DeltaSet& reverted, DeltaSet& remaining,
                              Isolation& result, bool& monotone, std::vector<std::string>& notes) {
  const DeltaSet cause = result.causes.back();
  const SetName name = [&](const DeltaSet& set) { return isolator.name(set); };
  if (remaining.size() < 2) {
    // One delta left: its only neighbour is the good anchor and "it alone on top of good" is the
    // skipped set itself, so neither question would learn anything (a failing mix looks the same).
    notes.push_back("bad minus " + name(reverted) + " is untestable: other causes not ruled out");
    return Verdict::skip;
  }
  const SearchAsk ask = [&](const DeltaSet& applied, const std::string& why) { return isolator.ask(applied, why); };
  const std::optional<RevertNeighbour> neighbour = testable_reverse_neighbour(cause, remaining, options, ask, name);
  if (!neighbour) {
    notes.push_back("bad minus " + name(reverted) + " is untestable, and so is each neighbour tried (bad minus it and " +
                    "one more difference): other causes not ruled out");
    return Verdict::skip;
  }
  const DeltaSet partner{neighbour->delta};
  // Untestable apart means the partner cannot be measured without the cause either: alone on top of
  // good it is untestable too (a package removed with its successor not yet there). A partner testable
  // alone is no coupling: the untestable reverse check then has another reason, not ruled out.
  const Verdict apart = isolator.ask(partner, "is " + name(partner) + " testable apart from " + name(cause) + ": " +
                                                  name(partner) + " alone on top of good");
  if (apart != Verdict::skip) {
    notes.push_back("bad minus " + name(reverted) + " is untestable; bad minus " + name(unite(reverted, partner)) +
                    " is " + std::string(to_string(neighbour->verdict)) + ", but " + name(partner) +
                    " alone on top of good is " + std::string(to_string(apart)) +
                    " (testable apart): other causes not ruled out");
    return Verdict::skip;
  }
  const DeltaSet joined = unite(cause, partner);
  const Verdict together = isolator.ask(joined, "measure the cause with the difference it is untestable apart from: " +
                                                    name(joined) + " on top of good");
  notes.push_back("bad minus " + name(reverted) + " is untestable and bad minus " + name(unite(reverted, partner)) +
                  " is " + std::string(to_string(neighbour->verdict)) + ": " + name(cause) + " and " + name(partner) +
                  " are untestable apart (bad cannot do without " + name(cause) + " unless without " + name(partner) +
                  " too, nor good take " + name(partner) + " without " + name(cause) +
                  ": a renamed package, or a package and one it needs), so the cause is " + name(joined) +
                  " as one; " + name(cause) + " alone on top of good is " +
                  std::string(to_string(result.cause_verdicts.back())));
  if (together == Verdict::good) {
    monotone = false;
    notes.push_back("cause " + name(joined) + " evaluated good: the effect is not monotone in the deltas");
  } else if (!is_testable(together)) {
    notes.push_back("cause " + name(joined) + " is untestable (" + std::string(to_string(together)) + ")");
  }
  result.causes.back() = joined;
  result.cause_verdicts.back() = together;
  result.coupled.back() = unite(result.coupled.back(), partner);
  reverted = unite(reverted, partner);
  remaining = subtract(remaining, partner);
  return neighbour->verdict;
}

// Set the outcome: not found (no monotone answer), ambiguous (what the answer rests on was not all
// measured: what it could be, and what would settle it), or found.
void conclude(Isolator& isolator, const DeltaSet& all, const DeltaSet& reverted, bool monotone, Isolation& result) {
  if (!monotone || result.cause.empty()) {
    result.outcome = IsolationOutcome::not_found;
  } else if (isolator.uncertain() || !result.verified_reverse || !result.verified_forward) {
    // Something the answer rests on was never measured: say what it could be and what would decide.
    result.outcome = IsolationOutcome::ambiguous;
    result.could_be.insert(result.could_be.end(), isolator.could_be().begin(), isolator.could_be().end());
    if (!result.verified_reverse) {
      result.could_be.push_back(reverted);
      result.could_be.push_back(all);
    } else if (!result.verified_forward) {
      result.could_be.insert(result.could_be.end(), result.causes.begin(), result.causes.end());
      result.could_be.push_back(all);
    }
    std::sort(result.could_be.begin(), result.could_be.end(), [](const DeltaSet& a, const DeltaSet& b) {
      return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    result.could_be.erase(std::unique(result.could_be.begin(), result.could_be.end()), result.could_be.end());
    std::vector<std::string> settle;
    for (const DeltaSet& set : isolator.untestable(Verdict::unstable)) {
      settle.push_back("re-measure " + isolator.name(set) + " with more runs (it was unstable; raise --max-runs)");
    }
    for (const DeltaSet& set : isolator.untestable(Verdict::skip)) {
      settle.push_back("make " + isolator.name(set) + " testable (it was skipped: the build or the benchmark could not test it)");
    }
    if (!result.verified_forward && settle.empty() && result.cause_verdicts.front() == Verdict::intermediate) {
      settle.push_back("good + " + isolator.name(result.cause) +
                       " is only intermediate: the rest of the effect needs other differences with it; test the "
                       "candidates above");
    } else if (settle.empty()) {
      settle.push_back("re-measure the candidates above with more runs (raise --max-runs): a verdict the answer "
                       "rests on did not hold");
    }
    result.settle = join_parts(settle, "; ");
  } else {
    result.outcome = IsolationOutcome::found;
  }
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
  // The first cause: while every answer is good or bad, an informed bisection that favours small
  // causes and merges "are the found deltas enough?" into its thresholds; on the first other answer,
  // the robust search starts over, its questions answered from the memo where already asked.
  std::optional<DeltaSet> informed;
  if (options.slots <= 1 && delta_count <= k_informed_max_deltas) {
    informed = informed_cause(
        delta_count,
        [&](const DeltaSet& applied, const std::string& why) {
          const Verdict verdict = isolator.ask(applied, why);
          return verdict == Verdict::bad    ? InformedAnswer::bad
                 : verdict == Verdict::good ? InformedAnswer::good
                                            : InformedAnswer::other;
        },
        [&](const DeltaSet& set) { return isolator.name(set); }, options.complement_first);
  }
  // Each round removes at least one delta, so this ends; it stops once bad minus the causes is good.
  while (!remaining.empty()) {
    const std::size_t round = result.causes.size() + 1;
    const DeltaSet cause = round == 1 && informed ? *informed : isolator.solve(remaining);
    const Verdict forward =
        isolator.ask(cause, "verify cause " + std::to_string(round) + " forward: " + isolator.name(cause) + " alone on top of good");
    result.causes.push_back(cause);
    result.cause_verdicts.push_back(forward);
    result.coupled.emplace_back();
    // Every cause is a set the search already judged bad, so this is normally a memo hit; it can only
    // disagree if the memo was bypassed, and then the world is not what the search assumed.
    if (forward == Verdict::good) {
      monotone = false;
      notes.push_back("cause " + isolator.name(cause) + " alone evaluated good: the effect is not monotone in the deltas");
    } else if (forward == Verdict::intermediate) {
      notes.push_back("cause " + isolator.name(cause) + " alone is intermediate: a partial cause");
    } else if (!is_testable(forward)) {
      notes.push_back("cause " + isolator.name(cause) + " alone is untestable (" + std::string(forward == Verdict::skip ? "skip" : "unstable") + ")");
    }
    reverted = unite(reverted, cause);
    remaining = subtract(remaining, cause);
    Verdict reverse = isolator.ask(remaining, "verify reverse: bad minus " + isolator.name(reverted) + " = " +
                                                  isolator.name(remaining) + " on top of good");
    if (reverse == Verdict::skip && monotone && counts_as_bad(forward)) {
      // Untestable, not noisy (unstable is not asked around): the nearest testable neighbour answers.
      reverse = revert_with_neighbour(isolator, options, reverted, remaining, result, monotone, notes);
      if (reverse == Verdict::skip) {
        break;
      }
    }
    if (reverse == Verdict::good) {
      result.verified_reverse = true;
      break;
    }
    if (!is_testable(reverse)) {
      notes.push_back("bad minus " + isolator.name(reverted) + " is untestable: other causes not ruled out");
      break;
    }
    if (!monotone) {
      break;
    }
    // Bad minus the causes is still (partly) bad: another independent cause lives in `remaining`.
    notes.push_back("bad minus " + isolator.name(reverted) + " is still " +
                    std::string(reverse == Verdict::bad ? "bad" : "intermediate") + ": another independent cause");
  }
  // Causes that are each only partial, with bad minus all of them good, may be one cause in pieces:
  // measure them together, and report them as one cause when that reproduces the effect.
  const bool all_partial = std::all_of(result.cause_verdicts.begin(), result.cause_verdicts.end(),
                                       [](Verdict v) { return v == Verdict::intermediate; });
  if (monotone && result.verified_reverse && result.causes.size() == 1 && all_partial && reverted != all) {
    // One partial cause, and bad without it is good: the rest of the effect comes from differences that
    // do nothing alone (A fails sometimes; A with B every time). Find the fewest that complete it.
    const DeltaSet completed = isolator.complete(reverted, subtract(all, reverted));
    if (!completed.empty()) {
      notes.push_back("cause " + isolator.name(reverted) + " alone is only partial; with " +
                      isolator.name(subtract(completed, reverted)) + " it is bad: one cause");
      result.causes = {completed};
      result.cause_verdicts = {Verdict::bad};
      result.united = true;
    }
  } else if (monotone && result.verified_reverse && result.causes.size() > 1 && all_partial) {
    const Verdict together = isolator.ask(reverted, "measure the partial causes together: " + isolator.name(reverted) +
                                                        " on top of good");
    if (together == Verdict::bad) {
      notes.push_back("the partial causes " + isolator.name(reverted) + " are bad together: one cause");
      result.causes = {reverted};
      result.cause_verdicts = {Verdict::bad};
      DeltaSet coupled;
      for (const DeltaSet& part : result.coupled) {
        coupled = unite(coupled, part);
      }
      result.coupled = {coupled};
      result.united = true;
    } else {
      notes.push_back("the partial causes " + isolator.name(reverted) + " together are only " +
                      std::string(to_string(together)));
    }
  }
  result.cause = result.causes.front();
  // Every cause reported must reproduce the whole effect on top of good; a partial one left over
  // (bad together with a full cause, or alone) is not a verified cause.
  result.verified_forward = std::all_of(result.cause_verdicts.begin(), result.cause_verdicts.end(),
                                        [](Verdict v) { return v == Verdict::bad; });
  // Replicate what the answer rests on, once, with more runs: a verdict reached on a few runs (an
  // outlier, an unlucky anchor) must not become a cause.
  if (options.recheck && monotone && result.verified_forward && result.verified_reverse) {
    recheck_answer(options, all, reverted, result, notes, [&](const DeltaSet& set) { return isolator.name(set); });
  }
  result.forward_is_anchor = result.cause == all;
  result.reverse_is_anchor = reverted == all;
  isolator.collect_notes(notes);
  result.note = join_parts(notes, "; ");
  conclude(isolator, all, reverted, monotone, result);
  result.found = result.outcome == IsolationOutcome::found;
  return result;
}

}  // namespace envbisect
