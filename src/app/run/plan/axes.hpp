#pragma once

#include <functional>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/delta.hpp"
#include "core/state.hpp"
#include "env/git_history.hpp"
#include "search/bisect.hpp"
#include "search/kary.hpp"

namespace envbisect {

// An integer range from..to (either direction, both ends included), never listed: a thread knob from
// 1 to 2^63-1 is two numbers, and its points are computed when asked.
struct NumberRange {
  std::int64_t from = 0;
  std::int64_t to = 0;
};

// An ordered axis inside one delta: the values from its good end to its bad end, both included.
struct Axis {
  std::size_t delta = 0;            // index of the delta the axis refines
  std::string kind;                 // "versions", "commits" or "numbers"
  // The listed points (versions, commits): points.front() is the good value, points.back() the bad
  // one. Empty for a numbers axis, whose points are `numbers`: read every axis through size() and point().
  std::vector<std::string> points;
  std::optional<NumberRange> numbers;
  // Commits of a DAG range (not --first-parent): for each of points[1..], its parents inside the
  // range as indices into `points` (0, the good end, never appears: out-of-range parents are good).
  // Empty for a chain (versions, numbers, first-parent commits).
  std::vector<std::vector<std::size_t>> parents;
  // A versions axis of packages pinned to each other (torch and triton): per point, the versions its
  // pinned partners take there, read from the point's Requires-Dist. Empty for a package alone.
  std::vector<std::map<std::string, std::string>> companions;
  // A commits axis whose good end is not an ancestor of the bad one: the merge bases of the two. The
  // range's commits leave it only through their ancestors, so each must be good before the range is
  // bisected (git bisect tests them first; a bad one means the change was fixed, not introduced).
  std::vector<std::string> merge_bases;
  // A commits axis: for each point whose parents all lie outside the range and are not just the good
  // end (a branch forked before good, a root commit), why the "last good" shown for it is the good end
  // and not its parent.
  std::map<std::size_t, std::string> parent_notes;

  // Return the number of points, the two ends included.
  std::size_t size() const;

  // Return the point at `index` (0 the good end, size()-1 the bad one). Throw std::out_of_range past the end.
  std::string point(std::size_t index) const;
};

// Return the points of `axis` for people: all of them, " < " between, when there are at most
// `max_shown`; else the first and last few around "..." and the count.
std::string describe_axis_points(const Axis& axis, std::size_t max_shown);

// Return the points of `axis` for the journal: the array of every point for a listed axis or a range
// of at most 1000 numbers, else {"from", "to", "count"} (a range is never materialised).
nlohmann::json axis_points_json(const Axis& axis);

// Return the ordered axes of the deltas: package versions between the good and bad versions found in
// the wheel folders (PEP 440 order; a change of local label only, +cu128 -> +cu130, is a variant, not
// an axis), commits between the good and bad commits of a repo (the whole DAG `git rev-list bad ^good`
// as git bisect walks it, or the first-parent chain with FirstParent::yes), and thread counts between
// the two values. Deltas without inner points get no axis.
std::vector<Axis> plan_axes(const std::vector<Delta>& deltas, const EnvState& good, const EnvState& bad,
                            const std::vector<std::string>& wheel_dirs, FirstParent first_parent);

// Find the first bad point of `axis` (0 assumed good, the last assumed bad): git's DAG bisection when
// the axis has parents, a plain bisection of the chain otherwise. Steps and indices refer to `points`.
Bisection bisect_axis(const Axis& axis, const IndexOracle& oracle);

// Find the first bad point of `axis` as bisect_axis() does, asking up to `slots` points a round
// through `oracle` (a caller with k slots measures a round's points side by side): kary_first_bad on
// a chain, dag_first_bad_k on a DAG with merges; slots <= 1 asks bisect_axis()'s questions, one a round.
KaryBisection bisect_axis_k(const Axis& axis, std::size_t slots, const BatchIndexOracle& oracle);

// Return `state` with the axis's delta set to the axis point `index`.
EnvState with_axis_point(const EnvState& state, const std::vector<Delta>& deltas, const Axis& axis,
                         std::size_t index);

// Return the worst-case number of evaluations of isolating K culprits among D deltas without skips:
// the prefix bisection's K*(ceil(log2 D)+1), one question the informed search may lean by, plus the
// reverse verification; 0 for one delta (it is the cause,
// and both verifications are the anchors).
int isolation_worst_case(std::size_t delta_count, std::size_t culprits);

// Return the worst-case number of questions of bisecting an axis of `points` points (ends known).
int bisection_worst_case(std::size_t points);

// Make the axes of pinned groups move as the group does: the first package of a unit with a versions
// axis leads, each inner point carries the partners' versions its Requires-Dist pins (the highest
// version in the partner's good..bad range that satisfies it); points no partner version satisfies
// are dropped, and the partners' own axes go (a partner alone cannot move). Metadata is read from the
// wheels' central directories (or uv archives), never unpacked; the folders are listed once.
void pin_group_axes(std::vector<Axis>& axes, const std::vector<Delta>& deltas,
                    const std::vector<std::vector<std::size_t>>& units, const EnvState& bad,
                    const std::vector<std::string>& wheel_dirs, const std::vector<std::string>& uv_caches);

}  // namespace envbisect
