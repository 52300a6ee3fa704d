#include <catch2/catch.hpp>

#include "search/verify.hpp"

using envbisect::Contradiction;
using envbisect::DeltaSet;
using envbisect::monotone_contradictions;
using envbisect::SetVerdict;
using envbisect::Verdict;

TEST_CASE("monotone_contradictions pairs a good set with a bad set it holds", "[search][verify]") {
  // A race passed {0,1,2,3} once; {0,1} then failed: no monotone deterministic test gives both.
  const std::vector<SetVerdict> log = {{{0, 1, 2, 3}, Verdict::good}, {{0, 1, 2, 3, 4}, Verdict::bad},
                                       {{4}, Verdict::good},          {{0, 1, 4}, Verdict::bad},
                                       {{1, 4}, Verdict::good},       {{0, 1}, Verdict::bad}};
  const std::vector<Contradiction> found = monotone_contradictions(log, 4);
  REQUIRE(found.size() == 1);
  CHECK(found[0].good_side == DeltaSet{0, 1, 2, 3});
  CHECK(found[0].bad_side == DeltaSet{0, 1});
}

TEST_CASE("monotone_contradictions reads each set's last verdict only", "[search][verify]") {
  // {0,1,2} was good, then bad when measured again: it contradicts nothing any more.
  const std::vector<SetVerdict> log = {{{0, 1, 2}, Verdict::good}, {{0}, Verdict::bad}, {{0, 1, 2}, Verdict::bad}};
  CHECK(monotone_contradictions(log, 4).empty());
  // The reverse order: bad first, good last, contradicts {0}.
  const std::vector<SetVerdict> again = {{{0, 1, 2}, Verdict::bad}, {{0}, Verdict::bad}, {{0, 1, 2}, Verdict::good}};
  REQUIRE(monotone_contradictions(again, 4).size() == 1);
}

TEST_CASE("monotone_contradictions ignores consistent logs, other verdicts and the limit's excess", "[search][verify]") {
  // Supersets of bad sets that are bad, subsets of good sets that are good: a monotone effect.
  const std::vector<SetVerdict> consistent = {{{0}, Verdict::bad},    {{0, 1}, Verdict::bad}, {{1}, Verdict::good},
                                              {{1, 2}, Verdict::good}, {{2}, Verdict::good}, {{0, 2}, Verdict::bad}};
  CHECK(monotone_contradictions(consistent, 4).empty());
  // Unstable, skipped and intermediate verdicts are no side of a contradiction.
  const std::vector<SetVerdict> other = {{{0, 1}, Verdict::unstable}, {{0}, Verdict::bad},
                                         {{0, 2}, Verdict::skip},     {{1}, Verdict::intermediate},
                                         {{1, 2}, Verdict::good}};
  CHECK(monotone_contradictions(other, 4).empty());
  // Two disjoint contradictions, smallest good side first; the limit keeps the first.
  const std::vector<SetVerdict> two = {{{0, 1, 2}, Verdict::good}, {{0}, Verdict::bad}, {{3, 4}, Verdict::good},
                                       {{3}, Verdict::bad}};
  const std::vector<Contradiction> both = monotone_contradictions(two, 4);
  REQUIRE(both.size() == 2);
  CHECK(both[0].good_side == DeltaSet{3, 4});
  CHECK(both[1].good_side == DeltaSet{0, 1, 2});
  REQUIRE(monotone_contradictions(two, 1).size() == 1);
  // A set is a side of one pair at most.
  const std::vector<SetVerdict> shared = {{{0, 1}, Verdict::good}, {{0, 2}, Verdict::good}, {{0}, Verdict::bad}};
  CHECK(monotone_contradictions(shared, 4).size() == 1);
}
