#include "env/materialize.hpp"
#include "env/wheel_source.hpp"
#include "exec/runner.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

#include "env_test_support.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using envbisect::Distribution;
using envbisect::WheelPin;
using envbisect::WheelSources;
using envbisect::env_test::build_wheels;
using envbisect::env_test::slurp;
using envbisect::env_test::TempDir;

namespace {

// Two builds of alpha 1.0 with one file name and different bytes, in two folders, as a wheelhouse
// holds a rebuilt wheel next to the one it replaced.
struct TwoBuilds {
  TempDir dir{"wheel-pins"};
  fs::path first = dir.path / "first";
  fs::path second = dir.path / "second";
  TwoBuilds() {
    build_wheels(first, {{"alpha", "1.0", {{"alpha/__init__.py", "BUILD = 'first'\n"}}, {}}});
    build_wheels(second, {{"alpha", "1.0", {{"alpha/__init__.py", "BUILD = 'second'\n"}}, {}}});
  }
  std::string wheel(const fs::path& folder) const { return (folder / "alpha-1.0-py3-none-any.whl").string(); }
  std::string hash(const fs::path& folder) const { return envbisect::sha256_hex(slurp(wheel(folder))); }
};

}  // namespace

TEST_CASE("a sha256 pin chooses the wheel file among builds of one version", "[env][wheel_source]") {
  const TwoBuilds builds;
  const WheelSources sources{{builds.first.string(), builds.second.string()}, {}};
  // Unpinned: the first found, as before.
  REQUIRE(envbisect::find_distribution(sources, "alpha", "1.0", "3.11"));
  CHECK(envbisect::find_distribution(sources, "alpha", "1.0", "3.11")->path == builds.wheel(builds.first));
  // Pinned to the second build's hash: that file, though the first folder comes first.
  const auto pinned = envbisect::find_distribution(sources, "alpha", "1.0", "3.11", WheelPin{"", builds.hash(builds.second)});
  REQUIRE(pinned);
  CHECK(pinned->path == builds.wheel(builds.second));
  // Upper-case hex and a wheel-name pin agree.
  std::string upper = builds.hash(builds.second);
  for (char& c : upper) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  CHECK(envbisect::find_distribution(sources, "alpha", "1.0", "3.11", WheelPin{"alpha-1.0-py3-none-any.whl", upper})->path ==
        builds.wheel(builds.second));
  // No file with that hash: nothing, and the message names the package, the hash and every folder.
  const WheelPin missing{"", std::string(64, 'a')};
  CHECK_FALSE(envbisect::find_distribution(sources, "alpha", "1.0", "3.11", missing));
  const std::string why = envbisect::describe_missing_pin(sources, "alpha", "1.0", missing);
  CHECK(why.find("alpha==1.0") != std::string::npos);
  CHECK(why.find(std::string(64, 'a')) != std::string::npos);
  CHECK(why.find(builds.first.string()) != std::string::npos);
  CHECK(why.find(builds.second.string()) != std::string::npos);
}

TEST_CASE("a materialized environment holds the pinned build, a missing pin is a reason naming it", "[env][wheel_source]") {
  const TwoBuilds builds;
  envbisect::LocalRunner runner;
  envbisect::StoreOptions options;
  options.store_dir = (builds.dir.path / "store").string();
  envbisect::VenvRequest request;
  request.packages = {{"alpha", "1.0"}};
  request.pins = {{"alpha", WheelPin{"", builds.hash(builds.second)}}};
  request.wheel_dirs = {builds.first.string(), builds.second.string()};
  request.env_dir = (builds.dir.path / "env").string();
  request.log_dir = (builds.dir.path / "logs").string();
  const envbisect::VenvResult built = envbisect::materialize_venv(runner, request, options);
  REQUIRE(built.ok);
  bool found = false;
  for (const auto& lib : fs::directory_iterator(builds.dir.path / "env" / "lib")) {
    found = slurp(lib.path() / "site-packages" / "alpha" / "__init__.py") == "BUILD = 'second'\n";
  }
  CHECK(found);

  request.pins = {{"alpha", WheelPin{"", std::string(64, 'b')}}};
  request.env_dir = (builds.dir.path / "env2").string();
  const envbisect::VenvResult missing = envbisect::materialize_venv(runner, request, options);
  CHECK_FALSE(missing.ok);
  CHECK(missing.reason.find(std::string(64, 'b')) != std::string::npos);
}

TEST_CASE("an environment's key is the content of its wheels, not where they lie", "[env][wheel_source]") {
  const TwoBuilds builds;
  envbisect::StoreOptions options;
  options.store_dir = (builds.dir.path / "store").string();
  envbisect::VenvRequest request;
  request.python = "python3";
  request.packages = {{"alpha", "1.0"}};
  request.wheel_dirs = {builds.first.string()};
  const std::string before = envbisect::environment_key(request, options);
  CHECK(envbisect::environment_key(request, options) == before);
  // The same bytes in another folder: the same environment.
  const fs::path copy = builds.dir.path / "copy";
  fs::create_directories(copy);
  fs::copy_file(builds.wheel(builds.first), copy / "alpha-1.0-py3-none-any.whl");
  request.wheel_dirs = {copy.string()};
  CHECK(envbisect::environment_key(request, options) == before);
  // The wheel rebuilt in place (same name and version, new bytes): a new environment.
  fs::copy_file(builds.wheel(builds.second), copy / "alpha-1.0-py3-none-any.whl", fs::copy_options::overwrite_existing);
  CHECK(envbisect::environment_key(request, options) != before);
  // Another interpreter: another environment.
  request.wheel_dirs = {builds.first.string()};
  request.python = "/bin/sh";
  CHECK(envbisect::environment_key(request, options) != before);
}

TEST_CASE("an indexed source lists each package's builds as a scan of the folders does", "[env][wheel_source]") {
  TempDir dir{"wheel-index"};
  build_wheels(dir.path / "a", {{"alpha", "1.0", {{"alpha/__init__.py", ""}}, {}},
                                {"alpha", "1.1", {{"alpha/__init__.py", ""}}, {}},
                                {"Beta.Pkg", "2.0", {{"beta_pkg/__init__.py", ""}}, {}}});
  build_wheels(dir.path / "b", {{"alpha", "0.9", {{"alpha/__init__.py", ""}}, {}}});
  const WheelSources plain{{(dir.path / "a").string(), (dir.path / "b").string(), (dir.path / "missing").string()}, {}};
  const WheelSources indexed = envbisect::index_sources(plain);
  REQUIRE(indexed.listing != nullptr);
  for (const std::string name : {"alpha", "beta-pkg", "Beta_Pkg", "gamma", ""}) {
    const std::vector<Distribution> scanned = envbisect::list_distributions(plain, name);
    const std::vector<Distribution> looked_up = envbisect::list_distributions(indexed, name);
    REQUIRE(scanned.size() == looked_up.size());
    for (std::size_t i = 0; i < scanned.size(); ++i) {
      CHECK(scanned[i].path == looked_up[i].path);
      CHECK(scanned[i].version == looked_up[i].version);
      CHECK(scanned[i].tags == looked_up[i].tags);
    }
  }
  CHECK(envbisect::list_distributions(indexed, "alpha").size() == 3);  // folder order, then file order
  CHECK(envbisect::list_distributions(indexed, "alpha").back().version == "0.9");
  const auto found = envbisect::find_distribution(indexed, "ALPHA", "1.1", "3.11");
  REQUIRE(found);
  CHECK(found->path == (dir.path / "a" / "alpha-1.1-py3-none-any.whl").string());
}

TEST_CASE("of one version's builds the highest build tag wins, and the builds not taken are named", "[env][wheel_source]") {
  TempDir dir("wheel-build-tags");
  build_wheels(dir.path / "a", {{"alpha", "1.0", {{"alpha/__init__.py", "BUILD = 'plain'\n"}}, {}}});
  const fs::path plain = dir.path / "a" / "alpha-1.0-py3-none-any.whl";
  // Same tags, build tags 1, 2, 9 and 10: pip takes 10 (a number: "9" sorts after "10" as text), the
  // first name in the folder was "1".
  for (const char* tag : {"1", "2", "9", "10"}) {
    fs::copy_file(plain, dir.path / "a" / ("alpha-1.0-" + std::string(tag) + "-py3-none-any.whl"));
    std::ofstream(dir.path / "a" / ("alpha-1.0-" + std::string(tag) + "-py3-none-any.whl"), std::ios::app) << tag;
  }
  const WheelSources sources{{(dir.path / "a").string()}, {}};
  const auto chosen = envbisect::find_distribution(sources, "alpha", "1.0", "3.11");
  REQUIRE(chosen);
  CHECK(fs::path(chosen->path).filename() == "alpha-1.0-10-py3-none-any.whl");
  // The others have other bytes: each is named as a build the state could have meant.
  std::vector<std::string> others = envbisect::other_builds(sources, *chosen, "3.11");
  std::sort(others.begin(), others.end());
  REQUIRE(others.size() == 4);
  CHECK(fs::path(others[0]).filename() == "alpha-1.0-1-py3-none-any.whl");
  CHECK(fs::path(others[3]).filename() == "alpha-1.0-py3-none-any.whl");
}

TEST_CASE("a copy of the same wheel in a second folder is no other build", "[env][wheel_source]") {
  const TwoBuilds builds;
  fs::create_directories(builds.dir.path / "copy");
  fs::copy_file(builds.wheel(builds.first), builds.dir.path / "copy" / "alpha-1.0-py3-none-any.whl");
  const auto chosen = envbisect::find_distribution(WheelSources{{builds.first.string()}, {}}, "alpha", "1.0", "3.11");
  REQUIRE(chosen);
  CHECK(envbisect::other_builds(WheelSources{{builds.first.string(), (builds.dir.path / "copy").string()}, {}}, *chosen,
                                "3.11")
            .empty());
  const std::vector<std::string> others =
      envbisect::other_builds(WheelSources{{builds.first.string(), builds.second.string()}, {}}, *chosen, "3.11");
  REQUIRE(others.size() == 1);
  CHECK(others[0] == builds.wheel(builds.second));
}

TEST_CASE("a URL-encoded wheel file name is never used, and the not-found message says how to rename it",
          "[env][wheel_source]") {
  CHECK(envbisect::percent_decode("torch-2.11.0%2Bcu128-cp312") == "torch-2.11.0+cu128-cp312");
  CHECK(envbisect::percent_decode("a%2b%zz%2") == "a+%zz%2");  // lower-case hex decodes; a bad escape stays
  TempDir dir{"wheel-encoded"};
  build_wheels(dir.path, {{"alpha", "1.0+cu128", {{"alpha/__init__.py", "X = 1\n"}}, {}},
                          {"beta", "1.0", {{"beta/__init__.py", "X = 1\n"}}, {}}});
  fs::rename(dir.path / "alpha-1.0+cu128-py3-none-any.whl", dir.path / "alpha-1.0%2Bcu128-py3-none-any.whl");
  std::ofstream(dir.path / "alpha-1.0-oops.whl") << "not a wheel";
  const WheelSources sources{{dir.path.string()}, {}};
  // The encoded file is not a build of alpha 1.0+cu128: pip and uv refuse its name too.
  CHECK_FALSE(envbisect::find_distribution(sources, "alpha", "1.0+cu128", "3.11"));
  const std::vector<std::string> unreadable = envbisect::unreadable_wheel_files(sources, "Alpha");
  REQUIRE(unreadable.size() == 2);
  CHECK(unreadable[0] == (dir.path / "alpha-1.0%2Bcu128-py3-none-any.whl").string() +
                             ": its name is URL-encoded (as saved from a download URL); rename it to "
                             "alpha-1.0+cu128-py3-none-any.whl");
  CHECK(unreadable[1].rfind((dir.path / "alpha-1.0-oops.whl").string() + ": not a valid wheel file name", 0) == 0);
  // Other packages' files and valid wheels are not listed.
  CHECK(envbisect::unreadable_wheel_files(sources, "beta").empty());
  const std::string why = envbisect::describe_missing_pin(sources, "alpha", "1.0+cu128", WheelPin{"", std::string(64, 'a')});
  CHECK(why.find("rename it to alpha-1.0+cu128-py3-none-any.whl") != std::string::npos);
}
