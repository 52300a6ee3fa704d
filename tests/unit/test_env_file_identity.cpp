#include "env/file_identity.hpp"
#include "env/materialize.hpp"
#include "env/store.hpp"
#include "exec/runner.hpp"

#include "env_test_support.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using envbisect::env_test::build_wheels;
using envbisect::env_test::slurp;
using envbisect::env_test::TempDir;

namespace {

void write(const fs::path& path, const std::string& text, std::ios::openmode mode = std::ios::trunc) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::out | mode) << text;
}

struct stat stat_of(const fs::path& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st;
}

// Overwrite one byte of `path` in place and give it back its mtime and mode: what the stat check
// cannot see and `store verify` must.
void flip_byte_quietly(const fs::path& path) {
  const struct stat before = stat_of(path);
  ::chmod(path.c_str(), 0644);
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  char c = 0;
  file.get(c);
  file.seekp(0);
  file.put(static_cast<char>(c ^ 1));
  file.close();
  const timespec times[2] = {before.st_atim, before.st_mtim};
  ::utimensat(AT_FDCWD, path.c_str(), times, 0);
  ::chmod(path.c_str(), before.st_mode & 07777);
}

fs::path site_of(const fs::path& env) {
  for (const auto& lib : fs::directory_iterator(env / "lib")) {
    return lib.path() / "site-packages";
  }
  return {};
}

}  // namespace

TEST_CASE("the file identity sees appends, new files, replaced files and mode changes, not __pycache__", "[env][file_identity]") {
  TempDir dir("identity");
  write(dir.path / "pkg/mod.py", "x = 1\n");
  write(dir.path / "pkg/other.py", "y = 2\n");
  write(dir.path / "skipme", "changes all the time");
  const std::string recorded = envbisect::file_identity(dir.path.string(), {"skipme"});
  CHECK(envbisect::identity_changes(recorded, envbisect::file_identity(dir.path.string(), {"skipme"})).empty());
  write(dir.path / "pkg/__pycache__/mod.cpython-311.pyc", "bytecode");
  write(dir.path / "skipme", "changed");
  CHECK(envbisect::identity_changes(recorded, envbisect::file_identity(dir.path.string(), {"skipme"})).empty());

  write(dir.path / "pkg/mod.py", "SLOW = True\n", std::ios::app);
  write(dir.path / "pkg/sitecustomize.py", "import os\n");
  ::chmod((dir.path / "pkg/other.py").c_str(), 0600);
  const auto changed = envbisect::identity_changes(recorded, envbisect::file_identity(dir.path.string(), {"skipme"}));
  CHECK(changed == std::vector<std::string>{"pkg/mod.py", "pkg/other.py", "pkg/sitecustomize.py"});
  // A file replaced by rename (a new inode) with the same bytes and times is a change too.
  const fs::path other = dir.path / "pkg/other.py";
  const struct stat st = stat_of(other);
  write(dir.path / "pkg/other.new", slurp(other));
  const timespec times[2] = {st.st_atim, st.st_mtim};
  ::utimensat(AT_FDCWD, (dir.path / "pkg/other.new").c_str(), times, 0);
  ::chmod((dir.path / "pkg/other.new").c_str(), st.st_mode & 07777);
  const std::string before_rename = envbisect::file_identity(dir.path.string(), {"skipme"});
  fs::rename(dir.path / "pkg/other.new", other);
  CHECK(envbisect::identity_changes(before_rename, envbisect::file_identity(dir.path.string(), {"skipme"})) ==
        std::vector<std::string>{"pkg/other.new", "pkg/other.py"});
}

TEST_CASE("file names holding a tab or a newline do not hide a change from the identity", "[env][file_identity]") {
  // A git tree (a repository checkout) may track "a" beside "a<TAB>b" or "a<NEWLINE>b": the listing's
  // lines cannot be told apart by path, yet a change to "a" must still count.
  for (const std::string& odd : {std::string("a\tb"), std::string("a\nb")}) {
    TempDir dir("identity-odd");
    write(dir.path / "a", "one\n");
    write(dir.path / odd, "two\n");
    const std::string recorded = envbisect::file_identity(dir.path.string());
    CHECK(envbisect::identity_changes(recorded, envbisect::file_identity(dir.path.string())).empty());
    write(dir.path / "a", "changed by a benchmark\n", std::ios::app);
    CHECK_FALSE(envbisect::identity_changes(recorded, envbisect::file_identity(dir.path.string())).empty());
  }
}

TEST_CASE("store files are read-only, a changed entry is unpacked anew, and verify finds quiet damage", "[env][file_identity]") {
  TempDir dir("identity-store");
  build_wheels(dir.path / "wheels", {{"alpha", "1.0", {{"alpha/__init__.py", "LABEL = 'clean'\n"}}, {}}});
  envbisect::LocalRunner runner;
  envbisect::StoreOptions options;
  options.store_dir = (dir.path / "store").string();
  auto request = [&](const std::string& name) {
    envbisect::VenvRequest r;
    r.packages = {{"alpha", "1.0"}};
    r.wheel_dirs = {(dir.path / "wheels").string()};
    r.env_dir = (dir.path / name).string();
    r.log_dir = (dir.path / ("logs-" + name)).string();
    return r;
  };
  REQUIRE(envbisect::materialize_venv(runner, request("one"), options).ok);
  const fs::path module = site_of(dir.path / "one") / "alpha" / "__init__.py";
  // Hard-linked from the store and read-only for everyone: a benchmark appending to it (not as root) fails.
  CHECK(stat_of(module).st_nlink >= 2);
  CHECK((stat_of(module).st_mode & 0222) == 0);
  envbisect::Store store(options.store_dir);
  CHECK(store.verify().empty());

  // What a benchmark running as root, or one that chmods first, can still do: append through the link.
  fs::permissions(module, fs::perms::owner_write, fs::perm_options::add);
  write(module, "LABEL = 'changed'\n", std::ios::app);
  REQUIRE(envbisect::materialize_venv(runner, request("two"), options).ok);
  CHECK(slurp(dir.path / "logs-two" / "materialize.log").find("repaired") != std::string::npos);
  const fs::path fresh = site_of(dir.path / "two") / "alpha" / "__init__.py";
  CHECK(slurp(fresh) == "LABEL = 'clean'\n");
  CHECK(stat_of(fresh).st_ino != stat_of(module).st_ino);

  // A byte flipped with mtime and mode restored passes the stat check; the full hash check sees it.
  flip_byte_quietly(fresh);
  const std::vector<envbisect::Damage> damage = store.verify();
  REQUIRE(damage.size() == 1);
  CHECK(damage[0].what.rfind("dists/alpha-1.0-", 0) == 0);
  CHECK(damage[0].files == std::vector<std::string>{"site/alpha/__init__.py"});
}

TEST_CASE("an environment's identity is recorded and its changes are listed", "[env][file_identity]") {
  TempDir dir("identity-env");
  write(dir.path / "env/lib/python3.11/site-packages/a.py", "a = 1\n");
  write(dir.path / "env/envbisect-built.json", "{}");
  CHECK(envbisect::environment_changes((dir.path / "env").string()) == std::vector<std::string>{"envbisect-identity"});
  envbisect::record_environment_identity((dir.path / "env").string());
  CHECK(envbisect::environment_changes((dir.path / "env").string()).empty());
  write(dir.path / "env/envbisect-built.json", "{\"touched\": 1}");  // the marker is not content
  CHECK(envbisect::environment_changes((dir.path / "env").string()).empty());
  write(dir.path / "env/lib/python3.11/site-packages/a.py", "b = 2\n", std::ios::app);
  CHECK(envbisect::environment_changes((dir.path / "env").string()) ==
        std::vector<std::string>{"lib/python3.11/site-packages/a.py"});
}

TEST_CASE("an environment's bytecode counts: a changed store .pyc is a change, one Python adds is not", "[env][file_identity]") {
  TempDir dir("identity-pyc");
  const fs::path site = dir.path / "env/lib/python3.11/site-packages";
  write(site / "victim/__init__.py", "VALUE = 1\n");
  write(site / "victim/__pycache__/__init__.cpython-311.pyc", "compiled at unpack time");
  write(dir.path / "env/envbisect-built.json", "{}");
  const std::string env = (dir.path / "env").string();
  envbisect::record_environment_identity(env);
  CHECK(envbisect::environment_changes(env).empty());
  // Python writes bytecode where none was valid: a new file, and a new __pycache__ folder.
  write(site / "victim/__pycache__/__init__.cpython-311.opt-1.pyc", "python -O");
  write(site / "late/__pycache__/gen.cpython-311.pyc", "generated module");
  write(site / "late/gen.py", "x = 1\n");
  CHECK(envbisect::environment_changes(env) == std::vector<std::string>{"lib/python3.11/site-packages/late",
                                                                          "lib/python3.11/site-packages/late/gen.py"});
  fs::remove_all(site / "late");
  CHECK(envbisect::environment_changes(env).empty());
  // A benchmark rewriting the store's bytecode of another package in place (what root can do
  // through the hard link): every environment linking it would run other code than its source.
  write(site / "victim/__pycache__/__init__.cpython-311.pyc", "VALUE = 5, compiled");
  CHECK(envbisect::environment_changes(env) ==
        std::vector<std::string>{"lib/python3.11/site-packages/victim/__pycache__/__init__.cpython-311.pyc"});
  // Removing it is a change too (the store linked it).
  fs::remove(site / "victim/__pycache__/__init__.cpython-311.pyc");
  CHECK(envbisect::environment_changes(env) ==
        std::vector<std::string>{"lib/python3.11/site-packages/victim/__pycache__/__init__.cpython-311.pyc"});
  // An identity recorded by an envbisect that left bytecode out cannot vouch for it: rebuild.
  write(dir.path / "env/envbisect-identity", "lib\td\n");
  CHECK(envbisect::environment_changes(env) == std::vector<std::string>{"envbisect-identity"});
}
