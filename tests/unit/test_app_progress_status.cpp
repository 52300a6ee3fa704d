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

bool any_has(const std::vector<std::string>& lines, const std::string& prefix, const std::string& needle) {
  for (const std::string& line : lines) {
    if (line.rfind(prefix, 0) == 0 && line.find(needle) != std::string::npos) {
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

TEST_CASE("the status line counts the search's decisions against its worst case and never past it", "[app][progress]") {
  std::ostringstream out;
  {
    Progress progress(out, ProgressStyle::status_line);
    progress.plan(3, 2);  // at worst 3 decisions with one culprit, 2 first runs each
    progress.phase("anchors");
    progress.label("g", "good");
    progress.attempt_finished("g", 0, 1, ok_run(10.0));  // 10 s a run: 3 x 2 x 10 s = 1:00 to go
    progress.phase("isolate");
    progress.decision(1, "good", "{a}", 2);
    progress.decision(2, "bad", "{b}", 2);
    progress.decision(3, "bad", "{c}", 2);
    progress.decision(4, "bad", "{d}", 2);  // two culprits: past the one-culprit worst case
    progress.search_again();                // the search asks its questions again
    progress.decision(5, "good", "{a}", 2);
    progress.phase("recheck");
    progress.decision(6, "bad", "{b}", 2);
  }
  const std::vector<std::string> lines = drawn(out.str());
  INFO(out.str());
  CHECK(any_has(lines, "[anchors]", "| search ETA ~1:00"));
  CHECK(any_has(lines, "[isolate]", "| 1 of <=3 search decisions |"));
  CHECK(any_has(lines, "[isolate]", "| search ETA ~0:40"));
  CHECK(any_has(lines, "[isolate]", "| 3 of <=3 search decisions |"));
  CHECK(any_has(lines, "[isolate]", "| 4 decisions |"));
  CHECK(any_has(lines, "[isolate]", "| 1 of <=3 search decisions |"));
  CHECK(any_has(lines, "[recheck]", "| 6 decisions |"));
  const std::regex past(R"(\| ([4-9]|\d\d+) of <=3 )");
  for (const std::string& line : lines) {
    INFO(line);
    CHECK_FALSE(std::regex_search(line, past));  // once "20 of <=10 decisions" on the incident
    if (line.rfind("[recheck]", 0) == 0 || line.find("| 4 decisions") != std::string::npos) {
      CHECK(line.find("ETA") == std::string::npos);  // no plan there: no ETA (it once read "ETA <= 0:00")
    }
  }
}
