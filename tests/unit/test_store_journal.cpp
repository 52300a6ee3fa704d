#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <unistd.h>
#include <fstream>
#include <thread>
#include <vector>

#include "store/journal.hpp"
#include "store/run_lock.hpp"
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

TEST_CASE("a whole record whose known field has another type is bad input naming line and field", "[store][journal]") {
  // A hand-edited attempt ("exit_code": "zero") crashed replay and resume with the JSON library's
  // text, and resume appended a record first.
  std::string path = temp_path("types.jsonl");
  const std::string before = "{\"type\":\"start\"}\n{\"type\":\"attempt\",\"exit_code\":\"zero\"}\n";
  {
    std::ofstream out(path);
    out << before;
  }
  try {
    read_journal(path);
    FAIL("no error");
  } catch (const Error& error) {
    CHECK(error.code() == ExitCode::bad_input);
    CHECK(std::string(error.what()) ==
          path + ":2: /exit_code: expected an integer, got \"zero\" (a journal record edited by hand?)");
  }
  CHECK_THROWS_AS(Journal(path), Error);
  CHECK(read_file(path) == before);  // nothing appended
  {
    std::ofstream out(path);
    out << "{\"type\":\"result\",\"result\":5}\n";
  }
  CHECK_THROWS_WITH(read_journal(path), Catch::Contains(":1: /result: expected an object, got 5"));
  // What the writers write passes: a null metric, an integer where a number is read.
  {
    std::ofstream out(path);
    out << "{\"type\":\"attempt\",\"metric\":null,\"wall_s\":3,\"t\":1.5,\"applied\":[0]}\n";
  }
  CHECK(read_journal(path).records.size() == 1);
}

TEST_CASE("a missing journal reads as empty", "[store][journal]") {
  CHECK(read_journal("/tmp/envbisect-unit-journal/none.jsonl").records.empty());
}

TEST_CASE("a whole garbage line after the last record is a torn tail, cut before the next append",
          "[store][journal]") {
  std::string path = temp_path("garbage-tail.jsonl");
  {
    std::ofstream out(path);
    out << "{\"type\":\"start\"}\nthis is not json\n";
  }
  JournalContents contents = read_journal(path);
  CHECK(contents.records.size() == 1);
  CHECK(contents.torn_tail);
  CHECK(contents.tail_line == 2);
  CHECK(contents.whole_bytes == std::string("{\"type\":\"start\"}\n").size());
  {
    Journal journal(path);
    journal.append({{"type", "attempt"}});
  }
  // The garbage must not stay in front of the new record: the journal reads whole again.
  CHECK(read_file(path) == "{\"type\":\"start\"}\n{\"type\":\"attempt\"}\n");
  CHECK(read_journal(path).records.size() == 2);
}

TEST_CASE("NUL bytes and several garbage lines after the last record are one torn tail", "[store][journal]") {
  std::string path = temp_path("nul-tail.jsonl");
  std::string nuls(4096, '\0');
  {
    std::ofstream out(path, std::ios::binary);
    out << "{\"type\":\"start\"}\n{\"type\":\"attempt\"}\n" << nuls << "\n" << nuls << "\ngarbage\n{\"type\":";
  }
  JournalContents contents = read_journal(path);
  CHECK(contents.records.size() == 2);
  CHECK(contents.torn_tail);
  CHECK(contents.tail_line == 3);
  cut_torn_tail(path, contents);
  CHECK(read_file(path) == "{\"type\":\"start\"}\n{\"type\":\"attempt\"}\n");
  CHECK_FALSE(read_journal(path).torn_tail);
}

TEST_CASE("a parseable last line without its newline is torn, not whole", "[store][journal]") {
  std::string path = temp_path("no-newline.jsonl");
  {
    std::ofstream out(path);
    out << "{\"type\":\"start\"}\n{\"type\":\"attempt\"}";
  }
  JournalContents contents = read_journal(path);
  CHECK(contents.records.size() == 1);
  CHECK(contents.torn_tail);
}

TEST_CASE("garbage followed by a whole record is damage naming its line", "[store][journal]") {
  std::string path = temp_path("middle.jsonl");
  {
    std::ofstream out(path, std::ios::binary);
    out << "{\"type\":\"start\"}\n{\"type\":\"a\"}\n" << std::string(10, '\0') << "\nworse\n{\"type\":\"end\"}\n";
  }
  CHECK_THROWS_WITH(read_journal(path), Catch::Contains(path + ":3: malformed journal record"));
  try {
    read_journal(path);
  } catch (const Error& error) {
    CHECK(error.code() == ExitCode::bad_input);
  }
  // Opening it for appending refuses too: nothing is written after damage.
  CHECK_THROWS_AS(Journal(path), Error);
}

TEST_CASE("two journals on one file append without overwriting each other (O_APPEND)", "[store][journal]") {
  std::string path = temp_path("two-writers.jsonl");
  Journal first(path);
  Journal second(path);
  first.append({{"n", 1}});
  second.append({{"n", 2}});
  first.append({{"n", 3}});
  JournalContents contents = read_journal(path);
  REQUIRE(contents.records.size() == 3);
  CHECK(contents.records[0]["n"] == 1);
  CHECK(contents.records[1]["n"] == 2);
  CHECK(contents.records[2]["n"] == 3);
}

TEST_CASE("records appended from several threads stay whole lines", "[store][journal]") {
  std::string path = temp_path("threads.jsonl");
  {
    Journal journal(path);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&journal, t] {
        for (int i = 0; i < 50; ++i) {
          journal.append({{"thread", t}, {"i", i}, {"pad", std::string(5000, 'x')}});
        }
      });
    }
    for (std::thread& thread : threads) {
      thread.join();
    }
  }
  JournalContents contents = read_journal(path);
  CHECK(contents.records.size() == 200);
  CHECK_FALSE(contents.torn_tail);
}

TEST_CASE("a run folder is locked by one process, a second user is refused naming the holder",
          "[store][journal][lock]") {
  std::string dir = "/tmp/envbisect-unit-journal/locked-run";
  make_dirs(dir);
  CHECK_FALSE(run_dir_holder(dir).has_value());
  {
    RunLock lock(dir, "run");
    const std::string pid = "pid " + std::to_string(::getpid()) + " (envbisect run)";
    REQUIRE(run_dir_holder(dir).has_value());
    CHECK(*run_dir_holder(dir) == pid);
    // flock locks open files, not processes: a second lock from this process is refused like any other.
    try {
      RunLock second(dir, "resume");
      FAIL("a second lock was granted");
    } catch (const Error& error) {
      CHECK(error.code() == ExitCode::environment);
      CHECK_THAT(error.what(), Catch::Contains(pid));
    }
  }
  // Released with its holder: the folder is free again.
  CHECK_FALSE(run_dir_holder(dir).has_value());
  RunLock again(dir, "resume");
}

TEST_CASE("a killed holder's lock, held a moment longer by a child it forked, is waited out", "[store][journal][lock]") {
  const std::string dir = "/tmp/envbisect-unit-journal/killed-holder";
  make_dirs(dir);
  // A pid that no longer exists: a child that has exited and been reaped.
  const pid_t dead = ::fork();
  REQUIRE(dead >= 0);
  if (dead == 0) {
    ::_exit(0);
  }
  ::waitpid(dead, nullptr, 0);
  // The lingering child: holds the lock under the dead pid's name for 300 ms, as a forked child of a
  // killed run does until its exec or its parent-death signal.
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int fd = ::open((dir + "/lock").c_str(), O_RDWR | O_CREAT, 0644);
    const std::string text = "pid " + std::to_string(dead) + " (envbisect run)\n";
    if (fd < 0 || ::flock(fd, LOCK_EX) != 0 || ::ftruncate(fd, 0) != 0 ||
        ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
      ::_exit(1);
    }
    (void)!::write(ready[1], "x", 1);
    ::usleep(300 * 1000);
    ::_exit(0);
  }
  ::close(ready[1]);
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  ::close(ready[0]);
  const auto start = std::chrono::steady_clock::now();
  RunLock lock(dir, "resume");  // would throw "in use by pid DEAD" without the wait
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(100));
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
