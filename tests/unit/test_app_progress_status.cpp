#include <catch2/catch.hpp>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "app/measure/progress.hpp"

using namespace envbisect;

namespace {

// The status lines drawn, in order, without repeats (the ticker redraws the same line).
std::vector<std::string> drawn(const std::string& text) {
  std::vector<std::string> out;
  const std::string clear = "\r\033[K";
  for (std::size_t at = text.find(clear); at != std::string::npos;) {
    const std::size_t next = text.find(clear, at + clear.size());
    std::string line = text.substr(at + clear.size(), next == std::string::npos ? std::string::npos : next - at - clear.size());
    if (!line.empty() && (out.empty() || out.back() != line)) {
      out.push_back(line);
    }
    at = next;
  }
  return out;
}

bool any_has(const std::vector<std::string>& lines, const std::string& needle) {
  for (const std::string& line : lines) {
    if (line.find(needle) != std::string::npos) {
      return true;
    }
  }
  return false;
}

RunResult ok_run(double seconds) {
  RunResult result;
  result.status = RunStatus::ok;
  result.metric = 1.0;
  result.wall_seconds = seconds;
  return result;
}

}  // namespace

TEST_CASE("the status line keeps elapsed time and ETA whole at any width and cuts what runs", "[app][progress]") {
  const std::string rest = "isolate 3/<=9 | 3 decisions, 17 runs | {packages/fauxtorch, caches/inductor} run 2/3";
  const std::string wide = status_line_text("1:02", "~3:04", rest, 200);
  CHECK(wide == "1:02 ETA ~3:04 | " + rest);
  const std::string narrow = status_line_text("1:02", "~3:04", rest, 40);
  CHECK(narrow.size() == 40);
  CHECK(narrow.rfind("1:02 ETA ~3:04 | isolate 3/<=9", 0) == 0);
  CHECK(status_line_text("1:02", "~3:04", rest, 8) == "1:02 ETA ~3:04");  // never the clock cut
  CHECK(status_line_text("0:00", "", "anchors", 79) == "0:00 ETA --:-- | anchors");
  // A cut never splits a UTF-8 sequence: "×" is two bytes.
  const std::string cut = status_line_text("0:01", "~0:02", "threads × cache", 24);
  CHECK(cut == "0:01 ETA ~0:02 | threads");
}

TEST_CASE("the remaining time counts runs and builds per decision at their measured means", "[app][progress]") {
  CHECK(remaining_seconds(10, 3, 2.0, 0.5, 4.0) == Approx(10 * (3 * 2.0 + 0.5 * 4.0)));
  CHECK(remaining_seconds(2, 0, 5.0, 0, 0) == Approx(10.0));  // a decision is at least one run
}

TEST_CASE("the status line shows time and an ETA for the whole run in every phase, counters that only grow",
          "[app][progress]") {
  std::ostringstream out;
  {
    Progress progress(out, ProgressStyle::status_line);
    progress.plan(3, 2);  // at worst 3 decisions with one culprit, 2 first runs each
    progress.phase("anchors");
    progress.label("g", "good anchor");
    progress.expect("g", 5);
    for (int i = 0; i < 7; ++i) {  // 5 runs, then 2 more while the preflight asks for them
      progress.attempt_started("g", i, i < 5 ? 5 : i + 1);
      progress.attempt_finished("g", i, i < 5 ? 5 : i + 1, ok_run(10.0));
    }
    progress.phase("isolate");
    progress.attempt_started("0123456789abcdef", 0, 2);  // a candidate the run gave no label
    progress.attempt_finished("0123456789abcdef", 0, 2, ok_run(10.0));
    progress.decision(1, "good", "{a}", 2);
    progress.decision(2, "bad", "{b}", 2);
    progress.decision(3, "bad", "{c}", 2);
    progress.decision(4, "bad", "{d}", 2);  // two culprits: past the one-culprit worst case
    progress.search_again();                // the search asks its questions again
    progress.decision(5, "good", "{a}", 2);
    progress.phase("recheck");
    progress.decision(6, "bad", "{b}", 2);
    progress.phase("probe");
    progress.decision(7, "bad", "threads 2", 2);
  }
  const std::vector<std::string> lines = drawn(out.str());
  INFO(out.str());
  REQUIRE(lines.size() > 10);
  const std::regex head(R"(^\d+:\d\d ETA ~\d+:\d\d \| )");
  for (const std::string& line : lines) {
    INFO(line);
    // Every redraw after the first run starts with the elapsed time and an ETA, in every phase.
    CHECK((std::regex_search(line, head) || line.rfind("0:00 ETA --:-- | ", 0) == 0));
    CHECK(line.find("6/6") == std::string::npos);   // the anchors' count grows, it is not re-planned
    CHECK(line.find("4/<=") == std::string::npos);  // never past the worst case it states
    CHECK(line.find("01234567") == std::string::npos);  // no hash for a candidate without a label
  }
  CHECK(any_has(lines, "good anchor run 5/5"));
  CHECK(any_has(lines, "good anchor run 6 (extra)"));
  CHECK(any_has(lines, "| isolate 1/<=3 | 1 decision, 8 runs"));
  CHECK(any_has(lines, "| isolate 4 | 4 decisions"));
  CHECK(any_has(lines, "| recheck | 6 decisions"));
  CHECK(any_has(lines, "| probe | 7 decisions"));
  CHECK(any_has(lines, "a candidate run 1/2"));
}
