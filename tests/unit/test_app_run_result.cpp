#include <catch2/catch.hpp>

#include "app/run/result.hpp"

#include <sstream>

using namespace envbisect;

TEST_CASE("the effect claims a direction only where its interval shows one", "[run_result]") {
  Recipe recipe;
  recipe.metric = "tok_per_s";
  recipe.higher_is_better = true;
  recipe.unit = "tok/s";
  const std::vector<double> good = {180.0, 182.0, 179.0, 181.0, 183.0, 178.0, 180.5};
  // The 1-GPU incident: the cause failed 5 of its 6 runs, so one finished run stands against seven.
  const nlohmann::json one = cause_effect(good, {160.0}, EffectOf::cause, recipe);
  REQUIRE(one.is_object());
  CHECK(one["low"].is_null());
  CHECK(one["words"] == "too few runs to size a change (1 with it, 7 good)");
  // Runs that finished as fast as good's: the interval holds 1x, so neither faster nor slower.
  const nlohmann::json same = cause_effect(good, {181.0, 179.5, 180.2, 182.5, 178.5, 180.8, 181.7}, EffectOf::cause, recipe);
  REQUIRE(same["low"].is_number());
  CHECK(same["low"].get<double>() <= 1.0);
  CHECK(same["high"].get<double>() >= 1.0);
  CHECK(same["words"] == "no change shown (the interval holds 1x)");
  // A clear slowdown keeps its words.
  const nlohmann::json slow = cause_effect(good, {36.0, 35.5, 36.4, 35.9, 36.1, 36.3, 35.7}, EffectOf::cause, recipe);
  CHECK(slow["high"].get<double>() < 1.0);
  CHECK(slow["words"] == "5.01x slower");  // 180 / 35.95
}

TEST_CASE("the effect of a cause the run could not verify is labelled as isolated so far", "[run_result]") {
  // run16's first session stopped at its budget with the pair isolated and unverified, and printed
  // "effect of the cause: fails 12 of 12 runs" as of a verified cause.
  Recipe recipe;
  recipe.metric = "tok_per_s";
  const std::vector<Delta> deltas;
  const std::vector<nlohmann::json> log;
  Isolation isolation;
  isolation.found = true;
  isolation.verified_forward = true;
  isolation.verified_reverse = false;
  Findings findings{deltas, recipe, isolation, nlohmann::json::array(), nlohmann::json::array(), nullptr,
                    {{"of", "cause"}, {"failures", {{"from", 0}, {"from_runs", 11}, {"to", 12}, {"to_runs", 12}}}},
                    {}, {}, log, false, 6, 4, 30, 0, 100.0, nullptr};
  const nlohmann::json result = {{"outcome", "found"}};
  std::ostringstream unverified;
  print_summary(unverified, findings, result, "/runs/x");
  CHECK(unverified.str().find("effect of the cause isolated so far (not verified): fails 12 of 12 runs (good: 0 of 11)") !=
        std::string::npos);
  isolation.verified_reverse = true;
  std::ostringstream verified;
  print_summary(verified, findings, result, "/runs/x");
  CHECK(verified.str().find("effect of the cause: fails 12 of 12 runs (good: 0 of 11)") != std::string::npos);
}

TEST_CASE("result.json names a cause only when it is found and a guess leads could_be", "[run_result]") {
  // Issue 36: an unverified pair sat in `cause` beside "found": false, and a script reading `cause`
  // took the guess for the answer.
  Recipe recipe;
  recipe.metric = "m";
  Delta threads;
  threads.dimension = Dimension::threads;
  threads.name = "workers";
  Delta cache;
  cache.dimension = Dimension::caches;
  cache.name = "c";
  const std::vector<Delta> deltas = {cache, threads};
  const std::vector<nlohmann::json> log;
  Isolation isolation;
  isolation.outcome = IsolationOutcome::ambiguous;
  isolation.cause = {0, 1};
  isolation.causes = {{0, 1}};
  isolation.could_be = {{1}};
  stats::Preflight anchors;
  anchors.distinguishable = true;
  const Findings unverified{deltas, recipe, isolation, nlohmann::json::array(), nlohmann::json::array(), nullptr,
                            nullptr, anchors, anchors, log, false, 5, 4, 20, 0, 60.0, nullptr};
  const nlohmann::json guess = result_json(unverified);
  CHECK(guess["found"] == false);
  CHECK(guess["outcome"] == "ambiguous");  // not "not_verified": no single cause was isolated to verify
  CHECK(guess["cause"].empty());
  CHECK(guess["causes"].empty());
  REQUIRE(guess["could_be"].size() == 2);
  CHECK(guess["could_be"][0].size() == 2);  // the isolated pair first, then the search's own could-be
  CHECK(guess["could_be"][1][0]["name"] == "workers");

  isolation.outcome = IsolationOutcome::found;
  isolation.found = isolation.verified_forward = isolation.verified_reverse = true;
  isolation.cause = isolation.causes[0] = {1};
  isolation.could_be.clear();
  const Findings verified{deltas, recipe, isolation, nlohmann::json::array(), nlohmann::json::array(), nullptr,
                          nullptr, anchors, anchors, log, false, 5, 4, 20, 0, 60.0, nullptr};
  const nlohmann::json found = result_json(verified);
  CHECK(found["found"] == true);
  REQUIRE(found["cause"].size() == 1);
  CHECK(found["cause"][0]["name"] == "workers");
  CHECK(found["could_be"].empty());
}

TEST_CASE("result.json opens with the answer and keeps every key", "[run_result]") {
  // nlohmann::json sorts its keys: the file opened with "anchor_runs", "anchors", "attempts_reused",
  // and the cause came after a screenful of bookkeeping.
  Recipe recipe;
  recipe.metric = "m";
  Delta cache;
  cache.dimension = Dimension::caches;
  cache.name = "c";
  const std::vector<Delta> deltas = {cache};
  const std::vector<nlohmann::json> log;
  Isolation isolation;
  isolation.outcome = IsolationOutcome::found;
  isolation.found = isolation.verified_forward = isolation.verified_reverse = true;
  isolation.cause = {0};
  isolation.causes = {{0}};
  stats::Preflight anchors;
  anchors.distinguishable = true;
  const nlohmann::json effect = {{"of", "cause"}, {"ratio", 0.2}, {"low", 0.19}, {"high", 0.21}, {"words", "5x slower"}};
  const Findings findings{deltas, recipe, isolation, nlohmann::json::array(), nlohmann::json::array(), nullptr,
                          effect, anchors, anchors, log, false, 5, 4, 20, 0, 60.0, nullptr};
  nlohmann::json result = result_json(findings);
  result["probes_pending"] = true;
  result["zz_later_key"] = 1;  // a key the order does not name still comes out, last
  const std::string text = result_file_text(result);
  const nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(text);
  std::vector<std::string> keys;
  for (const auto& item : parsed.items()) {
    keys.push_back(item.key());
  }
  REQUIRE(keys.size() >= 6);
  CHECK(std::vector<std::string>(keys.begin(), keys.begin() + 6) ==
        std::vector<std::string>{"found", "outcome", "cause", "verified", "rereads_anchors", "effect"});
  CHECK(keys.back() == "zz_later_key");
  CHECK(keys.size() == result.size());
  CHECK(nlohmann::json::parse(text) == result);  // the same document, only in another order
  CHECK(text.rfind("{\n  \"found\": true,\n  \"outcome\": \"found\",\n  \"cause\": [", 0) == 0);
}

TEST_CASE("noise and load reach the terminal as one line each, however many decisions they cover",
          "[run_result]") {
  // On a loaded machine 14 of 17 verdict lines ended in "noisy: CV ... > 10 %".
  report::Answer answer;
  answer.noise = "16 of 17 decisions noisy, CV 13–50 %";
  answer.load = "14 of 17 decisions ran at a higher load than the anchors";
  const std::vector<std::string> lines = caveat_lines(answer);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].rfind("noise: 16 of 17 decisions noisy, CV 13–50 %", 0) == 0);
  CHECK(lines[1].rfind("load: 14 of 17 decisions ran at a higher load than the anchors", 0) == 0);
  CHECK(caveat_lines(report::Answer{}).empty());

  Recipe recipe;
  recipe.metric = "m";
  const std::vector<Delta> deltas;
  const std::vector<nlohmann::json> log;
  Isolation isolation;
  const Findings findings{deltas, recipe, isolation, nlohmann::json::array(), nlohmann::json::array(), nullptr,
                          nullptr, {}, {}, log, false, 5, 4, 20, 0, 60.0, nullptr};
  std::ostringstream out;
  print_summary(out, findings, {{"outcome", "not_found"}}, "/runs/x", lines);
  const std::string printed = out.str();
  CHECK(printed.find("\nnoise: 16 of 17") != std::string::npos);
  CHECK(printed.find("\nload: 14 of 17") != std::string::npos);
  CHECK(printed.find("noise: ") < printed.find("decided 4 candidates"));  // with the result, before the counters
}

TEST_CASE("a retraction names each anchor's own run count, not the good anchor's for both", "[run_result]") {
  // At the end of a race's bisection the bad anchor had 30 runs and good 10; the line said "on all 10
  // runs of each anchor". The preflight's message carries each count.
  Recipe recipe;
  recipe.metric = "m";
  const std::vector<Delta> deltas;
  const std::vector<nlohmann::json> log;
  Isolation isolation;
  stats::Preflight final_anchors;
  final_anchors.distinguishable = false;
  final_anchors.message = "good: failed 0 of 10; bad: failed 10 of 30 (exit:1|RuntimeError). cannot tell good from bad";
  const Findings findings{deltas, recipe, isolation, nlohmann::json::array(), nlohmann::json::array(), nullptr,
                          nullptr, {}, final_anchors, log, false, 10, 4, 40, 0, 60.0, nullptr};
  std::ostringstream out;
  print_summary(out, findings, {{"outcome", "retracted"}}, "/runs/x");
  const std::string printed = out.str();
  CHECK(printed.rfind("retracted: on all their runs the anchors no longer differ (good: failed 0 of 10; bad: failed 10 "
                      "of 30",
                      0) == 0);
  CHECK(printed.find("runs of each anchor") == std::string::npos);
}
