#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <string>

#include "search/isolate.hpp"

using envbisect::DeltaSet;
using envbisect::Isolation;
using envbisect::IsolationOutcome;
using envbisect::Verdict;

namespace {

bool has(const DeltaSet& applied, std::size_t delta) {
  return std::binary_search(applied.begin(), applied.end(), delta);
}

// A renamed package among three differences: `old_removed` takes package old out, `new_added` puts
// package new in, the third is unrelated. The benchmark imports either package and cannot run with
// neither (skip); it is bad when new is installed. Records every question and fails on a repeat.
struct RenameWorld {
  std::size_t new_added;
  std::size_t old_removed;
  std::map<DeltaSet, int> asked;

  Verdict operator()(const DeltaSet& applied) {
    CHECK(++asked[applied] == 1);
    const bool new_installed = has(applied, new_added);
    const bool old_installed = !has(applied, old_removed);
    if (!new_installed && !old_installed) {
      return Verdict::skip;
    }
    return new_installed ? Verdict::bad : Verdict::good;
  }
};

}  // namespace

TEST_CASE("isolate asks the testable neighbour of an untestable reverse check: a renamed package", "[search][isolate]") {
  // As diff_states orders them: packages/new (added), packages/numpy (changed), packages/old (removed).
  RenameWorld world{0, 2, {}};
  const Isolation result = envbisect::isolate(3, [&](const DeltaSet& s) { return world(s); });
  INFO(result.note);
  // Bad minus {new} has neither package; bad minus {new}, keeping old, is testable and good.
  CHECK(world.asked.count(DeltaSet{1, 2}) == 1);
  CHECK(world.asked.count(DeltaSet{1}) == 1);
  CHECK(result.outcome == IsolationOutcome::found);
  CHECK(result.found);
  // The cause is the rename, both of its differences, stated as such: new alone on top of good is bad,
  // and it cannot be taken out of bad without putting old back.
  CHECK(result.cause == DeltaSet{0, 2});
  CHECK(result.causes == std::vector<DeltaSet>{{0, 2}});
  CHECK(result.coupled == std::vector<DeltaSet>{{2}});
  CHECK(result.cause_verdicts == std::vector<Verdict>{Verdict::bad});
  CHECK(result.verified_forward);
  CHECK(result.verified_reverse);
  CHECK(result.could_be.empty());
  CHECK(result.note ==
        "bad minus {0} is untestable and bad minus {0,2} is good: {0} and {2} are untestable apart (bad cannot "
        "do without {0} unless without {2} too, nor good take {2} without {0}: a renamed package, or a package "
        "and one it needs), so the cause is {0,2} as one; {0} alone on top of good is bad");
  // {0,1}, {0} (informed bisection), {1,2} (the untestable reverse), {2} (a neighbour with neither
  // package), {1} (the testable one), {0,2} (the cause measured whole).
  CHECK(result.evaluations == 6);
}

TEST_CASE("isolate finds the rename in every order of its differences", "[search][isolate]") {
  const std::array<std::array<std::size_t, 2>, 6> orders = {{{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}}};
  for (const auto& order : orders) {
    RenameWorld world{order[0], order[1], {}};
    const Isolation result = envbisect::isolate(3, [&](const DeltaSet& s) { return world(s); });
    const DeltaSet rename = order[0] < order[1] ? DeltaSet{order[0], order[1]} : DeltaSet{order[1], order[0]};
    INFO("new added " << order[0] << ", old removed " << order[1] << ": " << result.note);
    CHECK(result.outcome == IsolationOutcome::found);
    CHECK(result.cause == rename);
    CHECK(result.coupled == std::vector<DeltaSet>{{order[1]}});
    CHECK(result.verified_forward);
    CHECK(result.verified_reverse);
  }
}

TEST_CASE("isolate reverts the caller's partners first when bad minus a cause is untestable", "[search][isolate]") {
  // Ten differences: packages/new added first, eight unrelated, packages/old removed last. Every
  // neighbour of bad minus {0} but one still has neither package.
  envbisect::IsolateOptions options;
  RenameWorld plain{0, 9, {}};
  const Isolation unhinted = envbisect::isolate(10, [&](const DeltaSet& s) { return plain(s); }, options);
  INFO(unhinted.note);
  // In order, the neighbours tried (capped like a bisection step's splits) never reach delta 9.
  CHECK(unhinted.outcome == IsolationOutcome::ambiguous);
  CHECK(unhinted.note.find("so is each neighbour tried") != std::string::npos);
  // The caller knows delta 9 removes a package where delta 0 adds one: a rename's other half.
  options.partners = [](const DeltaSet& set) { return has(set, 0) ? DeltaSet{9} : DeltaSet{}; };
  RenameWorld hinted{0, 9, {}};
  const Isolation result = envbisect::isolate(10, [&](const DeltaSet& s) { return hinted(s); }, options);
  INFO(result.note);
  CHECK(result.found);
  CHECK(result.cause == DeltaSet{0, 9});
  CHECK(result.coupled == std::vector<DeltaSet>{{9}});
  CHECK(hinted.asked.count(DeltaSet{1, 2, 3, 4, 5, 6, 7, 8}) == 1);  // bad minus {0}, keeping old
}

TEST_CASE("isolate couples nothing when the rename is the whole difference", "[search][isolate]") {
  // Only packages/new added (0) and packages/old removed (1): bad minus {0} is {1} alone, its only
  // neighbour the good anchor. No question could show {1} untestable apart from {0} rather than a
  // failing mix, so the answer stays "{0}, or the rename".
  RenameWorld world{0, 1, {}};
  const Isolation result = envbisect::isolate(2, [&](const DeltaSet& s) { return world(s); });
  INFO(result.note);
  CHECK(result.outcome == IsolationOutcome::ambiguous);
  CHECK(result.coupled == std::vector<DeltaSet>{{}});
  CHECK(result.could_be == std::vector<DeltaSet>{{0}, {0, 1}});
  CHECK(result.note == "bad minus {0} is untestable: other causes not ruled out");
  CHECK(result.evaluations == 2);
}

TEST_CASE("isolate couples only a difference that is untestable apart", "[search][isolate]") {
  // Bad minus {3} alone is untestable (for a reason of its own); bad minus {0,3} is good, but {0} alone
  // on top of good is testable: no coupling, so the reverse check stays open, never found with {0}.
  const Isolation result = envbisect::isolate(8, [](const DeltaSet& applied) {
    if (applied == DeltaSet{0, 1, 2, 4, 5, 6, 7}) {
      return Verdict::skip;
    }
    return has(applied, 3) ? Verdict::bad : Verdict::good;
  });
  INFO(result.note);
  CHECK_FALSE(result.found);
  CHECK(result.outcome == IsolationOutcome::ambiguous);
  CHECK(result.cause == DeltaSet{3});
  CHECK(result.coupled == std::vector<DeltaSet>{{}});
  CHECK(result.note.find("but {0} alone on top of good is good (testable apart): other causes not ruled out") !=
        std::string::npos);
  CHECK(result.could_be == std::vector<DeltaSet>{{3}, {0, 1, 2, 3, 4, 5, 6, 7}});
}

TEST_CASE("isolate leaves the reverse check ambiguous when no neighbour of it is testable", "[search][isolate]") {
  // Every set without delta 3 and with at least 5 others is untestable: bad minus {3} and each of its
  // neighbours (bad minus {3} and one more) alike.
  const Isolation result = envbisect::isolate(8, [](const DeltaSet& applied) {
    if (!has(applied, 3) && applied.size() >= 5) {
      return Verdict::skip;
    }
    return has(applied, 3) ? Verdict::bad : Verdict::good;
  });
  INFO(result.note);
  CHECK_FALSE(result.found);
  CHECK(result.outcome == IsolationOutcome::ambiguous);
  CHECK(result.cause == DeltaSet{3});
  CHECK(result.coupled == std::vector<DeltaSet>{{}});
  CHECK_FALSE(result.verified_reverse);
  CHECK(result.note.find("bad minus {3} is untestable, and so is each neighbour tried") != std::string::npos);
  CHECK(result.note.find("other causes not ruled out") != std::string::npos);
  CHECK(result.could_be == std::vector<DeltaSet>{{3}, {0, 1, 2, 3, 4, 5, 6, 7}});
  // Neighbours tried are capped like the splits of a bisection step.
  const auto neighbours = std::count_if(result.steps.begin(), result.steps.end(), [](const envbisect::SearchStep& step) {
    return step.why.find("neighbour") != std::string::npos;
  });
  CHECK(neighbours == envbisect::IsolateOptions{}.max_split_attempts);
}

TEST_CASE("isolate asks no neighbour for an unstable reverse check", "[search][isolate]") {
  // Unstable is a noisy measurement, not an environment that cannot exist: no coupling follows.
  std::map<DeltaSet, int> asked;
  const Isolation result = envbisect::isolate(3, [&](const DeltaSet& applied) {
    ++asked[applied];
    if (applied == DeltaSet{1, 2}) {
      return Verdict::unstable;
    }
    return has(applied, 0) ? Verdict::bad : Verdict::good;
  });
  CHECK_FALSE(result.found);
  CHECK(result.cause == DeltaSet{0});
  CHECK(asked.count(DeltaSet{1}) == 0);
  CHECK(asked.count(DeltaSet{2}) == 0);
}
