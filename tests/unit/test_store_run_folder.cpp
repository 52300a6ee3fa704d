// A run folder is input: its files are opened beneath it, never through a link, only when regular,
// and a folder or file of another user or writable by others is refused by name.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "store/journal.hpp"
#include "store/record_seal.hpp"
#include "store/run_folder.hpp"
#include "test_support.hpp"
#include "util/error.hpp"

using namespace envbisect;
using envbisect::test::slurp;
using envbisect::test::TempDir;
namespace fs = std::filesystem;

TEST_CASE("a journal replaced by a link is refused, the file behind it untouched", "[store][run_folder]") {
  const TempDir dir("runfolder");
  const fs::path victim = dir.path / "victim";
  std::ofstream(victim) << "precious\nnot a journal\n";
  const std::string journal = (dir.path / "journal.jsonl").string();
  fs::create_symlink(victim, journal);
  CHECK_THROWS_WITH(read_journal(journal), Catch::Contains(journal + ": is a symbolic link"));
  CHECK_THROWS_WITH(Journal(journal), Catch::Contains(journal + ": is a symbolic link"));
  CHECK_THROWS_WITH(cut_torn_tail(journal, JournalContents{{}, true, 0, 5, 1}), Catch::Contains("symbolic link"));
  CHECK(slurp(victim) == "precious\nnot a journal\n");
}

TEST_CASE("a dangling link in a run folder is never created through", "[store][run_folder]") {
  const TempDir dir("runfolder");
  const std::string journal = (dir.path / "journal.jsonl").string();
  fs::create_symlink(dir.path / "outside" / "target", journal);
  fs::create_directory(dir.path / "outside");
  CHECK_THROWS_WITH(Journal(journal), Catch::Contains("is a symbolic link"));
  CHECK_FALSE(fs::exists(dir.path / "outside" / "target"));
}

TEST_CASE("only regular files are run files", "[store][run_folder]") {
  const TempDir dir("runfolder");
  REQUIRE(::mkfifo((dir.path / "fifo").c_str(), 0600) == 0);
  fs::create_directory(dir.path / "folder");
  CHECK_THROWS_WITH(read_journal((dir.path / "fifo").string()), Catch::Contains("not a regular file"));
  CHECK_THROWS_WITH(read_journal((dir.path / "folder").string()), Catch::Contains("not a regular file"));
  CHECK(open_run_file(dir.path.string(), "missing", O_RDONLY) == -1);
  CHECK_THROWS_AS(open_run_file(dir.path.string(), "a/b", O_RDONLY), Error);
}

TEST_CASE("a run folder writable by others, or holding links, is refused by name", "[store][run_folder]") {
  const TempDir dir("runfolder");
  const std::string run = dir.path.string();
  std::ofstream(dir.path / "run.json") << "{}";
  check_run_folder_trust(run);  // the user's own, 0700: fine
  fs::permissions(dir.path, fs::perms::others_write, fs::perm_options::add);
  CHECK_THROWS_WITH(check_run_folder_trust(run), Catch::Contains(run + ": writable by every user"));
  fs::permissions(dir.path, fs::perms::others_write, fs::perm_options::remove);
  fs::permissions(dir.path / "run.json", fs::perms::others_write, fs::perm_options::add);
  CHECK_THROWS_WITH(check_run_folder_trust(run), Catch::Contains(run + "/run.json: writable by every user"));
  fs::permissions(dir.path / "run.json", fs::perms::others_write, fs::perm_options::remove);
  fs::create_directory_symlink("/tmp", dir.path / "repro");
  CHECK_THROWS_WITH(check_run_folder_trust(run), Catch::Contains(run + "/repro: is a symbolic link"));
  CHECK_THROWS_WITH(own_subfolder(run, "repro"), Catch::Contains(run + "/repro: is a symbolic link"));
  fs::remove(dir.path / "repro");
  CHECK(own_subfolder(run, "repro") == run + "/repro");
  CHECK(fs::is_directory(dir.path / "repro"));
  if (::geteuid() == 0) {
    REQUIRE(::chown((dir.path / "run.json").c_str(), 65534, 65534) == 0);
    CHECK_THROWS_WITH(check_run_folder_trust(run),
                      Catch::Contains(run + "/run.json: owned by uid 65534, not by the invoking user"));
  }
}

TEST_CASE("process records verify only under their run's key", "[store][record_seal]") {
  const TempDir state("runkeys");
  const TempDir run("runfolder");
  const TempDir other("runfolder");
  ::setenv("XDG_STATE_HOME", state.path.c_str(), 1);
  const RecordSeal seal(run.path.string(), CreateKey::yes);
  REQUIRE(seal.has_key());
  // The key lives outside the run folder, readable by its user only.
  CHECK(seal.key_path().rfind(state.path.string() + "/envbisect/run-keys/", 0) == 0);
  CHECK((fs::status(seal.key_path()).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write));
  const nlohmann::json record = {{"type", "started"}, {"pgid", 4242}, {"start_ticks", 7}, {"boot_id", "b"}};
  const nlohmann::json sealed = seal.seal(record);
  CHECK(RecordSeal(run.path.string(), CreateKey::no).verify(sealed));
  nlohmann::json edited = sealed;
  edited["pgid"] = 1;
  CHECK_FALSE(seal.verify(edited));
  CHECK_FALSE(seal.verify(record));  // a forged line carries no MAC
  nlohmann::json forged = record;
  forged["mac"] = std::string(64, '0');
  CHECK_FALSE(seal.verify(forged));
  // Another run (its own key) does not verify this run's records, nor does a run without a key.
  const RecordSeal elsewhere(other.path.string(), CreateKey::yes);
  CHECK_FALSE(elsewhere.verify(sealed));
  fs::remove(seal.key_path());
  const RecordSeal keyless(run.path.string(), CreateKey::no);
  CHECK_FALSE(keyless.has_key());
  CHECK_FALSE(keyless.verify(sealed));
  ::unsetenv("XDG_STATE_HOME");
}

TEST_CASE("folders below a run folder are taken level by level, never through a link", "[store][run_folder]") {
  const TempDir dir("runfolder");
  const std::string run = dir.path.string();
  const fs::path outside = dir.path / "outside";
  fs::create_directories(outside / "7");
  std::ofstream(outside / "7" / "keep") << "precious";
  CHECK(own_run_subpath(run, "attempts/abc/0") == run + "/attempts/abc/0");
  CHECK(fs::is_directory(dir.path / "attempts" / "abc" / "0"));
  // A candidate's folder planted as a link elsewhere: refused by name, nothing made or removed there.
  fs::create_directory_symlink(outside, dir.path / "attempts" / "def");
  CHECK_THROWS_WITH(own_run_subpath(run, "attempts/def/7"), Catch::Contains(run + "/attempts/def: is a symbolic link"));
  CHECK_THROWS_WITH(own_run_subpath(run, "attempts/def/8"), Catch::Contains(run + "/attempts/def: is a symbolic link"));
  CHECK_FALSE(fs::exists(outside / "8"));
  CHECK(slurp(outside / "7" / "keep") == "precious");
  // Up front: resume, replay, report and repro refuse it before reading anything.
  CHECK_THROWS_WITH(check_run_folder_trust(run), Catch::Contains(run + "/attempts/def: is a symbolic link"));
  fs::remove(dir.path / "attempts" / "def");
  check_run_folder_trust(run);
  // One level further down (an attempt's own folder), and in the other folders envbisect writes below.
  fs::create_directory_symlink(outside, dir.path / "attempts" / "abc" / "1");
  CHECK_THROWS_WITH(check_run_folder_trust(run), Catch::Contains(run + "/attempts/abc/1: is a symbolic link"));
  fs::remove(dir.path / "attempts" / "abc" / "1");
  fs::create_directories(dir.path / "logs");
  fs::create_directory_symlink(outside, dir.path / "logs" / "build-0123");
  CHECK_THROWS_WITH(check_run_folder_trust(run), Catch::Contains(run + "/logs/build-0123: is a symbolic link"));
  CHECK_THROWS_WITH(own_run_subpath(run, "logs/build-0123"), Catch::Contains("is a symbolic link"));
  CHECK_THROWS_AS(own_run_subpath(run, "attempts/../outside"), Error);
}

TEST_CASE("a file below a run folder is opened only when no link leads to it", "[store][run_folder]") {
  const TempDir dir("runfolder");
  const std::string run = dir.path.string();
  fs::create_directories(dir.path / "attempts" / "abc" / "0");
  std::ofstream(dir.path / "attempts" / "abc" / "0" / "stdout.txt") << "log";
  std::ofstream(dir.path / "run.json") << "{}";
  const int fd = open_run_beneath(run, "attempts/abc/0/stdout.txt", O_RDONLY);
  CHECK(fd >= 0);
  ::close(fd);
  // A link inside the folder is refused even when its target stays inside.
  fs::create_symlink(dir.path / "run.json", dir.path / "attempts" / "abc" / "0" / "stderr.txt");
  CHECK_THROWS_WITH(open_run_beneath(run, "attempts/abc/0/stderr.txt", O_RDONLY), Catch::Contains("is a symbolic link"));
  fs::create_directory_symlink(dir.path / "attempts" / "abc", dir.path / "attempts" / "def");
  CHECK_THROWS_WITH(open_run_beneath(run, "attempts/def/0/stdout.txt", O_RDONLY), Catch::Contains("is a symbolic link"));
  CHECK(open_run_beneath(run, "attempts/abc/9/stdout.txt", O_RDONLY) == -1);
  CHECK_THROWS_AS(open_run_beneath(run, "attempts/../run.json", O_RDONLY), Error);
}
