#include <catch2/catch.hpp>

#include "core/marker.hpp"
#include "core/wheel_tags.hpp"
#include "util/error.hpp"

using namespace envbisect;

TEST_CASE("PEP 508 markers evaluate against a Linux CPython", "[core][marker]") {
  const MarkerEnvironment py312 = linux_marker_environment("3.12");
  struct Case {
    const char* marker;
    bool holds;
  };
  const Case cases[] = {
      {"", true},
      {"sys_platform == 'linux'", true},
      {"sys_platform == \"win32\"", false},
      {"platform_machine == 'x86_64' and sys_platform == 'linux'", true},
      {"platform_machine == 'aarch64' or sys_platform == 'darwin'", false},
      {"python_version >= '3.11'", true},
      {"python_version < '3.10'", false},
      {"python_full_version >= '3.12.1'", false},  // 3.12 means 3.12.0 here
      {"python_full_version < '3.13' and (sys_platform == 'linux' or os_name == 'nt')", true},
      {"python_version == '3.12.*'", true},
      {"python_version != '3.12.*'", false},
      {"python_version ~= '3.10'", true},
      {"'linux' in sys_platform", true},
      {"sys_platform not in 'win32 cygwin'", true},
      {"extra == 'cuda'", false},
      {"extra != 'cuda'", true},
      {"implementation_name == 'cpython' and platform_system == 'Linux'", true},
  };
  for (const Case& c : cases) {
    INFO(c.marker);
    CHECK(evaluate_marker(c.marker, py312) == c.holds);
  }
  CHECK(evaluate_marker("python_version < '3.12'", linux_marker_environment("3.11.7")));
  CHECK(evaluate_marker("platform_machine == 'aarch64'", linux_marker_environment("3.12", "aarch64")));
}

TEST_CASE("Malformed markers and versions are errors, not guesses", "[core][marker]") {
  const MarkerEnvironment env = linux_marker_environment("3.12");
  CHECK_THROWS_AS(evaluate_marker("sys_platform = 'linux'", env), Error);
  CHECK_THROWS_AS(evaluate_marker("(sys_platform == 'linux'", env), Error);
  CHECK_THROWS_AS(evaluate_marker("no_such_variable == '1'", env), Error);
  CHECK_THROWS_AS(evaluate_marker("sys_platform == 'linux", env), Error);
  CHECK_THROWS_AS(evaluate_marker("sys_platform == 'linux' trailing", env), Error);
  CHECK_THROWS_AS(linux_marker_environment("three"), Error);
  CHECK_THROWS_AS(linux_marker_environment("3"), Error);
}

TEST_CASE("Wheel tags: what pip and uv would install on CPython 3.12, Linux x86_64, glibc 2.36", "[core][wheel_tags]") {
  const MarkerEnvironment env = linux_marker_environment("3.12");
  auto score = [&](const char* file) { return wheel_tag_score(*parse_wheel_name(file), env); };
  CHECK(score("torch-2.11.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl") >= 0);
  CHECK(score("torch-2.11.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl") < 0);
  CHECK(score("torch-2.11.0+cu128-cp312-cp312-manylinux_2_28_aarch64.whl") < 0);
  CHECK(score("torch-2.11.0+cu128-cp312-cp312-win_amd64.whl") < 0);
  CHECK(score("x-1.0-cp312-cp312-manylinux_2_39_x86_64.whl") < 0);  // needs a newer glibc
  CHECK(score("x-1.0-cp38-abi3-manylinux2014_x86_64.whl") >= 0);
  CHECK(score("x-1.0-cp313-abi3-manylinux2014_x86_64.whl") < 0);
  CHECK(score("x-1.0-py3-none-any.whl") >= 0);
  CHECK(score("x-1.0-py2.py3-none-any.whl") >= 0);
  CHECK(score("x-1.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl") >= 0);
  // Preference: a platform build over pure Python, the exact ABI over abi3, the newest glibc that fits.
  CHECK(score("x-1.0-cp312-cp312-manylinux_2_17_x86_64.whl") > score("x-1.0-py3-none-any.whl"));
  CHECK(score("x-1.0-cp312-cp312-manylinux_2_17_x86_64.whl") > score("x-1.0-cp38-abi3-manylinux_2_17_x86_64.whl"));
  CHECK(score("x-1.0-cp312-cp312-manylinux_2_28_x86_64.whl") > score("x-1.0-cp312-cp312-manylinux_2_17_x86_64.whl"));
  CHECK(wheel_misfit_reason(*parse_wheel_name("x-1.0-cp313-cp313-manylinux_2_28_x86_64.whl"), env) ==
        "built for cp313, the interpreter is CPython 3.12");
  CHECK(wheel_misfit_reason(*parse_wheel_name("x-1.0-cp312-cp312-macosx_11_0_arm64.whl"), env).find("macosx_11_0_arm64") !=
        std::string::npos);
  CHECK(wheel_misfit_reason(*parse_wheel_name("x-1.0-py3-none-any.whl"), env).empty());
}
