#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "matrix/history.hpp"
#include "matrix/night.hpp"
#include "matrix/render.hpp"
#include "util/error.hpp"

using namespace envbisect;
using namespace envbisect::matrix;

namespace {

CellNight night(const std::string& date, CellStatus status, std::optional<double> median) {
  return {date, status, median, 3, status == CellStatus::red && !median ? 3 : 0, 0};
}

const JudgePolicy k_policy{true, 0.2, 1, 7};

}  // namespace

TEST_CASE("a cell without history says so instead of judging", "[matrix]") {
  CellJudgement j = judge_cell("2026-11-01", 3, 0, 0, 1000.0, {}, k_policy);
  CHECK(j.status == CellStatus::no_history);
  CHECK_FALSE(j.new_red);
  CHECK_THAT(j.reason, Catch::Contains("not enough history: 0 earlier passing nights, 1 needed"));
  // min_history 2: one earlier night is not enough either.
  JudgePolicy two = k_policy;
  two.min_history = 2;
  CHECK(judge_cell("2026-11-02", 3, 0, 0, 1000.0, {night("2026-11-01", CellStatus::no_history, 990.0)}, two).status ==
        CellStatus::no_history);
}

TEST_CASE("a failed run is red regardless of history, and new when the last night was not red", "[matrix]") {
  CellJudgement first = judge_cell("2026-11-01", 3, 1, 0, 1000.0, {}, k_policy);
  CHECK(first.status == CellStatus::red);
  CHECK(first.new_red);
  CHECK(first.red_since == "2026-11-01");
  CHECK_FALSE(first.last_green);
  std::vector<CellNight> history = {night("2026-11-01", CellStatus::no_history, 1000.0),
                                    night("2026-11-02", CellStatus::green, 1010.0)};
  CellJudgement j = judge_cell("2026-11-03", 3, 3, 0, std::nullopt, history, k_policy);
  CHECK(j.status == CellStatus::red);
  CHECK(j.new_red);
  CHECK(j.last_green == "2026-11-02");
  CHECK(j.reason == "3 of 3 runs failed");
  // Still red the next night: not new, red since the first red night.
  history.push_back(night("2026-11-03", CellStatus::red, std::nullopt));
  CellJudgement still = judge_cell("2026-11-04", 3, 3, 0, std::nullopt, history, k_policy);
  CHECK(still.status == CellStatus::red);
  CHECK_FALSE(still.new_red);
  CHECK(still.red_since == "2026-11-03");
  CHECK(still.last_green == "2026-11-02");
}

TEST_CASE("a regression beyond the threshold against the median of passing nights is red", "[matrix]") {
  // Baseline: median of the passing nights (1000, 1100, 900 -> 1000); the red night is left out.
  std::vector<CellNight> history = {night("d1", CellStatus::no_history, 1000.0), night("d2", CellStatus::green, 1100.0),
                                    night("d3", CellStatus::red, 100.0), night("d4", CellStatus::green, 900.0)};
  CellJudgement slow = judge_cell("d5", 3, 0, 0, 790.0, history, k_policy);
  CHECK(slow.status == CellStatus::red);
  CHECK(slow.new_red);
  REQUIRE(slow.baseline);
  CHECK(*slow.baseline == Approx(1000.0));
  CHECK(*slow.change == Approx(0.21));
  CHECK_THAT(slow.reason, Catch::Contains("regressed 21.0 % beyond the 20.0 % threshold"));
  CellJudgement fine = judge_cell("d5", 3, 0, 0, 810.0, history, k_policy);
  CHECK(fine.status == CellStatus::green);
  CHECK(fine.history_nights == 3);
  // Lower is better: 25 % more seconds is a regression.
  JudgePolicy lower = k_policy;
  lower.higher_is_better = false;
  CHECK(judge_cell("d5", 3, 0, 0, 1250.0, history, lower).status == CellStatus::red);
  CHECK(judge_cell("d5", 3, 0, 0, 790.0, history, lower).status == CellStatus::green);
  // The window keeps only the latest passing nights: with 1, the baseline is d4's 900.
  JudgePolicy window = k_policy;
  window.history_window = 1;
  CHECK(*judge_cell("d5", 3, 0, 0, 790.0, history, window).baseline == Approx(900.0));
}

TEST_CASE("a cell whose runs all said skip is skipped, not red", "[matrix]") {
  CellJudgement j = judge_cell("d1", 3, 0, 3, std::nullopt, {}, k_policy);
  CHECK(j.status == CellStatus::skip);
  CHECK_FALSE(j.new_red);
}

TEST_CASE("matrix.json round-trips the history a later night reads", "[matrix]") {
  MatrixNight n;
  n.name = "nightly";
  n.date = "2026-11-02";
  n.metric = "items_per_s";
  CellReport red;
  red.id = "packages.x=latest";
  red.assignment = {{"packages.x", "latest"}};
  red.runs = 3;
  red.failed = 3;
  red.judgement = judge_cell(n.date, 3, 3, 0, std::nullopt, {night("2026-11-01", CellStatus::green, 10.0)}, k_policy);
  red.trend = {night("2026-11-01", CellStatus::green, 10.0), night("2026-11-02", CellStatus::red, std::nullopt)};
  red.bisect = {"found", {"packages/x 1.1 -> 1.2"}, {}, "2026-11-01", "cells/packages.x=latest/bisect/report.html", ""};
  CellReport green;
  green.id = "packages.x=1.0";
  green.assignment = {{"packages.x", "1.0"}};
  green.runs = 3;
  green.median = 12.5;
  green.judgement = judge_cell(n.date, 3, 0, 0, 12.5, {night("2026-11-01", CellStatus::green, 12.0)}, k_policy);
  green.trend = {night("2026-11-01", CellStatus::green, 12.0), night("2026-11-02", CellStatus::green, 12.5)};
  n.cells = {red, green};
  nlohmann::json doc = night_to_json(n);
  CHECK(doc["new_red"] == 1);
  CHECK(doc["cells"][0]["bisect"]["cause"][0] == "packages/x 1.1 -> 1.2");
  CHECK(doc.dump() == night_to_json(n).dump());
  std::map<std::string, CellNight> back = nights_from_json(doc, "matrix.json");
  CHECK(back.at("packages.x=latest").status == CellStatus::red);
  CHECK(back.at("packages.x=latest").date == "2026-11-02");
  CHECK(*back.at("packages.x=1.0").median == Approx(12.5));
  CHECK_THROWS_AS(nights_from_json(nlohmann::json::object(), "x.json"), Error);

  CHECK(summary_line(n) == "matrix 2026-11-02: 2 cells: 1 green, 1 red (1 new), 0 without enough history, 0 skipped; "
                           "new red: packages.x=latest (cause: packages/x 1.1 -> 1.2)");
  std::string md = render_matrix_markdown(n);
  CHECK_THAT(md, Catch::Contains("| packages.x=latest | RED (new) | - | - | 3 (3 failed) |"));
  CHECK_THAT(md, Catch::Contains("[report](cells/packages.x=latest/bisect/report.html)"));
  // The change against the cell's history in words, medians with the unit; a slowdown as "2.77x slower".
  CHECK_THAT(md, Catch::Contains("| packages.x=1.0 | green | 12.5 | 1.04× better |"));
  n.unit = "items/s";
  n.cells[1].median = 12.0 / 2.77;
  CHECK_THAT(render_matrix_markdown(n), Catch::Contains("| 4.332 items/s | 2.77× slower |"));
  std::string html = render_matrix_html(n);
  CHECK_THAT(html, Catch::Contains("<tr class=\"red new\" id=\"packages.x=latest\">"));
  CHECK_THAT(html, Catch::Contains("<a href=\"cells/packages.x=latest/bisect/report.html\">report</a>"));
  CHECK_THAT(html, Catch::Contains("<tr class=\"green\""));
  CHECK_THAT(html, Catch::Contains("<svg class=\"trend\""));
  // Self-contained: no script, no external fetch.
  CHECK(html.find("http") == std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
}

TEST_CASE("the trend sparkline draws one mark per night, red nights as crosses", "[matrix]") {
  std::string svg = svg_trend({night("d1", CellStatus::green, 10.0), night("d2", CellStatus::green, 12.0),
                               night("d3", CellStatus::red, std::nullopt)});
  CHECK_THAT(svg, Catch::Contains("<polyline"));
  std::size_t dots = 0;
  for (std::size_t at = svg.find("<circle"); at != std::string::npos; at = svg.find("<circle", at + 1)) {
    ++dots;
  }
  CHECK(dots == 2);
  CHECK_THAT(svg, Catch::Contains("<path class=\"cross red\""));
  CHECK_THAT(svg, Catch::Contains("<title>d3: red</title>"));
}
