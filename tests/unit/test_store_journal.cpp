#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "store/journal.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

using namespace envbisect;

namespace {

std::string temp_path(const char* name) {
  std::string dir = "/tmp/envbisect-unit-journal";
  make_dirs(dir);
  std::string path = dir + "/" + name;
  std::remove(path.c_str());
  return path;
}

}  // namespace

TEST_CASE("a journal appends records that read back in order", "[store][journal]") {
  std::string path = temp_path("order.jsonl");
  {
    Journal journal(path);
    journal.append({{"type", "start"}});
    journal.append({{"type", "attempt"}, {"n", 1}});
  }
  JournalContents contents = read_journal(path);
  REQUIRE(contents.records.size() == 2);
  CHECK(contents.records[1]["n"] == 1);
  CHECK_FALSE(contents.torn_tail);
}

TEST_CASE("a torn last line is dropped on read and cut before the next append", "[store][journal]") {
  std::string path = temp_path("torn.jsonl");
  {
    std::ofstream out(path);
    out << "{\"type\":\"start\"}\n{\"type\":\"attempt\",\"metr";
  }
  JournalContents contents = read_journal(path);
  CHECK(contents.records.size() == 1);
  CHECK(contents.torn_tail);
  {
    Journal journal(path);
    journal.append({{"type", "attempt"}, {"n", 2}});
  }
  CHECK(read_file(path) == "{\"type\":\"start\"}\n{\"n\":2,\"type\":\"attempt\"}\n");
}

TEST_CASE("a malformed line in the middle is an error naming file and line", "[store][journal]") {
  std::string path = temp_path("bad.jsonl");
  {
    std::ofstream out(path);
    out << "{\"type\":\"start\"}\nnot json\n{\"type\":\"end\"}\n";
  }
  CHECK_THROWS_WITH(read_journal(path), Catch::Contains(path + ":2: malformed journal record"));
}

TEST_CASE("a missing journal reads as empty", "[store][journal]") {
  CHECK(read_journal("/tmp/envbisect-unit-journal/none.jsonl").records.empty());
}
