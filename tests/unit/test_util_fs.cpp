#include <catch2/catch.hpp>

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "test_support.hpp"
#include "util/error.hpp"
#include "util/fd.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;
using envbisect::copy_regular_file;
using envbisect::copy_tree;
using envbisect::Error;
using envbisect::LinkFiles;
using envbisect::list_dir;
using envbisect::read_input_file;
using envbisect::UniqueFd;
using envbisect::test::slurp;
using envbisect::test::TempDir;

namespace {

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

bool is_open(int fd) {
  return ::fcntl(fd, F_GETFD) != -1;
}

ino_t inode_of(const fs::path& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_ino;
}

}  // namespace

TEST_CASE("UniqueFd closes what it owns once, and moving or releasing it hands the descriptor on", "[util][fd]") {
  TempDir dir("fd");
  const std::string file = (dir.path / "f").string();
  write(file, "x");
  int raw = -1;
  {
    const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
    REQUIRE(fd.valid());
    raw = fd.get();
    CHECK(is_open(raw));
  }
  CHECK_FALSE(is_open(raw));

  UniqueFd first(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  raw = first.get();
  UniqueFd second(std::move(first));
  CHECK_FALSE(first.valid());  // NOLINT(bugprone-use-after-move): moved-from owns nothing
  CHECK(second.get() == raw);
  UniqueFd third;
  third = std::move(second);
  CHECK(third.get() == raw);
  CHECK(is_open(raw));
  CHECK(third.close() == 0);
  CHECK_FALSE(is_open(raw));
  CHECK(third.close() == 0);  // nothing owned: nothing closed

  UniqueFd kept(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  raw = kept.release();
  CHECK_FALSE(kept.valid());
  CHECK(is_open(raw));
  ::close(raw);
}

TEST_CASE("list_dir names a folder's entries sorted, without . and .., and nothing for a missing folder", "[util][fs]") {
  TempDir dir("list");
  write(dir.path / "b.whl", "");
  write(dir.path / "a" / "inner", "");
  write(dir.path / "C", "");
  CHECK(list_dir(dir.path.string()) == std::vector<std::string>{"C", "a", "b.whl"});
  CHECK(list_dir((dir.path / "missing").string()).empty());
  CHECK(list_dir((dir.path / "b.whl").string()).empty());  // a file is no folder
}

TEST_CASE("copy_tree recreates a tree: folders, symlinks as links, files linked or copied", "[util][fs]") {
  TempDir dir("tree");
  const fs::path from = dir.path / "from";
  write(from / "top.txt", "top");
  write(from / "a" / "b" / "deep.py", "deep");
  fs::create_directories(from / "empty");
  fs::create_symlink("a/b/deep.py", from / "link");
  ::chmod((from / "top.txt").c_str(), 0750);

  SECTION("LinkFiles::yes hard-links regular files") {
    copy_tree(from.string(), (dir.path / "linked").string(), LinkFiles::yes);
    CHECK(inode_of(dir.path / "linked" / "a" / "b" / "deep.py") == inode_of(from / "a" / "b" / "deep.py"));
    CHECK(fs::is_symlink(dir.path / "linked" / "link"));
    CHECK(fs::read_symlink(dir.path / "linked" / "link") == "a/b/deep.py");
    CHECK(fs::is_directory(dir.path / "linked" / "empty"));
  }
  SECTION("LinkFiles::no copies bytes and permission bits, into a folder whose parents are made") {
    const fs::path to = dir.path / "new" / "parents" / "copied";
    copy_tree(from.string(), to.string(), LinkFiles::no);
    CHECK(inode_of(to / "top.txt") != inode_of(from / "top.txt"));
    CHECK(slurp(to / "top.txt") == "top");
    CHECK(slurp(to / "a" / "b" / "deep.py") == "deep");
    CHECK((fs::status(to / "top.txt").permissions() & fs::perms::owner_exec) == fs::perms::owner_exec);
    CHECK(fs::read_symlink(to / "link") == "a/b/deep.py");
    CHECK(fs::is_directory(to / "empty"));
  }
  SECTION("LinkFiles::clone gives each file its own inode and bytes, and says whether all were cloned") {
    // Whether this file system clones at all: one FICLONE of one file, asked directly.
    const UniqueFd in(::open((from / "top.txt").c_str(), O_RDONLY | O_CLOEXEC));
    const UniqueFd probe(::open((dir.path / "probe").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    const bool clones_here = ::ioctl(probe.get(), FICLONE, in.get()) == 0;
    const fs::path to = dir.path / "cloned";
    CHECK(copy_tree(from.string(), to.string(), LinkFiles::clone) == clones_here);
    CHECK(inode_of(to / "top.txt") != inode_of(from / "top.txt"));
    CHECK(slurp(to / "a" / "b" / "deep.py") == "deep");
    CHECK(fs::read_symlink(to / "link") == "a/b/deep.py");
    // A write to the clone never reaches the snapshot it came from.
    write(to / "top.txt", "changed");
    CHECK(slurp(from / "top.txt") == "top");
    CHECK_FALSE(copy_tree(from.string(), (dir.path / "copied").string(), LinkFiles::no));
  }
  SECTION("a missing source is an Error naming it") {
    CHECK_THROWS_WITH(copy_tree((dir.path / "nowhere").string(), (dir.path / "x").string(), LinkFiles::no),
                      Catch::Contains("nowhere"));
  }
  SECTION("a fifo is refused when copied, never waited on") {
    REQUIRE(::mkfifo((from / "pipe").c_str(), 0644) == 0);
    CHECK_THROWS_WITH(copy_tree(from.string(), (dir.path / "with-fifo").string(), LinkFiles::no),
                      Catch::Contains("not a regular file"));
  }
}

TEST_CASE("copy_regular_file replaces a symlink or hard link at the target, never writing through it", "[util][fs]") {
  TempDir dir("copy");
  write(dir.path / "new", "new");
  write(dir.path / "victim", "keep");
  fs::create_symlink(dir.path / "victim", dir.path / "through-link");
  fs::create_hard_link(dir.path / "victim", dir.path / "through-hard-link");
  copy_regular_file((dir.path / "new").string(), (dir.path / "through-link").string());
  copy_regular_file((dir.path / "new").string(), (dir.path / "through-hard-link").string());
  CHECK(slurp(dir.path / "victim") == "keep");
  CHECK_FALSE(fs::is_symlink(dir.path / "through-link"));
  CHECK(slurp(dir.path / "through-link") == "new");
  CHECK(slurp(dir.path / "through-hard-link") == "new");
}

TEST_CASE("read_input_file reads a regular file and refuses folders, fifos and oversized files by name", "[util][fs]") {
  TempDir dir("input");
  write(dir.path / "state.json", "{}");
  CHECK(read_input_file((dir.path / "state.json").string()) == "{}");
  CHECK_THROWS_WITH(read_input_file(dir.path.string()), Catch::Contains("is a directory"));
  REQUIRE(::mkfifo((dir.path / "fifo").c_str(), 0644) == 0);
  CHECK_THROWS_WITH(read_input_file((dir.path / "fifo").string()), Catch::Contains("is a fifo"));
  CHECK_THROWS_WITH(read_input_file((dir.path / "state.json").string(), 1), Catch::Contains("more than the 1"));
  CHECK_THROWS_WITH(read_input_file((dir.path / "missing").string()), Catch::Contains("missing"));
}

TEST_CASE("ascii_lower lowers A-Z only", "[util][strings]") {
  CHECK(envbisect::ascii_lower("ABCdef09-Z_") == "abcdef09-z_");
  CHECK(envbisect::ascii_lower("\xc3\x89") == "\xc3\x89");  // bytes past ASCII stay as they are
  CHECK(envbisect::ascii_lower("").empty());
}

TEST_CASE("write_file_atomic makes scripts executable past the umask and replaces what was there", "[util][fs]") {
  TempDir dir("atomic");
  const fs::path script = dir.path / "script";
  const mode_t old_mask = ::umask(0077);
  envbisect::write_file_atomic(script.string(), "#!/bin/sh\n", 0755);
  ::umask(old_mask);
  CHECK((fs::status(script).permissions() & fs::perms::all) == (fs::perms::owner_all | fs::perms::group_read |
                                                                 fs::perms::group_exec | fs::perms::others_read |
                                                                 fs::perms::others_exec));
  envbisect::write_file_atomic(script.string(), "x", 0755);
  CHECK(slurp(script) == "x");
  CHECK_THROWS_AS(envbisect::write_file_atomic((dir.path / "no" / "such").string(), "x", 0644), envbisect::Error);
}

TEST_CASE("write_file_atomic never writes through a symlink or a hard link", "[util][fs]") {
  TempDir dir("atomic");
  write(dir.path / "interpreter", "the base interpreter");
  fs::create_symlink(dir.path / "interpreter", dir.path / "python3");
  envbisect::write_file_atomic((dir.path / "python3").string(), "#!/bin/sh\necho shadow\n", 0755);
  CHECK(slurp(dir.path / "interpreter") == "the base interpreter");
  CHECK_FALSE(fs::is_symlink(dir.path / "python3"));
  write(dir.path / "store-copy", "store bytes");
  fs::create_hard_link(dir.path / "store-copy", dir.path / "env-copy");
  envbisect::write_file_atomic((dir.path / "env-copy").string(), "console script", 0755);
  CHECK(slurp(dir.path / "store-copy") == "store bytes");
  CHECK(slurp(dir.path / "env-copy") == "console script");
}

TEST_CASE("write_file_atomic keeps its mode and leaves nothing behind, and a folder in the way is bad input", "[util][fs]") {
  TempDir dir("atomic");
  const fs::path key = dir.path / "run.key";
  envbisect::write_file_atomic(key.string(), "secret", 0600);
  envbisect::write_file_atomic(key.string(), "secret 2", 0600, envbisect::Flush::no);
  CHECK(slurp(key) == "secret 2");
  CHECK((fs::status(key).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write));
  fs::create_directories(dir.path / "taken" / "inside");
  try {
    envbisect::write_file_atomic((dir.path / "taken").string(), "x");
    FAIL("a folder at the path was replaced");
  } catch (const Error& error) {
    CHECK(error.code() == envbisect::ExitCode::bad_input);
  }
  CHECK(list_dir(dir.path.string()).size() == 2);  // run.key and taken: no temp file left
}
