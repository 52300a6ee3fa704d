#include <catch2/catch.hpp>

#include "core/marker.hpp"
#include "core/wheel_name.hpp"
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

TEST_CASE("`extra` holds for the extras the environment names (uv's conflict markers)", "[core][marker]") {
  MarkerEnvironment env = linux_marker_environment("3.12");
  env.extras = {"extra-7-nanochat-gpu", "group-11-pydantic-ai-dev"};
  CHECK(evaluate_marker("extra == 'extra-7-nanochat-gpu'", env));
  CHECK_FALSE(evaluate_marker("extra == 'extra-7-nanochat-cpu'", env));
  CHECK(evaluate_marker("extra != 'extra-7-nanochat-cpu' and extra == 'group-11-pydantic-ai-dev'", env));
  CHECK_FALSE(evaluate_marker("sys_platform == 'linux' and extra != 'extra-7-nanochat-gpu'", env));
  CHECK(evaluate_marker("'extra-7-nanochat-gpu' == extra", env));
}

TEST_CASE("A dependency's marker: simple and parenthesised clauses evaluate, extras never apply, the rest is unknown",
          "[core][marker]") {
  const MarkerEnvironment env = cpython_linux_environment("3.11", "3.11.7");
  CHECK(marker_holds("", env) == true);
  CHECK(marker_holds("python_version >= \"3.8\"", env) == true);
  CHECK(marker_holds("python_version < '3.10'", env) == false);
  CHECK(marker_holds("sys_platform == 'win32' or python_version > '3.9'", env) == true);
  CHECK(marker_holds("sys_platform == 'linux' and os_name == 'nt'", env) == false);
  CHECK(marker_holds("extra == 'cuda'", env) == false);
  CHECK(marker_holds("(os_name == 'nt')", env) == false);
  CHECK(marker_holds("python_full_version >= '3.11.7' and (os_name == 'nt' or sys_platform == 'linux')", env) == true);
  CHECK_FALSE(marker_holds("platform_release >= '5'", env).has_value());  // the machine alone knows it
  CHECK_FALSE(marker_holds("sys_platform = 'linux'", env).has_value());
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

TEST_CASE("Wheel tags: what pip and uv refuse on a standard CPython 3.11, Linux x86_64, glibc 2.36", "[core][wheel_tags]") {
  const MarkerEnvironment env = linux_marker_environment("3.11");
  auto score = [&](const char* file) { return wheel_tag_score(*parse_wheel_name(file), env); };
  auto why = [&](const char* file) { return wheel_misfit_reason(*parse_wheel_name(file), env); };
  // musl wheels need musl libc: pip and uv list no musllinux tag on a glibc system.
  CHECK(score("x-1.0-cp311-cp311-musllinux_1_2_x86_64.whl") < 0);
  CHECK(why("x-1.0-cp311-cp311-musllinux_1_2_x86_64.whl") ==
        "built for platform musllinux_1_2_x86_64 (musl libc, not glibc), the target is Linux x86_64 with glibc 2.36");
  // A manylinux tag past the target's glibc, and one older than pip and uv list (2.5 on x86_64).
  CHECK(score("x-1.0-cp311-cp311-manylinux_2_99_x86_64.whl") < 0);
  CHECK(why("x-1.0-cp311-cp311-manylinux_2_99_x86_64.whl") ==
        "built for platform manylinux_2_99_x86_64 (needs glibc 2.99), the target is Linux x86_64 with glibc 2.36");
  CHECK(score("x-1.0-cp311-cp311-manylinux_2_36_x86_64.whl") >= 0);
  CHECK(score("x-1.0-cp311-cp311-manylinux_2_4_x86_64.whl") < 0);
  CHECK(score("x-1.0-cp311-cp311-manylinux1_x86_64.whl") >= 0);
  // Debug ("d") and free-threaded ("t") ABIs, and the "m" flag that 3.8 dropped, are not 3.11's ABI.
  for (const char* file : {"x-1.0-cp311-cp311d-manylinux_2_17_x86_64.whl", "x-1.0-cp311-cp311t-manylinux_2_17_x86_64.whl",
                           "x-1.0-cp311-cp311m-manylinux_2_17_x86_64.whl"}) {
    INFO(file);
    CHECK(score(file) < 0);
    CHECK(why(file).rfind("ABI cp311", 0) == 0);
  }
  CHECK(why("x-1.0-cp311-cp311d-manylinux_2_17_x86_64.whl") ==
        "ABI cp311d (a debug CPython's ABI) does not fit a standard CPython 3.11 (its ABI is cp311)");
  CHECK(why("x-1.0-cp311-cp311t-manylinux_2_17_x86_64.whl").find("free-threaded") != std::string::npos);
  // Before 3.8 the pymalloc "m" flag is the ABI: cp37m fits 3.7, plain cp37 does not.
  const MarkerEnvironment py37 = linux_marker_environment("3.7");
  CHECK(wheel_tag_score(*parse_wheel_name("x-1.0-cp37-cp37m-manylinux1_x86_64.whl"), py37) >= 0);
  CHECK(wheel_tag_score(*parse_wheel_name("x-1.0-cp37-cp37-manylinux1_x86_64.whl"), py37) < 0);
  // abi3 and cpXY ABIs never come with `any`: pip and uv list only ABI none there.
  CHECK(score("x-1.0-cp311-abi3-any.whl") < 0);
  CHECK(score("x-1.0-cp311-cp311-any.whl") < 0);
  CHECK(score("x-1.0-cp311-none-any.whl") >= 0);
  CHECK(why("x-1.0-cp311-abi3-any.whl").find("only ABI none comes with platform any") != std::string::npos);
  // What the folder scan used to accept and still must: pure wheels of any 3.x up to 3.11, abi3 from 3.2.
  CHECK(score("x-1.0-py3-none-any.whl") >= 0);
  CHECK(score("x-1.0-py2.py3-none-any.whl") >= 0);
  CHECK(score("x-1.0-py39-none-any.whl") >= 0);
  CHECK(score("x-1.0-py312-none-any.whl") < 0);
  CHECK(score("x-1.0-cp39-abi3-manylinux2014_x86_64.whl") >= 0);
  CHECK(score("x-1.0-cp312-cp312-linux_x86_64.whl") < 0);
  CHECK(score("x-1.0-cp311-cp311-win_amd64.whl") < 0);
}

TEST_CASE("Wheel tags: pip's and uv's order on CPython 3.11, glibc 2.36", "[core][wheel_tags]") {
  const MarkerEnvironment env = linux_marker_environment("3.11");
  auto score = [&](const char* file) { return wheel_tag_score(*parse_wheel_name(file), env); };
  // The newest manylinux that fits wins (pyarrow ships 2_17 and 2_28 builds with different C++ ABIs).
  CHECK(score("x-1.0-cp311-cp311-manylinux_2_28_x86_64.whl") > score("x-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"));
  // linux_x86_64 comes after every manylinux tag, but a platform build still beats any.
  CHECK(score("x-1.0-cp311-cp311-manylinux_2_17_x86_64.whl") > score("x-1.0-cp311-cp311-linux_x86_64.whl"));
  CHECK(score("x-1.0-cp311-cp311-linux_x86_64.whl") > score("x-1.0-py3-none-any.whl"));
  // The interpreter and ABI rank before the platform: cpXY-cpXY on an old glibc over abi3 on a new one,
  // abi3 over a pure-Python platform wheel, py311 over py3 over py310, cp311-none-any over py3-none-any.
  CHECK(score("x-1.0-cp311-cp311-manylinux_2_17_x86_64.whl") > score("x-1.0-cp38-abi3-manylinux_2_34_x86_64.whl"));
  CHECK(score("x-1.0-cp311-abi3-manylinux_2_17_x86_64.whl") > score("x-1.0-cp311-none-manylinux_2_34_x86_64.whl"));
  CHECK(score("x-1.0-cp311-none-manylinux_2_17_x86_64.whl") > score("x-1.0-cp310-abi3-manylinux_2_34_x86_64.whl"));
  CHECK(score("x-1.0-cp310-abi3-manylinux_2_17_x86_64.whl") > score("x-1.0-cp38-abi3-manylinux_2_34_x86_64.whl"));
  CHECK(score("x-1.0-cp32-abi3-linux_x86_64.whl") > score("x-1.0-py311-none-manylinux_2_34_x86_64.whl"));
  CHECK(score("x-1.0-py311-none-linux_x86_64.whl") > score("x-1.0-py3-none-manylinux_2_34_x86_64.whl"));
  CHECK(score("x-1.0-py3-none-linux_x86_64.whl") > score("x-1.0-py310-none-manylinux_2_34_x86_64.whl"));
  CHECK(score("x-1.0-py30-none-linux_x86_64.whl") > score("x-1.0-cp311-none-any.whl"));
  CHECK(score("x-1.0-cp311-none-any.whl") > score("x-1.0-py311-none-any.whl"));
  CHECK(score("x-1.0-py311-none-any.whl") > score("x-1.0-py3-none-any.whl"));
  CHECK(score("x-1.0-py3-none-any.whl") > score("x-1.0-py310-none-any.whl"));
}

TEST_CASE("Wheel tags: without a Python version every interpreter fits, the platform still counts", "[core][wheel_tags]") {
  const MarkerEnvironment any;
  auto score = [&](const char* file) { return wheel_tag_score(*parse_wheel_name(file), any); };
  CHECK(score("x-1.0-cp313-cp313t-manylinux_2_17_x86_64.whl") >= 0);
  CHECK(score("x-1.0-py3-none-any.whl") >= 0);
  CHECK(score("x-1.0-cp313-cp313-manylinux_2_28_x86_64.whl") > score("x-1.0-cp313-cp313-manylinux_2_17_x86_64.whl"));
  CHECK(score("x-1.0-cp313-cp313-musllinux_1_2_x86_64.whl") < 0);
  CHECK(score("x-1.0-cp313-cp313-manylinux_2_39_x86_64.whl") < 0);
  CHECK(score("x-1.0-cp313-cp313-win_amd64.whl") < 0);
  CHECK(wheel_misfit_reason(*parse_wheel_name("x-1.0-cp313-cp313-musllinux_1_2_x86_64.whl"), any).find("musl libc") !=
        std::string::npos);
}
