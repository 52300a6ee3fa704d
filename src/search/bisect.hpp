#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/outcome.hpp"

namespace envbisect {

// The ordered search's window on the world: the verdict for the state at `index` on an ordered axis
// (a list of versions, of commits, of dates).
using IndexOracle = std::function<Verdict(std::size_t index)>;

// How the notes and reasons of a search name the point at `index` (a version, a commit id); an empty
// function names it by its index.
using PointLabel = std::function<std::string(std::size_t index)>;

// Return `label`'s name for `index`, or the index itself when `label` is empty.
std::string point_label(const PointLabel& label, std::size_t index);

// Return the points low..high (inclusive) named through `label`: "a", "a,b", or "a to z (n)".
std::string describe_points(const PointLabel& label, std::size_t low, std::size_t high);

// One point the bisection asked about, and why.
struct BisectStep {
  std::size_t index = 0;
  Verdict verdict = Verdict::skip;
  std::string why;  // e.g. "bisect 1..14: test midpoint 7"
  bool assumed = false;  // true for the two ends the caller measured; not asked, not counted
};

// The outcome of bisecting an ordered axis.
struct Bisection {
  bool found = false;          // true when exactly one index is the first bad one
  std::size_t last_good = 0;   // the highest index known good
  std::size_t first_bad = 0;   // the lowest index known bad; when !found, the first bad is in
                               // last_good+1..first_bad (the indices between were untestable)
  std::string note;            // caveats: "could be any of 4..7", intermediate points
  std::vector<BisectStep> steps;  // the two assumed ends first, then every question in order
  int evaluations = 0;         // questions actually asked (assumed ends excluded)
};

// Find the first bad index of 0..count-1, git-bisect style, given (assumed, never asked) that 0 is
// good and count-1 is bad. Intermediate counts as bad (noted); skip and unstable points are untestable:
// the neighbours of an untestable midpoint are tried, nearest first. Pure: calls only `oracle`, never
// twice for one index; about ceil(log2(count-1)) questions without skips. Notes and reasons name
// points through `label`.
Bisection first_bad(std::size_t count, const IndexOracle& oracle, const PointLabel& label = {});

}  // namespace envbisect
