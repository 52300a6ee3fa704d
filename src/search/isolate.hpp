#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/outcome.hpp"

namespace envbisect {

// A set of applied deltas, as sorted indices into the run's delta list. {} is the good state,
// {0..n-1} the bad state.
using DeltaSet = std::vector<std::size_t>;

// The search's only window on the world: the verdict for the good state with `applied` deltas applied.
using Oracle = std::function<Verdict(const DeltaSet& applied)>;

// One question the search asked, and why.
struct SearchStep {
  DeltaSet applied;
  Verdict verdict;
  std::string why;  // e.g. "bisect the prefixes of {0..6} on top of {}: test {0..2}"
  bool assumed = false;  // true for the two anchors the caller measured; not asked, not counted
};

// Knobs of the isolation; the defaults suit real (expensive) oracles.
struct IsolateOptions {
  std::function<std::string(const DeltaSet&)> describe;  // names a set in why texts and notes; default describe()
  int max_split_attempts = 6;  // lengths tried per bisection step and orientation before calling it boxed in by skips
  // With slots > 1 each bisection step asks about `slots` prefix lengths at once (k-ary, about
  // log_{k+1} rounds), announcing them first through `prefetch` so the caller can measure them side
  // by side; the cause found is the same as with one slot (the shortest bad prefix is unique).
  std::size_t slots = 1;
  std::function<void(const std::vector<DeltaSet>&)> prefetch;  // the sets about to be asked; may be empty
  // When set, each cause (unless it is every difference) and bad minus the causes are measured once
  // more before the answer is trusted: the verdict after more runs. A cause that is then not bad, or
  // a reverse set that is not good, makes the outcome ambiguous. Unset: the memo's verdicts stand.
  std::function<Verdict(const DeltaSet&)> recheck;
  // When bad minus a cause is untestable, the deltas to revert with the cause first (a renamed
  // package's other half: where the cause adds a package, the deltas that remove one); may be empty.
  // The other deltas follow in order. Unset: order alone.
  std::function<DeltaSet(const DeltaSet&)> partners;
  // Asked before the informed search's last question for the first needed delta: true where a good
  // answer costs more than a bad one (failure rates), so that "bad minus that delta" is asked first
  // (informed_cause()). Unset: never.
  std::function<bool()> complement_first;
};

// What the isolation can honestly claim.
enum class IsolationOutcome {
  found,      // a minimal cause, bad on top of good, and bad without the causes is good
  ambiguous,  // one of `could_be` (or a partial cause) explains it; `settle` says what would decide
  not_found,  // the effect did not behave like a set of causes (not monotone), or nothing to isolate
};

// The outcome of isolating a minimal cause.
struct Isolation {
  IsolationOutcome outcome = IsolationOutcome::not_found;
  bool found = false;      // outcome == found
  DeltaSet cause;          // minimal: applying it to good gives bad; removing any member not coupled does not
  bool verified_forward = false;   // good + cause evaluated bad
  bool verified_reverse = false;   // bad - (all causes) evaluated good
  std::string note;        // why not found / caveats ("could be any of ...")
  std::vector<SearchStep> steps;   // the two assumed anchors first, then every question in order
  int evaluations = 0;     // questions actually asked (assumed anchors and memo hits excluded)
  std::vector<DeltaSet> causes;           // independent causes in the order found; causes[0] == cause
  std::vector<Verdict> cause_verdicts;    // forward verdict of each cause alone on top of good
  std::vector<DeltaSet> coupled;          // per cause: members in it only as untestable apart from the rest (isolate())
  std::vector<DeltaSet> ambiguous;        // groups skips kept whole: "could be any of" these
  std::vector<DeltaSet> could_be;         // when ambiguous: the candidate causes it could be, smallest first
  std::string settle;                     // when ambiguous: which candidates to re-measure, and how
  bool forward_is_anchor = false;  // the cause is every difference: good + cause is the bad anchor itself
  bool reverse_is_anchor = false;  // the causes are every difference: bad - causes is the good anchor itself
  bool united = false;             // the cause is the union of partial causes, measured bad together
};

// Find a minimal set of deltas that, applied to good, reproduces bad -- including interactions (deltas
// that are bad only together) -- then verify it both ways, and repeat on the rest while bad minus the
// causes found so far is still bad. Assumes (never asks) {} good and {0..n-1} bad. The search is a
// progressive prefix bisection: the shortest bad prefix names one needed delta, the search goes on
// inside the deltas before it with that delta applied, until the deltas found are bad on their own:
// at most K*(ceil(log2 n)+1) questions for K culprits among n, plus the reverse verification. With one
// slot and at most 64 deltas, the first cause is sought by informed_cause() (thresholds weighted
// toward small causes, at worst one question more) while every answer is good or bad; the first other answer
// hands over to the robust search, which gets the answers already given from the memo.
// Honest outcomes: boxed in by untestable mixes, minimality unproven because a smaller set was
// untestable, or a verification that could not be made is `ambiguous` (never found); causes that are
// each only intermediate, with bad minus all of them good, are measured together on top of good and
// reported as one cause when that is bad. An untestable (skip) reverse check asks its nearest testable
// neighbour, bad minus the cause and one more delta (options.partners first); when that one answers and
// the delta is untestable alone on top of good too, the two are untestable apart (a renamed package's
// removal and addition): the cause becomes both, measured whole, `coupled` names the delta and the note
// says the cause alone was bad. Pure: calls only `oracle`, never twice for the same set.
Isolation isolate(std::size_t delta_count, const Oracle& oracle);

// Same as isolate(delta_count, oracle), with explicit options.
Isolation isolate(std::size_t delta_count, const Oracle& oracle, const IsolateOptions& options);

// Return a compact, human form of a delta set: "{0..3,7,9}" (runs of three or more as a..b).
std::string describe(const DeltaSet& deltas);

}  // namespace envbisect
