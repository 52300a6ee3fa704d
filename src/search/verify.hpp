#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "search/isolate.hpp"

namespace envbisect {

// The search's question: the verdict for `applied` on top of good, with why it is asked (the caller
// keeps the memo and the journal of steps).
using SearchAsk = std::function<Verdict(const DeltaSet& applied, const std::string& why)>;

// Names a set in why texts and notes.
using SetName = std::function<std::string(const DeltaSet&)>;

// A delta reverted together with a cause because bad minus the cause alone was untestable, and the
// verdict of bad minus both.
struct RevertNeighbour {
  std::size_t delta = 0;
  Verdict verdict = Verdict::skip;
};

// Return the nearest testable neighbour of an untestable reverse check, whose set is `remaining` (bad
// minus the causes so far, `cause` the last of them): `remaining` less one more delta, the deltas of
// options.partners(cause) first, then the others in order, at most options.max_split_attempts
// questions; the first that comes back good, bad or intermediate. nullopt when each one tried was
// untestable too (skip or unstable).
std::optional<RevertNeighbour> testable_reverse_neighbour(const DeltaSet& cause, const DeltaSet& remaining,
                                                          const IsolateOptions& options, const SearchAsk& ask,
                                                          const SetName& name);

// Measure again, through options.recheck, what a verified answer rests on: each cause (bad), each
// cause's found part (the cause less its coupled deltas) without one member (not bad: every member
// needed) and bad minus the causes, `reverted` (good). A re-measurement that disagrees unverifies the
// answer (verified_forward or verified_reverse false, the doubtful set added to could_be) and says why
// in `notes`.
void recheck_answer(const IsolateOptions& options, const DeltaSet& all, const DeltaSet& reverted, Isolation& result,
                    std::vector<std::string>& notes, const SetName& name);

// A set's latest verdict (sets on top of good, sorted).
struct SetVerdict {
  DeltaSet applied;
  Verdict verdict = Verdict::skip;
};

// Two verdicts no deterministic test whose effect grows with the differences gives: `good_side` was
// judged good although it holds every difference of `bad_side`, judged bad.
struct Contradiction {
  DeltaSet good_side;
  DeltaSet bad_side;
};

// Return the contradictions among `verdicts` (a set's last entry counts), smallest good side first,
// then smallest bad side; each set in at most one pair, at most `limit` pairs.
std::vector<Contradiction> monotone_contradictions(const std::vector<SetVerdict>& verdicts, std::size_t limit);

}  // namespace envbisect
