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

// The largest number of deltas searched by a posterior over every cause of up to three members
// (every subset a question); more deltas get the weighted prefix bisection.
inline constexpr std::size_t k_posterior_max_deltas = 10;

// Return the prior weight of the shortest bad prefix having length 0..window (index = length) when
// `found` deltas of `delta_count` are known needed and the window holds `window` more: a cause of
// k members among n has weight size_weight(k) / C(n, k), small causes weighing most. Length 0 (the
// found deltas are the whole cause) has weight 0 when nothing is found yet. Pure.
std::vector<double> prefix_length_weights(std::size_t delta_count, std::size_t found, std::size_t window);

// Return, for every range [a, b] of outcomes 0..weights.size()-1, the threshold t (a <= t < b) to ask
// first ("is the outcome at most t?") so that the expected number of questions under `weights` is
// least (an optimal alphabetic search tree), as split[a][b]; ties go to the threshold nearest the
// middle of the range. Pure.
std::vector<std::vector<std::size_t>> threshold_splits(const std::vector<double>& weights);

// Find a minimal cause among deltas 0..delta_count-1 ({} good and every delta bad are assumed, never
// asked). Up to k_posterior_max_deltas deltas: keep every cause of one to three members that fits the
// answers, weighted by a prior, and ask the set whose answer leaves the least expected entropy plus
// pending verifications, until one is left, which is asked alone (bad) before it is returned; when
// none is left (a larger cause, several causes), return nullopt. Beyond that: a progressive prefix
// bisection whose thresholds are weighted by a prior that favours small causes, with "are the found
// deltas enough on their own?" as one of the thresholds: the shortest bad prefix of the window on top
// of the found deltas names one more needed delta, or (length 0) says the found deltas are the cause.
// Every answer must be good or bad (a monotone world is assumed; verification is the caller's): the
// first other answer returns nullopt, so that the caller can fall back to its robust search with the
// answers it memoised. delta_count must be 1..k_informed_max_deltas. Pure: calls only `ask`.
std::optional<DeltaSet> informed_cause(std::size_t delta_count, const InformedAsk& ask,
                                       const std::function<std::string(const DeltaSet&)>& name);

}  // namespace envbisect
