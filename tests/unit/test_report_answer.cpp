#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "report/answer.hpp"
#include "report/render.hpp"
#include "report/report_model.hpp"

using nlohmann::json;
using envbisect::stats::Better;
using namespace envbisect::report;

namespace {

// A run whose cause is {packages/torch} with an effect, two probe rows, and decisions of which all but
// one were noisy and three ran at a higher load than the anchors.
ReportModel noisy_model() {
  std::vector<json> records = {
      {{"type", "start"}, {"version", "0.1.0"}, {"resumed", false}, {"run", json::object()},
       {"deltas", {{{"dimension", "packages"}, {"name", "torch"}, {"good", "2.11.0+cu128"}, {"bad", "2.11.0+cu130"}},
                   {{"dimension", "env"}, {"name", "LOG"}, {"good", "info"}, {"bad", "debug"}}}}},
      {{"type", "preflight"}, {"anchor_runs", 5},
       {"preflight", {{"distinguishable", true}, {"good_median", 1000.0}, {"bad_median", 174.0}, {"good_cv", 0.12},
                      {"bad_cv", 0.02}, {"message", "bad is 5.7x worse"}}}}};
  for (int i = 0; i < 2; ++i) {
    records.push_back({{"type", "attempt"}, {"candidate", i == 0 ? "g000" : "b000"}, {"applied", json::array()},
                       {"env_hash", "e"}, {"attempt", 0}, {"status", "ok"}, {"metric", 100.0}, {"wall_s", 1.0},
                       {"t", 1.0}, {"load1", 1.0}});
  }
  for (int n = 1; n <= 4; ++n) {
    const std::string hash = "c" + std::to_string(n) + "00";
    records.push_back({{"type", "attempt"}, {"candidate", hash}, {"applied", {0}}, {"env_hash", "e"}, {"attempt", 0},
                       {"status", "ok"}, {"metric", 100.0}, {"wall_s", 1.0}, {"t", 2.0}, {"load1", n == 1 ? 1.0 : 4.0}});
    records.push_back({{"type", "decision"}, {"n", n}, {"stage", n < 4 ? "isolate" : "probe"}, {"label", "{packages/torch}"},
                       {"applied", {0}}, {"candidate", hash}, {"verdict", "bad"}, {"runs", 3}, {"median", 177.0},
                       {"cv", n == 1 ? 0.02 : 0.1 + 0.1 * n}, {"noisy", n != 1}});
  }
  records.push_back({{"type", "probe"}, {"knob", "threads/w"}, {"value", 4}, {"cache", "c:cold"}, {"verdict", "bad"}});
  records.push_back({{"type", "probe"}, {"knob", "threads/w"}, {"value", 1}, {"cache", "c:cold"}, {"verdict", "good"}});
  records.push_back({{"type", "probe"}, {"knob", "threads/w"}, {"value", 2}, {"cache", "c:cold"}, {"verdict", "bad"}});
  records.push_back({{"type", "probe"}, {"knob", "threads/w"}, {"value", 3}, {"cache", "c:cold"}, {"verdict", "inferred bad"}});
  records.push_back(
      {{"type", "result"},
       {"result", {{"found", true}, {"outcome", "found"}, {"cause", {{{"dimension", "packages"}, {"name", "torch"}}}},
                   {"verified", {{"forward", true}, {"reverse", true}}}, {"evaluations", 3}, {"decisions", 4},
                   {"attempts_run", 20}, {"attempts_reused", 0}, {"seconds", 50.0}, {"metric", "tok_per_s"},
                   {"unit", "tok/s"},
                   {"effect", {{"of", "cause"}, {"ratio", 0.1736}, {"low", 0.0966}, {"high", 0.242}, {"from_runs", 8},
                               {"to_runs", 6}, {"method", "Hodges-Lehmann"}, {"words", "5.76x slower"}}}}}});
  return model_from_journal(records, json::object(), "/runs/n");
}

}  // namespace

TEST_CASE("an effect is said in the user's terms, its interval in the same terms", "[report][answer]") {
  // A throughput at 0.1736 of good is 5.76x slower; the interval on the ratio, 0.0966-0.242, is 4.13-10.4x.
  CHECK(factor_words(0.1736, 0.0966, 0.242, Better::higher, "tok/s") == "5.76× slower (95 % CI 4.13–10.4×)");
  CHECK(factor_words(1.3, 1.2, 1.4, Better::higher, "tok/s") == "1.3× faster (95 % CI 1.2–1.4×)");
  CHECK(factor_words(2.0, 1.5, 2.5, Better::lower, "s") == "2× slower (95 % CI 1.5–2.5×)");  // a duration that doubles
  CHECK(factor_words(0.5, std::nullopt, std::nullopt, Better::higher, "") == "2× worse (no 95 % interval: too few runs)");
  CHECK(factor_words(0.9, 0.8, 1.1, Better::higher, "tok/s").rfind("no change shown", 0) == 0);
  CHECK(factor_of(166268, 60000, Better::higher, "tok/s") == "2.77× slower");
  CHECK(factor_of(100, 130, Better::higher, "tok/s") == "1.3× faster");
  CHECK(factor_of(100, 100.5, Better::higher, "tok/s") == "same");
}

TEST_CASE("the answer states cause, verification, effect and when it bites with noise and load one line each",
          "[report][answer]") {
  const ReportModel model = noisy_model();
  const Answer answer = answer_of(model);
  CHECK(answer.headline == "cause found: 1 difference, verified both ways");
  REQUIRE(answer.cause.size() == 1);
  CHECK(answer.cause[0] == "packages/torch: 2.11.0+cu128 -> 2.11.0+cu130");
  CHECK(answer.effect == "5.76× slower (95 % CI 4.13–10.4×) in tok/s, 8 good runs vs 6 with the cause");
  REQUIRE(answer.bites.size() == 1);
  CHECK(answer.bites[0] == "threads/w (c:cold): good at 1; bad at 2, 4; inferred bad at 3");
  CHECK(answer.noise == "3 of 4 decisions noisy, CV 30–50 %; noisy anchors: good CV 12 % (verdicts took more runs; a "
                        "quieter machine or a longer benchmark helps)");
  CHECK(answer.load == "3 of 4 decisions ran at a higher load than the anchors (other work on the machine)");

  // Rendered: the answer comes before every detail, and the details are folded (HTML) or in an appendix.
  const std::string md = render_markdown(model);
  const std::size_t effect = md.find("- **effect**: 5.76× slower (95 % CI 4.13–10.4×)");
  const std::size_t bites = md.find("- **when it bites**: threads/w (c:cold): good at 1");
  const std::size_t appendix = md.find("## Appendix A: verdict details");
  REQUIRE(effect != std::string::npos);
  REQUIRE(bites != std::string::npos);
  REQUIRE(appendix != std::string::npos);
  CHECK(md.find("- noise: 3 of 4 decisions noisy") < appendix);
  CHECK(md.find("- noisy: decision #2") > appendix);  // each noisy decision only in the appendix
  CHECK(md.find("- higher load than the anchors: decision") > appendix);
  CHECK(md.find("| 1 | isolate | [{packages/torch}](#candidate-c100) | 3 | 177 | 5.65× slower | **bad** |") <
        appendix);  // the timeline: a table, its medians against good's in words
  const std::string html = render_html(model);
  const std::size_t fold = html.find("<details class=\"fold\" id=\"verdict-details\">");
  REQUIRE(fold != std::string::npos);
  CHECK(html.find("<b>effect</b>: <b>5.76× slower (95 % CI 4.13–10.4×)") < fold);
  CHECK(html.find("<li>noise: 3 of 4 decisions noisy") < fold);
  CHECK(html.find("<li>noisy: decision #2") > fold);
  // report.json carries the same answer, in the same words.
  const json doc = json::parse(render_json(model));
  CHECK(doc["answer"]["effect"] == answer.effect);
  CHECK(doc["answer"]["bites"][0] == answer.bites[0]);
  CHECK(doc["answer"]["noise"] == answer.noise);
}

TEST_CASE("an undecided run's answer says what it isolated is not verified and how to continue", "[report][answer]") {
  ReportModel model = noisy_model();
  json& result = *model.result;
  result["found"] = false;
  result["outcome"] = "budget";
  result["verified"] = {{"forward", false}, {"reverse", false}};
  result["effect"]["of"] = "anchors";
  result["could_be"] = {{{{"dimension", "packages"}, {"name", "torch"}}}};
  // The run was started with `--out runs/n`: what it printed names the folder as typed, in minutes.
  result["budget"] = {{"budget_s", 60}, {"resume", "envbisect resume runs/n --budget 2m"}};
  result["settle"] = "envbisect resume runs/n --budget 2m continues it, reusing every run";
  const Answer answer = answer_of(model);
  // The headline gives the same command as the settle line, not the folder's absolute path with "--budget ...".
  CHECK(answer.headline ==
        "stopped at its --budget: no verified cause yet (envbisect resume runs/n --budget 2m continues it, reusing every run)");
  CHECK(answer.verification == "none yet: the differences above are what the search isolated so far, not verified");
  CHECK(answer.effect == "5.76× slower (95 % CI 4.13–10.4×) in tok/s, 8 good runs vs 6 bad runs (the anchors: the bad "
                         "state against the good)");
  REQUIRE(answer.could_be.size() == 1);
  CHECK(answer.could_be[0] == "{packages/torch}");
  CHECK(answer.settle == "envbisect resume runs/n --budget 2m continues it, reusing every run");
}
