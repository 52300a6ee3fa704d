#include "app/commands/locate.hpp"
#include "env/materialize.hpp"
#include "env/store.hpp"
#include "env/unzip.hpp"
#include "env/wheel_source.hpp"
#include "exec/runner.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#include "env_test_support.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <tuple>
#include <vector>

namespace fs = std::filesystem;
using envbisect::StoreOptions;
using envbisect::VenvRequest;
using envbisect::VenvResult;
using envbisect::env_test::build_wheels;
using envbisect::env_test::slurp;
using envbisect::env_test::TempDir;
using envbisect::env_test::TestWheel;
using envbisect::env_test::WheelLayout;

namespace {

// The test wheels, built once: two local labels of alpha (their files differ), a package pinned to
// alpha, one needing an alpha that does not exist, and `tool`, laid out by hand to carry what
// installers must handle: console scripts, a .pth file, a .data/scripts script.
const fs::path& wheelhouse() {
  static const TempDir dir("store-wheels");
  static const bool built = [] {
    std::vector<TestWheel> wheels;
    for (const auto& [name, version, requires_dist] : std::vector<std::tuple<std::string, std::string, std::vector<std::string>>>{
             {"alpha", "1.0+cu128", {}},
             {"alpha", "1.0+cu130", {}},
             {"beta_pkg", "2.0", {"alpha==1.0"}},
             {"gamma", "1.0", {"alpha==3.0"}},
             {"delta", "1.0", {"alpha>=1.0; python_version >= \"3\"", "missing; extra == \"x\""}}}) {
      wheels.push_back({name, version, {{name + "/__init__.py", "LABEL = '" + version + "'\n"}}, requires_dist});
    }
    const std::string di = "tool-1.0.dist-info";
    wheels.push_back({"tool", "1.0",
                      {{"tool/__init__.py", ""},
                       {"tool/cli.py", "def main():\n    print(\"tool says hi\")\n"},
                       {"tool.pth", "/nonexistent/extra/path\n"},
                       {"tool-1.0.data/scripts/tool-sh", "#!python\nprint(42)\n"},
                       {di + "/METADATA", "Metadata-Version: 2.1\nName: tool\nVersion: 1.0\n"},
                       {di + "/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
                       {di + "/entry_points.txt", "[console_scripts]\ntool-run = tool.cli:main\n"}},
                      {},
                      WheelLayout::as_given});
    build_wheels(dir.path, wheels);
    return true;
  }();
  (void)built;
  return dir.path;
}

// One store shared by the tests that do not need their own: the venv skeleton is made once.
const fs::path& shared_store() {
  static const TempDir dir("store");
  return dir.path;
}

VenvRequest request_in(const TempDir& dir, const std::map<std::string, std::string>& packages,
                       const std::string& name = "env") {
  VenvRequest request;
  request.python = "python3";
  request.packages = packages;
  request.wheel_dirs = {wheelhouse().string()};
  request.env_dir = (dir.path / "envs" / name).string();
  request.log_dir = (dir.path / ("logs-" + name)).string();
  return request;
}

StoreOptions store_at(const fs::path& store) {
  StoreOptions options;
  options.store_dir = store.string();
  return options;
}

std::size_t count_entries(const fs::path& dir) {
  std::size_t n = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); ++it) {
    ++n;
  }
  return n;
}

ino_t inode_of(const fs::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_ino;
}

// Return the message of the bad-input Error that unpacking `dist` into `store` throws; "" when none.
std::string unpack_refusal(envbisect::Store& store, const envbisect::Distribution& dist) {
  try {
    store.ensure(dist);
  } catch (const envbisect::Error& e) {
    CHECK(e.code() == envbisect::ExitCode::bad_input);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a candidate is hard links into the store, and the store is reused", "[env_store]") {
  TempDir dir("store");
  envbisect::LocalRunner runner;
  const StoreOptions options = store_at(dir.path / "store");
  const VenvResult first = envbisect::materialize_venv(runner, request_in(dir, {{"alpha", "1.0+cu128"}, {"beta-pkg", "2.0"}}, "one"), options);
  REQUIRE(first.ok);
  CHECK(first.builder == "store");
  CHECK(first.installed == std::map<std::string, std::string>{{"alpha", "1.0+cu128"}, {"beta-pkg", "2.0"}});
  const fs::path dists = dir.path / "store" / "v1" / "dists";
  CHECK(count_entries(dists) == 2);
  CHECK(slurp(dir.path / "logs-one" / "materialize.log").find("unpacked wheel") != std::string::npos);

  const VenvResult second = envbisect::materialize_venv(runner, request_in(dir, {{"alpha", "1.0+cu128"}, {"beta-pkg", "2.0"}}, "two"), options);
  REQUIRE(second.ok);
  CHECK(count_entries(dists) == 2);
  const std::string log = slurp(dir.path / "logs-two" / "materialize.log");
  CHECK(log.find("unpacked wheel") == std::string::npos);
  CHECK(log.find("reused wheel") != std::string::npos);
  // The package files of both environments are one inode in the store; RECORD is each env's own.
  const fs::path site1 = fs::path(first.python_path).parent_path().parent_path() / "lib";
  const auto find_site = [](const fs::path& env) {
    for (const auto& lib : fs::directory_iterator(env / "lib")) {
      return lib.path() / "site-packages";
    }
    return fs::path();
  };
  const fs::path a = find_site(dir.path / "envs" / "one");
  const fs::path b = find_site(dir.path / "envs" / "two");
  CHECK(inode_of(a / "alpha" / "__init__.py") == inode_of(b / "alpha" / "__init__.py"));
  CHECK(inode_of(a / "alpha-1.0+cu128.dist-info" / "RECORD") != inode_of(b / "alpha-1.0+cu128.dist-info" / "RECORD"));
  CHECK(slurp(a / "alpha-1.0+cu128.dist-info" / "INSTALLER") == "envbisect\n");
  CHECK(slurp(a / "alpha-1.0+cu128.dist-info" / "RECORD").find("alpha/__init__.py,sha256=") != std::string::npos);
  CHECK(slurp(a / "alpha" / "__init__.py") == "LABEL = '1.0+cu128'\n");
  (void)site1;
}

TEST_CASE("console scripts, .data scripts and .pth files are installed as an installer would", "[env_store]") {
  TempDir dir("store");
  envbisect::LocalRunner runner;
  const VenvResult built = envbisect::materialize_venv(runner, request_in(dir, {{"tool", "1.0"}}), store_at(shared_store()));
  REQUIRE(built.ok);
  const fs::path env = dir.path / "envs" / "env";
  const std::string script = slurp(env / "bin" / "tool-run");
  CHECK(script.rfind("#!" + built.python_path + "\n", 0) == 0);
  CHECK(script.find("from tool.cli import main") != std::string::npos);
  CHECK(slurp(env / "bin" / "tool-sh") == "#!" + built.python_path + "\nprint(42)\n");
  CHECK(::access((env / "bin" / "tool-run").c_str(), X_OK) == 0);
  const fs::path site = fs::path(built.python_path).parent_path().parent_path() / "lib";
  bool pth = false;
  std::string record;
  for (const auto& lib : fs::directory_iterator(site)) {
    pth = fs::exists(lib.path() / "site-packages" / "tool.pth");
    record = slurp(lib.path() / "site-packages" / "tool-1.0.dist-info" / "RECORD");
  }
  CHECK(pth);
  CHECK(record.find("../../../bin/tool-run,,") != std::string::npos);
  CHECK(record.find("../../../bin/tool-sh,,") != std::string::npos);
  CHECK(record.find(".data/") == std::string::npos);
  // The console script really runs with the environment's python.
  envbisect::ProcessSpec spec;
  spec.argv = {(env / "bin" / "tool-run").string()};
  spec.env = envbisect::allowed_parent_env();
  spec.stdout_path = (dir.path / "tool.out").string();
  REQUIRE(runner.run(spec).exit_code == 0);
  CHECK(slurp(dir.path / "tool.out") == "tool says hi\n");
}

TEST_CASE("two concurrent materializations share one cold store safely", "[env_store]") {
  TempDir dir("store");
  envbisect::LocalRunner runner;
  const StoreOptions options = store_at(dir.path / "store");
  const std::map<std::string, std::string> packages = {{"alpha", "1.0+cu130"}, {"beta-pkg", "2.0"}, {"tool", "1.0"}};
  wheelhouse();  // built here, once, before the threads race
  VenvResult results[2];
  std::string errors[2];
  auto build = [&](int i) {
    try {
      results[i] = envbisect::materialize_venv(runner, request_in(dir, packages, i == 0 ? "a" : "b"), options);
    } catch (const std::exception& e) {
      errors[i] = e.what();
    }
  };
  std::thread other(build, 1);
  build(0);
  other.join();
  CHECK(errors[0] == "");
  CHECK(errors[1] == "");
  CHECK(results[0].ok);
  CHECK(results[1].ok);
  CHECK(results[0].installed == results[1].installed);
  CHECK(count_entries(dir.path / "store" / "v1" / "dists") == 3);
  CHECK(count_entries(dir.path / "store" / "v1" / "tmp") == 0);
}

TEST_CASE("an interrupted unpack is never visible, and is cleaned up", "[env_store]") {
  TempDir dir("store");
  envbisect::Store store((dir.path / "store").string());
  const auto alpha = envbisect::find_distribution({{wheelhouse().string()}, {}}, "alpha", "1.0+cu128", "3.11");
  REQUIRE(alpha);
  const envbisect::StoreEntry entry = store.ensure(*alpha);
  CHECK(entry.unpacked_now);
  // Simulate a process killed mid-unpack: no entry, a half-written temp folder of it and of another.
  fs::remove_all(entry.dir);
  const fs::path tmp = dir.path / "store" / "v1" / "tmp";
  fs::create_directories(tmp / (entry.id + "@99999-0") / "site" / "alpha");
  fs::create_directories(tmp / "other-1.0-abc@99998-3" / "site");
  const envbisect::StoreEntry again = store.ensure(*alpha);
  CHECK(again.unpacked_now);
  CHECK(again.id == entry.id);
  CHECK(fs::exists(fs::path(again.dir) / "manifest"));
  CHECK_FALSE(fs::exists(tmp / (entry.id + "@99999-0")));
  // gc (nothing running) removes every unfinished unpack and keeps recently used entries.
  const envbisect::GcReport kept = store.gc(std::chrono::hours(24));
  CHECK(kept.stale_temps_removed == 1);
  CHECK(kept.kept == 1);
  CHECK(kept.removed.empty());
  const envbisect::GcReport removed = store.gc(std::chrono::seconds(0));
  CHECK(removed.removed == std::vector<std::string>{entry.id});
  CHECK_FALSE(fs::exists(entry.dir));
}

TEST_CASE("a pinned group moves together, an unresolvable mix is a skip with the resolver's reason", "[env_store]") {
  TempDir dir("store");
  envbisect::LocalRunner runner;
  const StoreOptions options = store_at(shared_store());
  // beta-pkg pins alpha==1.0, which every local label of 1.0 satisfies.
  CHECK(envbisect::materialize_venv(runner, request_in(dir, {{"alpha", "1.0+cu130"}, {"beta-pkg", "2.0"}}, "group"), options).ok);
  // delta's requirement behind `extra == "x"` is not asked for; its python_version marker applies.
  CHECK(envbisect::materialize_venv(runner, request_in(dir, {{"alpha", "1.0+cu130"}, {"delta", "1.0"}}, "marker"), options).ok);

  const VenvResult clash = envbisect::materialize_venv(runner, request_in(dir, {{"alpha", "1.0+cu128"}, {"gamma", "1.0"}}, "clash"), options);
  CHECK_FALSE(clash.ok);
  CHECK(clash.reason.find("ResolutionImpossible") != std::string::npos);
  CHECK(clash.reason.find("gamma 1.0 requires alpha==3.0, but the candidate has alpha 1.0+cu128") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path / "envs" / "clash"));

  const VenvResult alone = envbisect::materialize_venv(runner, request_in(dir, {{"beta-pkg", "2.0"}}, "alone"), options);
  CHECK_FALSE(alone.ok);
  CHECK(alone.reason.find("beta-pkg 2.0 requires alpha==1.0, which the candidate lacks") != std::string::npos);

  const VenvResult missing = envbisect::materialize_venv(runner, request_in(dir, {{"alpha", "1.0+cu126"}}, "missing"), options);
  CHECK_FALSE(missing.ok);
  CHECK(missing.reason.find("alpha==1.0+cu126 (found: 1.0+cu128, 1.0+cu130)") != std::string::npos);
}

TEST_CASE("an exact local-label build is restored from a uv cache layout", "[env_store]") {
  TempDir dir("store");
  envbisect::LocalRunner runner;
  // uv keeps each wheel unpacked in archive-v0/<random id>/, its dist-info beside the package files.
  const fs::path cache = dir.path / "uv-cache";
  envbisect::extract_zip((wheelhouse() / "alpha-1.0+cu128-py3-none-any.whl").string(), (cache / "archive-v0" / "Xk2f9aQ1").string());
  envbisect::extract_zip((wheelhouse() / "alpha-1.0+cu130-py3-none-any.whl").string(), (cache / "archive-v0" / "b7Hq0ZzP").string());
  fs::create_directories(cache / "archive-v0" / "tool-env" / "lib");  // a cached tool environment: not a wheel
  StoreOptions options = store_at(dir.path / "store");
  options.uv_cache_dirs = {cache.string()};
  VenvRequest request = request_in(dir, {{"alpha", "1.0+cu128"}});
  request.wheel_dirs.clear();
  options.verify = envbisect::VerifyInstalled::importlib;
  const VenvResult built = envbisect::materialize_venv(runner, request, options);
  REQUIRE(built.ok);
  CHECK(built.installed == std::map<std::string, std::string>{{"alpha", "1.0+cu128"}});
  CHECK(slurp(dir.path / "logs-env" / "materialize.log").find("uv cache archive " + (cache / "archive-v0" / "Xk2f9aQ1").string()) != std::string::npos);

  // `locate` names the archive for the exact build, and says clearly when there is none.
  std::ostringstream out;
  std::ostringstream err;
  envbisect::LocateOptions locate;
  locate.requirement = "alpha==1.0+cu128";
  locate.wheel_dirs = {wheelhouse().string()};
  locate.uv_caches = {cache.string(), (dir.path / "no-cache").string()};
  CHECK(envbisect::run_locate(locate, out, err) == envbisect::ExitCode::ok);
  CHECK(out.str() == "wheel " + (wheelhouse() / "alpha-1.0+cu128-py3-none-any.whl").string() + "\nuv cache archive " +
                         (cache / "archive-v0" / "Xk2f9aQ1").string() + " (alpha-1.0+cu128.dist-info)\n");
  locate.requirement = "alpha==1.0+cu126";
  out.str("");
  err.str("");
  CHECK(envbisect::run_locate(locate, out, err) == envbisect::ExitCode::inconclusive);
  CHECK(out.str().empty());
  CHECK(err.str().find("alpha==1.0+cu126 cannot be restored") != std::string::npos);
  locate.requirement = "alpha>=1";
  CHECK_THROWS_AS(envbisect::run_locate(locate, out, err), envbisect::Error);
}

TEST_CASE("gc removes shared environments unused for the period, never one being built", "[env_store]") {
  TempDir dir("store");
  envbisect::Store store((dir.path / "store").string());
  const fs::path envs = dir.path / "store" / "envs";
  auto make_env = [&](const std::string& name, std::chrono::hours age) {
    fs::create_directories(envs / name / "bin");
    const fs::path marker = envs / name / "envbisect-built.json";
    envbisect::write_file_atomic(marker.string(), "{\"ok\": true}\n");
    fs::last_write_time(marker, fs::file_time_type::clock::now() - age);
  };
  make_env("old", std::chrono::hours(24 * 40));
  make_env("recent", std::chrono::hours(1));
  make_env("building", std::chrono::hours(24 * 40));
  fs::create_directories(envs / "unfinished");  // no marker: a build killed midway
  const envbisect::FileLock held((envs / "building.lock").string(), envbisect::LockMode::exclusive,
                                 envbisect::LockWait::yes);
  const envbisect::GcReport report = store.gc(std::chrono::hours(24 * 30));
  CHECK(report.envs_removed == 2);
  CHECK_FALSE(fs::exists(envs / "old"));
  CHECK_FALSE(fs::exists(envs / "unfinished"));
  CHECK(fs::exists(envs / "recent" / "envbisect-built.json"));
  CHECK(fs::exists(envs / "building" / "envbisect-built.json"));
}

TEST_CASE("a wheel whose dist-info folder names another distribution is bad input", "[env_store]") {
  // q-9.9.dist-info holding p's METADATA: importlib.metadata.version("p") found nothing in the candidate.
  TempDir dir("store");
  const fs::path wheels = dir.path / "wheels";
  build_wheels(wheels, {{"p", "2.0",
                         {{"p/__init__.py", ""},
                          {"q-9.9.dist-info/METADATA", "Metadata-Version: 2.1\nName: p\nVersion: 2.0\n"},
                          {"q-9.9.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}},
                         {}, WheelLayout::as_given},
                        {"foo-bar", "1.0",
                         {{"foo_bar/__init__.py", ""},
                          {"foo-bar-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: foo-bar\nVersion: 1.0\n"},
                          {"foo-bar-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}},
                         {}, WheelLayout::as_given}});
  envbisect::Store store((dir.path / "store").string());
  const auto p = envbisect::find_distribution({{wheels.string()}, {}}, "p", "2.0", "3.11");
  REQUIRE(p);
  CHECK(unpack_refusal(store, *p).find("its dist-info folder q-9.9.dist-info is not named for p") != std::string::npos);
  CHECK(count_entries(dir.path / "store" / "v1" / "dists") == 0);
  // An unescaped name ("foo-bar-1.0.dist-info", as old tools wrote it) is foo-bar's folder still, as pip reads it.
  const auto foo = envbisect::find_distribution({{wheels.string()}, {}}, "foo-bar", "1.0", "3.11");
  REQUIRE(foo);
  CHECK(store.ensure(*foo).dist_info == "foo-bar-1.0.dist-info");
}

TEST_CASE("a uv cache archive whose files changed after uv unpacked it is bad input, not the build it names", "[env_store]") {
  // uv hard-links installed files to its cache's inodes, so a benchmark that wrote into a uv-installed
  // environment changed the archive; its RECORD (the wheel's) still names the build.
  TempDir dir("store");
  const fs::path cache = dir.path / "uv-cache";
  const fs::path archive = cache / "archive-v0" / "Xk2f9aQ1";
  envbisect::extract_zip((wheelhouse() / "alpha-1.0+cu128-py3-none-any.whl").string(), archive.string());
  const envbisect::WheelSources sources{{}, {cache.string()}};
  auto alpha = envbisect::find_distribution(sources, "alpha", "1.0+cu128", "3.11");
  REQUIRE(alpha);
  envbisect::Store clean((dir.path / "clean-store").string());
  CHECK_NOTHROW(clean.ensure(*alpha));  // as uv left it: the RECORD agrees
  {
    std::ofstream edit(archive / "alpha" / "__init__.py", std::ios::app);
    edit << "SLOW = True\n";
  }
  envbisect::Store store((dir.path / "store").string());
  const std::string changed = unpack_refusal(store, *alpha);
  CHECK(changed.find("uv cache archive") != std::string::npos);
  CHECK(changed.find("alpha/__init__.py") != std::string::npos);
  CHECK(count_entries(dir.path / "store" / "v1" / "dists") == 0);
}

TEST_CASE("a uv cache archive holding a link that leaves it is bad input, not linked into a candidate", "[env_store]") {
  // uv unpacks wheels as plain files; a link to /etc or up out of the archive, recreated in a
  // candidate, would let its benchmark write outside the environment and the store.
  TempDir dir("store");
  const fs::path cache = dir.path / "uv-cache";
  const fs::path archive = cache / "archive-v0" / "Xk2f9aQ1";
  envbisect::extract_zip((wheelhouse() / "alpha-1.0+cu128-py3-none-any.whl").string(), archive.string());
  envbisect::Store store((dir.path / "store").string());
  const envbisect::WheelSources sources{{}, {cache.string()}};
  fs::create_symlink("inner.py", archive / "alpha" / "same-folder.py");  // stays inside: fine
  fs::create_symlink(fs::path("..") / "alpha" / "inner.py", archive / "alpha" / "up-and-back.py");
  auto alpha = envbisect::find_distribution(sources, "alpha", "1.0+cu128", "3.11");
  REQUIRE(alpha);
  // Links that stay inside are not refused as links; they are files the wheel's RECORD does not list.
  const std::string unlisted = unpack_refusal(store, *alpha);
  CHECK(unlisted.find("does not match the wheel's files") != std::string::npos);
  CHECK(unlisted.find("holds a link") == std::string::npos);
  for (const auto& [name, target] : {std::pair{"shared", fs::path(dir.path / "outside")},
                                     std::pair{"climb", fs::path("..") / ".." / "outside"}}) {
    INFO(name);
    TempDir other("store-links");
    envbisect::extract_zip((wheelhouse() / "alpha-1.0+cu128-py3-none-any.whl").string(),
                           (other.path / "archive-v0" / "a1").string());
    fs::create_symlink(target, other.path / "archive-v0" / "a1" / "alpha" / name);
    envbisect::Store fresh((other.path / "store").string());
    alpha = envbisect::find_distribution({{}, {other.path.string()}}, "alpha", "1.0+cu128", "3.11");
    REQUIRE(alpha);
    CHECK(unpack_refusal(fresh, *alpha).find("holds a link that leaves it, alpha/" + std::string(name) + " -> " +
                                             target.string()) != std::string::npos);
    CHECK(count_entries(other.path / "store" / "v1" / "dists") == 0);
  }
}

TEST_CASE("a file two distributions ship is a warning of the build, not only a line in its log", "[env_store]") {
  // mmm ships aaa/__init__.py too: the environment holds mmm's copy (the later one, as pip does), and
  // a person reading the run must learn that the candidate's aaa is not aaa's build alone.
  TempDir dir("store");
  const fs::path wheels = dir.path / "wheels";
  build_wheels(wheels, {{"aaa", "1.0", {{"aaa/__init__.py", "A = 1\n"}}, {}},
                        {"mmm", "1.0", {{"mmm/__init__.py", ""}, {"aaa/__init__.py", "A = 666\n"}}, {}}});
  envbisect::LocalRunner runner;
  VenvRequest request = request_in(dir, {{"aaa", "1.0"}, {"mmm", "1.0"}});
  request.wheel_dirs = {wheels.string()};
  const VenvResult built = envbisect::materialize_venv(runner, request, store_at(dir.path / "store"));
  REQUIRE(built.ok);
  // The module and its bytecode compiled in the store: both are mmm's copies.
  REQUIRE(built.warnings.size() == 2);
  for (const std::string& warning : built.warnings) {
    CHECK(warning.rfind("mmm 1.0 overwrites ", 0) == 0);
    CHECK(warning.find("/aaa/") != std::string::npos);
  }
  CHECK(std::any_of(built.warnings.begin(), built.warnings.end(), [](const std::string& w) {
    return w.find("/aaa/__init__.py, a file another distribution ships") != std::string::npos;
  }));
}

// The distribution NAME 1.0 among the wheels in `wheels`.
static envbisect::Distribution wheel_1_0(const fs::path& wheels, const std::string& name) {
  const auto found = envbisect::find_distribution({{wheels.string()}, {}}, name, "1.0", "3.11");
  REQUIRE(found);
  return *found;
}

TEST_CASE("a wheel whose files disagree with its RECORD is bad input, and the store keeps nothing of it", "[env_store]") {
  // A file changed or added after the wheel was built: not the build the state names (PEP 427 asks
  // installers to refuse it). The .data parts are checked where they land.
  TempDir dir("store");
  const fs::path wheels = dir.path / "wheels";
  auto files = [](const std::string& name) {
    const std::string di = name + "-1.0.dist-info";
    return std::map<std::string, std::string>{
        {name + "/__init__.py", "X = 1\n"},
        {name + "-1.0.data/purelib/" + name + "_extra.py", "Y = 2\n"},
        {name + "-1.0.data/scripts/" + name + "-run", "#!python\nprint(1)\n"},
        {name + "-1.0.data/headers/" + name + ".h", "int x;\n"},
        {di + "/METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: 1.0\n"},
        {di + "/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}};
  };
  build_wheels(wheels, {{"good", "1.0", files("good"), {}, WheelLayout::as_given_hashed},
                        {"changed", "1.0", files("changed"), {}, WheelLayout::as_given_hashed},
                        {"added", "1.0", files("added"), {}, WheelLayout::as_given_hashed},
                        {"moved", "1.0", files("moved"), {}, WheelLayout::as_given_hashed}});
  envbisect::env_test::rewrite_wheel_member(wheels / "changed-1.0-py3-none-any.whl", "changed/__init__.py", "X = 666\n");
  envbisect::env_test::rewrite_wheel_member(wheels / "added-1.0-py3-none-any.whl", "added/sitecustomize.py", "import os\n");
  envbisect::env_test::rewrite_wheel_member(wheels / "moved-1.0-py3-none-any.whl", "moved-1.0.data/scripts/moved-run",
                                            "#!python\nprint(2)\n");
  envbisect::Store store((dir.path / "store").string());
  CHECK(store.ensure(wheel_1_0(wheels, "good")).dist_info == "good-1.0.dist-info");
  for (const auto& [name, problem] : std::vector<std::pair<std::string, std::string>>{
           {"changed", "changed/__init__.py: its sha256 is "},
           {"added", "added/sitecustomize.py: not in RECORD"},
           {"moved", "moved-1.0.data/scripts/moved-run: its sha256 is "}}) {
    INFO(name);
    const std::string message = unpack_refusal(store, wheel_1_0(wheels, name));
    CHECK(message.find(name + "-1.0.dist-info/RECORD does not match the wheel's files") != std::string::npos);
    CHECK(message.find(problem) != std::string::npos);
  }
  CHECK(count_entries(dir.path / "store" / "v1" / "dists") == 1);
}

TEST_CASE("a wheel of another major Wheel-Version, or without WHEEL, is bad input as pip and uv make it", "[env_store]") {
  // PEP 427: an installer must refuse a Wheel-Version whose major version it does not know.
  TempDir dir("store");
  const fs::path wheels = dir.path / "wheels";
  auto files = [](const std::string& name, const std::string& wheel_file) {
    const std::string di = name + "-1.0.dist-info";
    std::map<std::string, std::string> out{{name + "/__init__.py", ""},
                                           {di + "/METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: 1.0\n"}};
    if (!wheel_file.empty()) {
      out[di + "/WHEEL"] = wheel_file;
    }
    return out;
  };
  build_wheels(wheels, {{"minor", "1.0", files("minor", "Wheel-Version: 1.9\r\nRoot-Is-Purelib: true\r\n"), {},
                         WheelLayout::as_given},
                        {"major", "1.0", files("major", "Wheel-Version: 2.0\nRoot-Is-Purelib: true\n"), {},
                         WheelLayout::as_given},
                        {"unversioned", "1.0", files("unversioned", "Root-Is-Purelib: true\n"), {}, WheelLayout::as_given},
                        {"nowheel", "1.0", files("nowheel", ""), {}, WheelLayout::as_given}});
  envbisect::Store store((dir.path / "store").string());
  CHECK(store.ensure(wheel_1_0(wheels, "minor")).dist_info == "minor-1.0.dist-info");
  for (const auto& [name, problem] : std::vector<std::pair<std::string, std::string>>{
           {"major", "major-1.0.dist-info/WHEEL says Wheel-Version 2.0; pip and uv install wheels of version 1.x only"},
           {"unversioned", "unversioned-1.0.dist-info/WHEEL says no Wheel-Version"},
           {"nowheel", "no readable nowheel-1.0.dist-info/WHEEL"}}) {
    INFO(name);
    CHECK(unpack_refusal(store, wheel_1_0(wheels, name)).find(problem) != std::string::npos);
  }
  CHECK(count_entries(dir.path / "store" / "v1" / "dists") == 1);
}
