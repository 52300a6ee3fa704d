#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "search/isolate.hpp"

namespace envbisect {

// What one question of the informed search came back as: good, bad, or anything else (skip,
// unstable, intermediate), which ends the informed search.
enum class InformedAnswer { good, bad, other };

// The informed search's window on the world: the answer for `applied` on top of good, asked with a
// `why` text for the journal.
using InformedAsk = std::function<InformedAnswer(const DeltaSet& applied, const std::string& why)>;

// The largest number of deltas the informed search takes on; beyond it the plain bisection runs.
inline constexpr std::size_t k_informed_max_deltas = 64;

// Return the prior weight of the shortest bad prefix having length 0..window (index = length) when
// `found` deltas of `delta_count` are known needed and the window holds `window` more: a cause of
// k members among n has weight w(k) / C(n, k), small causes weighing most. Length 0 (the found
// deltas are the whole cause) has weight 0 when nothing is found yet. Pure.
std::vector<double> prefix_length_weights(std::size_t delta_count, std::size_t found, std::size_t window);

// A search tree over the outcomes 0..count-1 of a threshold ("is the outcome at most t?"), least
// expected questions under given weights, with outcome 0 at most `zero_limit` questions deep and every
// other outcome at most `limit` deep (an optimal depth-limited alphabetic tree).
class ThresholdTree {
public:
  // Build the tree over outcomes first..weights.size()-1; infeasible() when the limits allow none.
  ThresholdTree(const std::vector<double>& weights, std::size_t first, std::size_t zero_limit, std::size_t limit);

  // Return true when no tree meets the limits.
  bool infeasible() const { return m_infeasible; }

  // Return the threshold to ask for outcomes a..b (a < b) reached after `depth` questions.
  std::size_t split(std::size_t a, std::size_t b, std::size_t depth) const {
    return m_split[(a * m_count + b) * (m_height + 1) + depth];
  }

private:
  std::size_t m_count = 0;
  std::size_t m_height = 0;
  std::vector<std::size_t> m_split;
  bool m_infeasible = false;
};

// Find a minimal cause among deltas 0..delta_count-1 ({} good and every delta bad are assumed, never
// asked) by a progressive prefix bisection whose thresholds follow a prior that favours causes of few
// members, with "are the found deltas enough on their own?" as one of the thresholds (length 0): the
// shortest bad prefix of the window on top of the found deltas names one more needed delta, or says the
// found deltas are the cause. The trees are depth-limited so that a cause of K members never takes more
// than K*(ceil(log2 n)+1)+1 questions, one more than the plain bisection's worst case. Every answer
// must be good or bad (a monotone world is assumed; verification is the caller's): the first other
// answer returns nullopt, so that the caller can fall back to its robust search with the answers it
// memoised. delta_count must be 1..k_informed_max_deltas; throw Error otherwise. Pure: calls only `ask`.
//
// With `complement_first` set and returning true when asked (good answers cost more than bad ones, as
// on failure rates, where "good" takes many clean runs and "bad" a few failures), the question that
// pins the first needed delta d between two neighbouring lengths asks "bad minus d" first:
// good there says d is needed (monotone: the shorter prefix lies inside it) and is the very candidate
// the reverse verification of a one-delta cause asks, so that good answer serves twice. Any other answer
// says nothing on its own, and the prefix question follows: at most one question more in all.
std::optional<DeltaSet> informed_cause(std::size_t delta_count, const InformedAsk& ask,
                                       const std::function<std::string(const DeltaSet&)>& name,
                                       const std::function<bool()>& complement_first = {});

}  // namespace envbisect
