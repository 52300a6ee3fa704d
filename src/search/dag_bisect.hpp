#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/outcome.hpp"
#include "search/bisect.hpp"

namespace envbisect {

// One commit of the range to bisect, as the search sees it: its parents inside the range.
struct DagNode {
  std::vector<std::size_t> parents;  // indices of in-range parents, each lower than the node's own index
};

// The DAG search's window on the world: the verdict for the commit at `node`.
using DagOracle = std::function<Verdict(std::size_t node)>;

// The k-slot DAG search's window on the world: the verdicts for several commits at once, in the order
// asked (a caller with k slots measures them side by side).
using DagBatchOracle = std::function<std::vector<Verdict>(const std::vector<std::size_t>& nodes)>;

// One commit the DAG bisection asked about, and why.
struct DagStep {
  std::size_t node = 0;
  Verdict verdict = Verdict::skip;
  std::string why;  // e.g. "12 candidates: test 5, reaching 6 of them"
};

// The outcome of bisecting a commit DAG.
struct DagBisection {
  bool found = false;                  // true when exactly one commit is the first bad one
  std::size_t first_bad = 0;           // the first bad commit when found; else the lowest bad one known
  std::vector<std::size_t> could_be;   // when !found: every remaining candidate ("could be any of"),
                                       // ascending; the untestable ones and the lowest known bad
  std::string note;                    // caveats: intermediate and untestable commits, boxed in
  std::vector<DagStep> steps;          // every question in order (the bad tip is assumed, not listed)
  int evaluations = 0;                 // questions asked
};

// Find the first bad commit of a range given as a DAG in topological order whose last node is the
// bad tip (assumed bad, never asked) and whose out-of-range parents are all good (assumed), the way
// git bisect does: the candidates are the ancestors of the lowest known bad commit that are not
// ancestors of a good one; each question goes to the commit git's find_bisection picks (nodes in
// index order standing for git's oldest-first list: the first commit found within one of halfway,
// else the first that maximises min(reach, candidates - reach), where reach counts its candidate
// ancestors, itself included). When that commit was untestable, the untested candidate with the best
// such score is asked instead (ties to the highest index). Intermediate counts as bad
// (noted); skip and unstable are untestable: the next best candidate by the same score is asked
// instead; when only untestable candidates are left, `could_be` lists them with the bad commit.
// Pure: calls only `oracle`, never twice for one node; ceil(log2(n)) questions on a chain of n
// without skips. Throw Error when a parent index is not lower than its node's index. Notes and
// reasons name nodes through `label`.
DagBisection dag_first_bad(const std::vector<DagNode>& nodes, const DagOracle& oracle, const PointLabel& label = {});

// The outcome of a k-slot DAG bisection: the same fields as dag_first_bad() gives, and how many rounds
// (batches of at most k questions) it took.
struct DagKaryBisection {
  DagBisection bisection;  // steps in the order asked, round by round; evaluations = every question
  int rounds = 0;          // batches asked
};

// Find the first bad commit of a range as dag_first_bad() does, asking up to `k` untested candidates
// per round: with C candidates, those whose reach is closest to j*C/(k+1), j = 1..k (distinct, each
// falling back to the next best), so the candidates shrink about k+1-fold a round; k = 1 (and 0) asks
// exactly dag_first_bad()'s questions. After a round every verdict applies: the candidates become the
// common ancestors of all bad (and intermediate) commits that are not ancestors of a good one; skip and
// unstable commits are untestable and never asked again. One candidate left, bad or never asked, is
// the first bad (noted when inferred from bad descendants without being asked). Boxed in by untestable
// candidates, `could_be` lists them with the lowest bad commits (bad, no bad ancestor; several when
// bad commits on two lines leave only untestable common ancestors; `first_bad` the lowest-numbered);
// contradictory verdicts that leave no candidate end the search, not found. Pure: calls only
// `oracle`, never twice for one node. Throw Error when a parent index is not lower than its node's.
// Notes and reasons name nodes through `label`.
DagKaryBisection dag_first_bad_k(const std::vector<DagNode>& nodes, std::size_t k, const DagBatchOracle& oracle,
                                 const PointLabel& label = {});

}  // namespace envbisect
