#include "env/venv_builder.hpp"

#include "exec/runner.hpp"
#include "util/error.hpp"

#include "env_test_support.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;
using envbisect::VenvRequest;
using envbisect::VenvResult;
using envbisect::env_test::build_wheels;
using envbisect::env_test::TempDir;

namespace {

// The wheels the tests share, built once: two local labels of one version, a dependent one and an
// unsatisfiable one.
const fs::path& wheelhouse() {
  static const TempDir dir("venv-wheels");
  static const bool built = [] {
    build_wheels(dir.path, {{"alpha", "1.0+cu128", {{"alpha/__init__.py", "X = 1\n"}}, {}},
                            {"alpha", "1.0+cu130", {{"alpha/__init__.py", "X = 1\n"}}, {}},
                            {"beta_pkg", "2.0", {{"beta_pkg/__init__.py", "X = 1\n"}}, {"alpha==1.0"}},
                            {"gamma", "1.0", {{"gamma/__init__.py", "X = 1\n"}}, {"alpha==3.0"}}});
    return true;
  }();
  (void)built;
  return dir.path;
}

VenvRequest request_in(const TempDir& dir) {
  VenvRequest request;
  request.python = "python3";
  request.wheel_dirs = {wheelhouse().string()};
  request.env_dir = (dir.path / "envs" / "candidate").string();
  request.log_dir = (dir.path / "logs").string();
  return request;
}

}  // namespace

TEST_CASE("build_venv installs exactly the pinned wheels and reports what is inside", "[env][venv]") {
  TempDir dir("venv");
  envbisect::LocalRunner runner;
  // Leaks that must not reach pip: a find-links dir that would offer nothing, bytecode settings.
  ::setenv("PIP_FIND_LINKS", "/nonexistent/wheels", 1);
  ::setenv("PIP_NO_INDEX", "0", 1);

  VenvRequest request = request_in(dir);
  request.python_version = "3";
  request.packages = {{"alpha", "1.0+cu128"}, {"Beta_Pkg", "2.0"}};
  const VenvResult result = envbisect::build_venv(runner, request);
  INFO(result.reason);
  CHECK(result.ok);
  CHECK(result.builder == "pip");
  CHECK(result.installed == std::map<std::string, std::string>{{"alpha", "1.0+cu128"}, {"beta-pkg", "2.0"}});
  CHECK(fs::exists(result.python_path));
  CHECK(fs::path(result.python_path).is_absolute());
  CHECK_FALSE(fs::exists(fs::path(request.env_dir) / "bin" / "pip"));
  for (const std::string& log : result.log_paths) {
    CHECK(fs::exists(log));
  }
  ::unsetenv("PIP_FIND_LINKS");
  ::unsetenv("PIP_NO_INDEX");

  // The same env dir twice is a harness bug, not a skip.
  CHECK_THROWS_AS(envbisect::build_venv(runner, request), envbisect::Error);
}

TEST_CASE("build_venv turns a resolver conflict into a reason", "[env][venv]") {
  TempDir dir("venv");
  envbisect::LocalRunner runner;
  VenvRequest request = request_in(dir);
  request.packages = {{"alpha", "1.0+cu128"}, {"gamma", "1.0"}};
  const VenvResult result = envbisect::build_venv(runner, request);
  CHECK_FALSE(result.ok);
  CHECK_THAT(result.reason, Catch::Contains("pip install failed") && Catch::Contains("ResolutionImpossible") &&
                                Catch::Contains("gamma 1.0 depends on alpha==3.0"));
}

TEST_CASE("build_venv rejects an interpreter of the wrong version without building", "[env][venv]") {
  TempDir dir("venv");
  envbisect::LocalRunner runner;
  VenvRequest request = request_in(dir);
  request.python_version = "2.7";
  const VenvResult wrong = envbisect::build_venv(runner, request);
  CHECK_FALSE(wrong.ok);
  CHECK_THAT(wrong.reason, Catch::Contains("not 2.7"));
  CHECK_FALSE(fs::exists(request.env_dir));

  request.python = "python-envbisect-missing";
  request.python_version.clear();
  const VenvResult missing = envbisect::build_venv(runner, request);
  CHECK_FALSE(missing.ok);
  CHECK_THAT(missing.reason, Catch::Contains("python-envbisect-missing"));
}

TEST_CASE("install_differences names every mismatch", "[env][venv]") {
  using Set = std::map<std::string, std::string>;
  CHECK(envbisect::install_differences({{"a", "1"}}, {{"a", "1"}}).empty());
  CHECK(envbisect::install_differences(Set{{"a", "1+cu128"}, {"b", "2"}}, Set{{"a", "1+cu130"}, {"c", "3"}}) ==
        std::vector<std::string>{"a: wanted 1+cu128, installed 1+cu130", "missing b==2", "unrequested c==3"});
}
