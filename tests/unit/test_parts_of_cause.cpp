// The parts an interaction answer holds to "good": what the search found good, and the cause less each
// member (every member is needed exactly when each of those is good).
#include <catch2/catch.hpp>

#include "app/run/refine/stages.hpp"

using namespace envbisect;

namespace {

SearchStep step(DeltaSet applied, Verdict verdict) {
  SearchStep s;
  s.applied = std::move(applied);
  s.verdict = verdict;
  return s;
}

}  // namespace

TEST_CASE("good_parts_of_cause holds the cause less each member, not only the parts asked", "[refine][parts]") {
  Isolation isolation;
  isolation.found = true;
  isolation.cause = {0, 2, 3};
  // The search found {2} good and {0, 2, 3, 5} bad; {0, 2} it never asked.
  isolation.steps = {step({2}, Verdict::good), step({0, 2, 3, 5}, Verdict::bad), step({4}, Verdict::good)};
  const std::vector<DeltaSet> parts = good_parts_of_cause(isolation);
  CHECK(parts == std::vector<DeltaSet>{{2}, {2, 3}, {0, 3}, {0, 2}});
  // A single difference has no parts; a union of partial causes claims no part good.
  isolation.cause = {4};
  CHECK(good_parts_of_cause(isolation).empty());
  isolation.cause = {0, 2};
  isolation.united = true;
  CHECK(good_parts_of_cause(isolation) == std::vector<DeltaSet>{{2}});
  // Less a coupled member (untestable apart from its partner) is no part to hold.
  isolation.united = false;
  isolation.cause = {1, 6, 7};
  isolation.coupled = {{6, 7}};
  isolation.steps.clear();
  CHECK(good_parts_of_cause(isolation) == std::vector<DeltaSet>{{6, 7}});
}
