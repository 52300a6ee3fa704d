#include "env/materialize.hpp"
#include "env/store.hpp"
#include "env/wheel_source.hpp"
#include "exec/runner.hpp"

#include "env_test_support.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using envbisect::env_test::build_wheels;
using envbisect::env_test::slurp;
using envbisect::env_test::TempDir;

namespace {

ino_t inode_of(const fs::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_ino;
}

// Return the one file in `dir` whose name starts with `stem` (a .pyc of any interpreter), or "".
fs::path only_pyc(const fs::path& dir, const std::string& stem) {
  fs::path found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().filename().string().rfind(stem, 0) == 0 && entry.path().extension() == ".pyc") {
      CHECK(found.empty());
      found = entry.path();
    }
  }
  return found;
}

}  // namespace

TEST_CASE("bytecode is compiled once into the store entry, unchecked-hash, linked into candidates and checked",
          "[env_store][bytecode]") {
  TempDir dir("store-bytecode");
  build_wheels(dir.path / "wheels", {{"alpha", "1.0", {{"alpha/__init__.py", "from alpha.sub import X\n"},
                                                        {"alpha/sub.py", "X = 42\n"},
                                                        {"alpha/py2.py", "print 'old syntax'\n"}}, {}}});
  envbisect::LocalRunner runner;
  envbisect::StoreOptions options;
  options.store_dir = (dir.path / "store").string();
  envbisect::VenvRequest request;
  request.python = "python3";
  request.packages = {{"alpha", "1.0"}};
  request.wheel_dirs = {(dir.path / "wheels").string()};
  request.env_dir = (dir.path / "env").string();
  request.log_dir = (dir.path / "logs").string();
  const envbisect::VenvResult built = envbisect::materialize_venv(runner, request, options);
  REQUIRE(built.ok);

  // In the store: one .pyc per compilable module, read-only, flagged unchecked-hash (PEP 552: flags 0b01).
  envbisect::Store store(options.store_dir);
  const auto alpha = envbisect::find_distribution({{(dir.path / "wheels").string()}, {}}, "alpha", "1.0", "");
  REQUIRE(alpha);
  const envbisect::StoreEntry entry = store.ensure(*alpha);
  CHECK_FALSE(entry.unpacked_now);
  const fs::path cache = fs::path(entry.dir) / "site" / "alpha" / "__pycache__";
  const fs::path pyc = only_pyc(cache, "sub.");
  REQUIRE_FALSE(pyc.empty());
  CHECK_FALSE(only_pyc(cache, "__init__.").empty());
  CHECK(only_pyc(cache, "py2.").empty());  // Python 2 syntax: no .pyc, as pip leaves it
  const std::string header = slurp(pyc).substr(0, 8);
  CHECK(static_cast<unsigned char>(header[4]) == 1);
  CHECK((fs::status(pyc).permissions() & fs::perms::owner_write) == fs::perms::none);
  CHECK(slurp(fs::path(entry.dir) / "hashes").find(" site/alpha/__pycache__/" + pyc.filename().string()) !=
        std::string::npos);
  CHECK(store.verify().empty());

  // In the candidate: the same inode, and importing uses it as it is (an invalid .pyc is rewritten).
  fs::path site;
  for (const auto& lib : fs::directory_iterator(dir.path / "env" / "lib")) {
    site = lib.path() / "site-packages";
  }
  const fs::path linked = site / "alpha" / "__pycache__" / pyc.filename();
  REQUIRE(fs::exists(linked));
  CHECK(inode_of(linked) == inode_of(pyc));
  envbisect::ProcessSpec spec;
  spec.argv = {built.python_path, "-c", "import alpha; assert alpha.X == 42"};
  spec.env = {{"PATH", "/usr/bin:/bin"}};
  const envbisect::ProcessResult imported = runner.run(spec);
  CHECK(imported.exit_code == 0);
  CHECK(inode_of(linked) == inode_of(pyc));

  // A changed .pyc in the store is a changed entry: the identity check unpacks it anew.
  fs::permissions(pyc, fs::perms::owner_write, fs::perm_options::add);
  std::ofstream(pyc, std::ios::binary | std::ios::app) << "tampered";
  const envbisect::StoreEntry repaired = store.ensure(*alpha);
  CHECK(repaired.unpacked_now);
  REQUIRE(repaired.repaired.size() == 1);
  CHECK(repaired.repaired.front() == "site/alpha/__pycache__/" + pyc.filename().string());
}
