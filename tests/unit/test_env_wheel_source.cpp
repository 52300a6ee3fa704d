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
  const std::string why = envbisect::describe_missing_pin(sources, "alpha", "1.0", missing, "3.11");
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
  // A pin by wheel file name alone (no sha256) takes that file, though the build tag 10 would win.
  const auto pinned = envbisect::find_distribution(sources, "alpha", "1.0", "3.11", WheelPin{"alpha-1.0-2-py3-none-any.whl", ""});
  REQUIRE(pinned);
  CHECK(fs::path(pinned->path).filename() == "alpha-1.0-2-py3-none-any.whl");
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
  const std::string why = envbisect::describe_missing_pin(sources, "alpha", "1.0+cu128", WheelPin{"", std::string(64, 'a')}, "3.11");
  CHECK(why.find("rename it to alpha-1.0+cu128-py3-none-any.whl") != std::string::npos);
}

namespace {

// A wheel folder holding okpkg 1.0 under the given file names, each with its own bytes (as the builds
// of one version for several platforms are): pip and uv choose among them by the tags in the name.
struct TaggedBuilds {
  TempDir dir{"wheel-tags"};
  fs::path folder = dir.path / "wheels";
  explicit TaggedBuilds(const std::vector<std::string>& files) {
    build_wheels(dir.path / "base", {{"okpkg", "1.0", {{"okpkg/__init__.py", "X = 1\n"}}, {}}});
    fs::create_directories(folder);
    for (const std::string& file : files) {
      fs::copy_file(dir.path / "base" / "okpkg-1.0-py3-none-any.whl", folder / file);
      std::ofstream(folder / file, std::ios::app) << file;
    }
  }
  WheelSources sources() const { return WheelSources{{folder.string()}, {}}; }
  // Return the file find_distribution takes for CPython `python` ("" when none).
  std::string chosen(const std::string& python = "3.11") const {
    const auto dist = envbisect::find_distribution(sources(), "okpkg", "1.0", python);
    return dist ? fs::path(dist->path).filename().string() : std::string();
  }
};

// Write a uv cache archive of okpkg 1.0 whose WHEEL file says `tags` (one Tag line each).
void write_uv_archive(const fs::path& cache, const std::string& id, const std::vector<std::string>& tags) {
  const fs::path info = cache / "archive-v0" / id / "okpkg-1.0.dist-info";
  fs::create_directories(info);
  std::ofstream(info / "METADATA") << "Metadata-Version: 2.1\nName: okpkg\nVersion: 1.0\n";
  std::ofstream wheel(info / "WHEEL");
  wheel << "Wheel-Version: 1.0\nRoot-Is-Purelib: false\n";
  for (const std::string& tag : tags) {
    wheel << "Tag: " << tag << "\n";
  }
  std::ofstream(info / "RECORD") << id << "\n";
}

}  // namespace

TEST_CASE("a musllinux wheel is never taken on glibc, nor named as a rival build", "[env][wheel_source]") {
  // musllinux sorts first; before, it was taken and py3-none-any only named in a warning.
  const TaggedBuilds builds({"okpkg-1.0-cp311-cp311-musllinux_1_2_x86_64.whl", "okpkg-1.0-py3-none-any.whl"});
  CHECK(builds.chosen() == "okpkg-1.0-py3-none-any.whl");
  const auto dist = envbisect::find_distribution(builds.sources(), "okpkg", "1.0", "3.11");
  REQUIRE(dist);
  CHECK(envbisect::other_builds(builds.sources(), *dist, "3.11").empty());
  // Without a Python version the platform still counts.
  CHECK(builds.chosen("") == "okpkg-1.0-py3-none-any.whl");
}

TEST_CASE("a wheel needing a newer glibc, or a debug or free-threaded ABI, is not found, and the reason says why",
          "[env][wheel_source]") {
  const TaggedBuilds glibc({"okpkg-1.0-cp311-cp311-manylinux_2_99_x86_64.whl"});
  CHECK(glibc.chosen().empty());
  const std::vector<std::string> misfits = envbisect::misfit_builds(glibc.sources(), "okpkg", "1.0", "3.11");
  REQUIRE(misfits.size() == 1);
  CHECK(misfits[0] == (glibc.folder / "okpkg-1.0-cp311-cp311-manylinux_2_99_x86_64.whl").string() +
                          " (tags cp311-cp311-manylinux_2_99_x86_64): built for platform manylinux_2_99_x86_64 "
                          "(needs glibc 2.99), the target is Linux x86_64 with glibc 2.36");
  CHECK(glibc.chosen("").empty());

  const TaggedBuilds abis({"okpkg-1.0-cp311-cp311d-manylinux_2_17_x86_64.whl", "okpkg-1.0-cp311-cp311t-manylinux_2_17_x86_64.whl"});
  CHECK(abis.chosen().empty());
  const std::vector<std::string> abi_misfits = envbisect::misfit_builds(abis.sources(), "okpkg", "1.0", "3.11");
  REQUIRE(abi_misfits.size() == 2);
  CHECK(abi_misfits[0].find("a debug CPython's ABI") != std::string::npos);
  CHECK(abi_misfits[1].find("a free-threaded CPython's ABI") != std::string::npos);
  // A pin on such a file is not found either, and its message says why.
  const std::string why = envbisect::describe_missing_pin(
      abis.sources(), "okpkg", "1.0", WheelPin{"okpkg-1.0-cp311-cp311d-manylinux_2_17_x86_64.whl", ""}, "3.11");
  CHECK_FALSE(envbisect::find_distribution(abis.sources(), "okpkg", "1.0", "3.11",
                                           WheelPin{"okpkg-1.0-cp311-cp311d-manylinux_2_17_x86_64.whl", ""}));
  CHECK(why.find("not installable into CPython 3.11") != std::string::npos);
  CHECK(why.find("a debug CPython's ABI") != std::string::npos);
}

TEST_CASE("of one version's wheels the tags pip and uv prefer win, then the build tag", "[env][wheel_source]") {
  // pip lists linux_x86_64 among the platform tags (last), all before any: the platform build wins.
  CHECK(TaggedBuilds({"okpkg-1.0-cp311-cp311-linux_x86_64.whl", "okpkg-1.0-py3-none-any.whl"}).chosen() ==
        "okpkg-1.0-cp311-cp311-linux_x86_64.whl");
  // The newest manylinux the target's glibc (2.36) allows, not the first name.
  const TaggedBuilds manylinux({"okpkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl",
                                "okpkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl",
                                "okpkg-1.0-cp311-cp311-manylinux_2_39_x86_64.whl"});
  CHECK(manylinux.chosen() == "okpkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl");
  CHECK(manylinux.chosen("") == "okpkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl");
  // The tags rank before the build tag, as in pip's candidate order; among equal tags the build tag decides.
  const TaggedBuilds mixed({"okpkg-1.0-1-cp311-cp311-manylinux_2_17_x86_64.whl", "okpkg-1.0-7-py3-none-any.whl",
                            "okpkg-1.0-2-cp311-cp311-manylinux_2_17_x86_64.whl", "okpkg-1.0-cp312-cp312-manylinux_2_28_x86_64.whl"});
  CHECK(mixed.chosen() == "okpkg-1.0-2-cp311-cp311-manylinux_2_17_x86_64.whl");
  const auto dist = envbisect::find_distribution(mixed.sources(), "okpkg", "1.0", "3.11");
  REQUIRE(dist);
  // Only the build that ties on its tags could be meant; py3-none-any and cp312 are no rivals.
  const std::vector<std::string> others = envbisect::other_builds(mixed.sources(), *dist, "3.11");
  REQUIRE(others.size() == 1);
  CHECK(fs::path(others[0]).filename() == "okpkg-1.0-1-cp311-cp311-manylinux_2_17_x86_64.whl");
  // Other interpreters take their own build.
  CHECK(mixed.chosen("3.12") == "okpkg-1.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  CHECK(mixed.chosen("3.10") == "okpkg-1.0-7-py3-none-any.whl");
}

TEST_CASE("uv cache archives are chosen by their WHEEL tags, after the wheel folders", "[env][wheel_source]") {
  TempDir dir{"uv-tags"};
  const fs::path cache = dir.path / "uv";
  write_uv_archive(cache, "a-musl", {"cp311-cp311-musllinux_1_2_x86_64"});
  write_uv_archive(cache, "b-pure", {"py2-none-any", "py3-none-any"});
  write_uv_archive(cache, "c-glibc", {"cp311-cp311-manylinux_2_17_x86_64", "cp311-cp311-manylinux2014_x86_64"});
  const WheelSources sources{{}, {cache.string()}};
  const auto chosen = envbisect::find_distribution(sources, "okpkg", "1.0", "3.11");
  REQUIRE(chosen);
  CHECK(fs::path(chosen->path).filename() == "c-glibc");
  CHECK(chosen->tags == "cp311-cp311-manylinux_2_17_x86_64 cp311-cp311-manylinux2014_x86_64");
  CHECK(envbisect::other_builds(sources, *chosen, "3.11").empty());
  CHECK(fs::path(envbisect::find_distribution(sources, "okpkg", "1.0", "3.12")->path).filename() == "b-pure");
  const std::vector<std::string> misfits = envbisect::misfit_builds(sources, "okpkg", "1.0", "3.11");
  REQUIRE(misfits.size() == 1);
  CHECK(misfits[0].find("a-musl (tags cp311-cp311-musllinux_1_2_x86_64): built for platform musllinux_1_2_x86_64") !=
        std::string::npos);
  // A wheel folder still comes first, even with a pure-Python wheel.
  const TaggedBuilds folder({"okpkg-1.0-py3-none-any.whl"});
  const auto both = envbisect::find_distribution(WheelSources{{folder.folder.string()}, {cache.string()}}, "okpkg", "1.0", "3.11");
  REQUIRE(both);
  CHECK(both->kind == envbisect::SourceKind::wheel);
}
