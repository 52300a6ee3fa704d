// read_lock on uv.lock, pylock.toml, requirements.txt and pip freeze text, as written by uv and pip.
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "capture/lock_source.hpp"
#include "capture/lockfile.hpp"
#include "core/delta.hpp"
#include "core/installer_packages.hpp"
#include "core/state.hpp"
#include "util/error.hpp"

using namespace envbisect;

namespace {

const std::string k_a = std::string(64, 'a');
const std::string k_b = std::string(64, 'b');
const std::string k_c = std::string(64, 'c');

// A uv.lock (version 1) of a project that depends on torch from the cu128 index, numpy with two
// resolutions by Python version, a Windows-only package, and pytest in the dev group.
const std::string k_uv_lock = R"(version = 1
revision = 3
requires-python = ">=3.11"
resolution-markers = ["python_full_version >= '3.12'", "python_full_version < '3.12'"]

[[package]]
name = "trainer"
version = "0.1.0"
source = { editable = "." }
dependencies = [
    { name = "torch" },
    { name = "numpy", version = "2.3.0", source = { registry = "https://pypi.org/simple" }, marker = "python_full_version >= '3.12'" },
    { name = "numpy", version = "1.26.4", source = { registry = "https://pypi.org/simple" }, marker = "python_full_version < '3.12'" },
    { name = "pywin32", marker = "sys_platform == 'win32'" },
    { name = "accelerate", extra = ["testing"] },
]

[package.dev-dependencies]
dev = [{ name = "pytest" }]

[[package]]
name = "torch"
version = "2.11.0+cu128"
source = { registry = "https://download.pytorch.org/whl/cu128" }
dependencies = [{ name = "filelock" }, { name = "nvidia-cublas-cu12", marker = "platform_machine == 'x86_64' and sys_platform == 'linux'" }]
wheels = [
    { url = "https://download.pytorch.org/whl/cu128/torch-2.11.0%2Bcu128-cp311-cp311-manylinux_2_28_x86_64.whl", hash = "sha256:)" + k_c + R"(" },
    { url = "https://download.pytorch.org/whl/cu128/torch-2.11.0%2Bcu128-cp312-cp312-manylinux_2_28_x86_64.whl", hash = "sha256:)" + k_a + R"(" },
    { url = "https://download.pytorch.org/whl/cu128/torch-2.11.0%2Bcu128-cp312-cp312-win_amd64.whl", hash = "sha256:)" + k_b + R"(" },
]

[[package]]
name = "filelock"
version = "3.16.1"
source = { registry = "https://pypi.org/simple" }
wheels = [{ url = "https://files.example/filelock-3.16.1-py3-none-any.whl", hash = "sha256:)" + k_b + R"(" }]

[[package]]
name = "nvidia-cublas-cu12"
version = "12.8.4.1"
source = { registry = "https://pypi.org/simple" }
wheels = [{ url = "https://files.example/nvidia_cublas_cu12-12.8.4.1-py3-none-manylinux_2_27_x86_64.whl", hash = "sha256:)" + k_c + R"(" }]

[[package]]
name = "numpy"
version = "2.3.0"
source = { registry = "https://pypi.org/simple" }
resolution-markers = ["python_full_version >= '3.12'"]
wheels = [{ url = "https://files.example/numpy-2.3.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", hash = "sha256:)" + k_a + R"(" }]

[[package]]
name = "numpy"
version = "1.26.4"
source = { registry = "https://pypi.org/simple" }
resolution-markers = ["python_full_version < '3.12'"]
wheels = [{ url = "https://files.example/numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", hash = "sha256:)" + k_b + R"(" }]

[[package]]
name = "pywin32"
version = "308"
source = { registry = "https://pypi.org/simple" }
wheels = [{ url = "https://files.example/pywin32-308-cp312-cp312-win_amd64.whl", hash = "sha256:)" + k_a + R"(" }]

[[package]]
name = "accelerate"
version = "1.2.0"
source = { registry = "https://pypi.org/simple" }
wheels = [{ url = "https://files.example/accelerate-1.2.0-py3-none-any.whl", hash = "sha256:)" + k_a + R"(" }]

[package.optional-dependencies]
testing = [{ name = "filelock" }, { name = "pywin32", marker = "sys_platform == 'win32'" }]

[[package]]
name = "pytest"
version = "8.3.4"
source = { registry = "https://pypi.org/simple" }
wheels = [{ url = "https://files.example/pytest-8.3.4-py3-none-any.whl", hash = "sha256:)" + k_c + R"(" }]
)";

std::string describe(const LockRead& read) {
  std::string text;
  for (const LockedPackage& p : read.packages) {
    text += p.name + " " + p.version + " " + p.wheel + " " + p.sha256.substr(0, 1) + "\n";
  }
  return text;
}

}  // namespace

TEST_CASE("uv.lock: the project's dependency graph for the target, wheel chosen by tags, hashes kept", "[capture][lockfile]") {
  const LockRead py312 = read_lock(LockFormat::uv_lock, k_uv_lock, "uv.lock", linux_marker_environment("3.12"));
  CHECK(describe(py312) ==
        "accelerate 1.2.0 accelerate-1.2.0-py3-none-any.whl a\n"
        "filelock 3.16.1 filelock-3.16.1-py3-none-any.whl b\n"
        "numpy 2.3.0 numpy-2.3.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl a\n"
        "nvidia-cublas-cu12 12.8.4.1 nvidia_cublas_cu12-12.8.4.1-py3-none-manylinux_2_27_x86_64.whl c\n"
        "pytest 8.3.4 pytest-8.3.4-py3-none-any.whl c\n"
        "torch 2.11.0+cu128 torch-2.11.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl a\n");
  const LockRead py311 = read_lock(LockFormat::uv_lock, k_uv_lock, "uv.lock", linux_marker_environment("3.11"));
  CHECK(describe(py311).find("numpy 1.26.4 numpy-1.26.4-cp311") != std::string::npos);
  CHECK(describe(py311).find("torch 2.11.0+cu128 torch-2.11.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl c") !=
        std::string::npos);
  // On aarch64 no torch wheel fits and there is no sdist: that is an error naming each wheel's misfit.
  try {
    read_lock(LockFormat::uv_lock, k_uv_lock, "uv.lock at v1.4", linux_marker_environment("3.12", "aarch64"));
    FAIL("expected an error");
  } catch (const Error& error) {
    const std::string message = error.what();
    CHECK(message.find("uv.lock at v1.4: /package/1: no wheel of torch 2.11.0+cu128 fits CPython 3.12 on Linux aarch64") !=
          std::string::npos);
    CHECK(message.find("win_amd64") != std::string::npos);
  }
}

TEST_CASE("uv.lock: malformed input is one error naming the place", "[capture][lockfile]") {
  const MarkerEnvironment env = linux_marker_environment("3.12");
  auto message = [&](const std::string& text) {
    try {
      read_lock(LockFormat::uv_lock, text, "uv.lock", env);
    } catch (const Error& error) {
      CHECK(error.code() == ExitCode::bad_input);
      return std::string(error.what());
    }
    return std::string("no error");
  };
  CHECK(message("version = 1\n[[package]\nname = 'x'\n").find("uv.lock: line 2") == 0);
  CHECK(message("version = 1\n").find("uv.lock: /package: no [[package]]") == 0);
  // A lock of a version this reader does not know is refused, as uv refuses it.
  CHECK(message("version = 99\n[[package]]\nname = 'x'\n") == "uv.lock: /version: uv.lock version 99; this envbisect reads version 1");
  CHECK(message("[[package]]\nname = 'x'\n") == "uv.lock: /version: missing (uv writes version = 1)");
  CHECK(message("version = 1\n[[package]]\nname = 'p'\nsource = { editable = '.' }\ndependencies = [{ name = 'gone' }]\n")
            .find("depends on gone, which the lock does not hold") != std::string::npos);
  CHECK(message("version = 1\n[[package]]\nname = 'p'\nsource = { editable = '.' }\ndependencies = [{ name = 'q' }]\n"
                "[[package]]\nname = 'q'\nversion = '1.x'\n")
            .find("'1.x' is not a PEP 440 version") != std::string::npos);
  CHECK(message("version = 1\n[[package]]\nname = 'q'\nversion = '1.0'\nwheels = [{ url = 'q-1.0-py3-none-any.whl', hash = 'sha256:12' }]\n")
            .find("expected sha256:<64 hex digits>") != std::string::npos);
}

TEST_CASE("pylock.toml (PEP 751): markers, wheels by name, hashes", "[capture][lockfile]") {
  const std::string lock = R"(lock-version = "1.0"
created-by = "uv"
requires-python = ">=3.11"

[[packages]]
name = "torch"
version = "2.11.0+cu130"
index = "https://download.pytorch.org/whl/cu130"
wheels = [
  { name = "torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl", url = "https://x/torch-2.11.0%2Bcu130-cp312-cp312-manylinux_2_28_x86_64.whl", hashes = { sha256 = ")" + k_b + R"(" } },
  { name = "torch-2.11.0+cu130-cp313-cp313-manylinux_2_28_x86_64.whl", hashes = { sha256 = ")" + k_c + R"(" } },
]

[[packages]]
name = "colorama"
version = "0.4.6"
marker = "sys_platform == 'win32'"
wheels = [{ name = "colorama-0.4.6-py2.py3-none-any.whl", hashes = { sha256 = ")" + k_a + R"(" } }]
)";
  const LockRead read = read_lock(LockFormat::pylock, lock, "pylock.toml", linux_marker_environment("3.12"));
  CHECK(describe(read) == "torch 2.11.0+cu130 torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl b\n");
  CHECK(read.notes.size() == 2);  // colorama left out; torch: one wheel chosen of two
  // `uv export --format pylock.toml` writes the project itself as a directory entry, and a git
  // dependency as a vcs entry: both are repos of the state, the file is not refused.
  const LockRead exported = read_lock(LockFormat::pylock, lock + R"(
[[packages]]
name = "trainer"
directory = { path = ".", editable = true }

[[packages]]
name = "torchtitan"
vcs = { type = "git", url = "https://github.com/pytorch/torchtitan", commit-id = "23e4dfca5ca52587dbaf18f67bee8d73e875df5b" }
)", "pylock.toml", linux_marker_environment("3.12"));
  REQUIRE(exported.repos.size() == 2);
  CHECK(exported.repos[0].name == "torchtitan");
  CHECK(exported.repos[0].commit == "23e4dfca5ca52587dbaf18f67bee8d73e875df5b");
  CHECK(exported.repos[1].name == "trainer");
  CHECK(exported.repos[1].path == ".");
  CHECK(exported.packages.size() == 1);
  CHECK_THROWS_AS(read_lock(LockFormat::pylock, "[[packages]]\nname='x'\n", "pylock.toml", linux_marker_environment("3.12")),
                  Error);
  // PEP 751: a lock-version of another major version is refused.
  CHECK_THROWS_WITH(read_lock(LockFormat::pylock, "lock-version = \"2.0\"\n[[packages]]\nname='x'\n", "pylock.toml",
                              linux_marker_environment("3.12")),
                    "pylock.toml: /lock-version: '2.0'; this envbisect reads PEP 751 lock-version 1.x");
}

TEST_CASE("requirements.txt with hashes, and pip freeze output", "[capture][lockfile]") {
  const MarkerEnvironment env = linux_marker_environment("3.12");
  const std::string requirements = "# generated by uv pip compile\n"
                                   "torch==2.11.0+cu128 \\\n    --hash=sha256:" + k_a + "\n"
                                   "numpy==2.3.0 ; python_version >= '3.12' \\\n"
                                   "    --hash=sha256:" + k_b + " \\\n    --hash=sha256:" + k_c + "\n"
                                   "pywin32==308 ; sys_platform == 'win32'\n"
                                   "Faux_Transformers[torch]===5.8.1  # the one that works\n"
                                   "-e ./vendor/dflash\n";
  const LockRead read = read_lock(LockFormat::requirements, requirements, "requirements.txt", env);
  CHECK(describe(read) == "faux-transformers 5.8.1  \nnumpy 2.3.0  \ntorch 2.11.0+cu128  a\n");
  REQUIRE(read.notes.size() == 1);  // pywin32 left out; numpy's two hashes are both kept, nothing to say
  CHECK(read.notes[0].find("pywin32 left out") != std::string::npos);
  // Every hash is kept (one per file: wheels and sdist); the editable folder is a repo of the state.
  CHECK(read.packages[1].hashes == std::vector<std::string>{k_b, k_c});
  REQUIRE(read.repos.size() == 1);
  CHECK(read.repos[0].name == "dflash");
  CHECK(read.repos[0].path == "vendor/dflash");

  const std::string freeze = "filelock==3.16.1\n"
                             "torch @ file:///root/.cache/wheels/torch-2.11.0%2Bcu128-cp312-cp312-manylinux_2_28_x86_64.whl\n"
                             "-e git+https://example.org/dflash.git@0a515c7#egg=dflash\n"
                             "Pillow @ file:///w/pillow-11.0.0-cp312-cp312-manylinux_2_28_x86_64.whl#sha256=" + k_a + "\n";
  const LockRead frozen = read_lock(LockFormat::requirements, freeze, "freeze.txt", env);
  CHECK(describe(frozen) == "filelock 3.16.1  \n"
                            "pillow 11.0.0 pillow-11.0.0-cp312-cp312-manylinux_2_28_x86_64.whl a\n"
                            "torch 2.11.0+cu128 torch-2.11.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl \n");
  // `-e git+URL@SHA#egg=NAME` (pip freeze of an editable git checkout) is a repo at that commit.
  REQUIRE(frozen.repos.size() == 1);
  CHECK(frozen.repos[0].name == "dflash");
  CHECK(frozen.repos[0].url == "https://example.org/dflash.git");
  CHECK(frozen.repos[0].commit == "0a515c7");

  auto message = [&](const std::string& text) {
    try {
      read_lock(LockFormat::requirements, text, "requirements.txt", env);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  CHECK(message("torch>=2.0\n") == "requirements.txt: line 1: 'torch>=2.0' is not pinned with ==: a state needs an exact build");
  CHECK(message("a==1.0\nb==1.0,<2\n").find("requirements.txt: line 2: 'b==1.0,<2' is not one exact version") == 0);
  CHECK(message("a==1.0\na==2.0\n") == "requirements.txt: line 2: a is pinned twice");
  CHECK(message("-r base.txt\n").find("includes another file") != std::string::npos);
  CHECK(message("x @ https://example.org/x.tar.gz\n").find("not a wheel") != std::string::npos);
  CHECK(message("a==1.0 \\\n").find("ends with a line continuation") != std::string::npos);
  CHECK(message("a==1.0 --hash=sha256:xyz\n").find("expected sha256:<64 hex digits>") != std::string::npos);
  // A marker that cannot be read names the file and line, not only the marker.
  CHECK(message("a==1.0\ntorch==1.0 ; python_version >= \"3.12\" and\n").rfind("requirements.txt: line 2: marker ", 0) == 0);
  // Bytes that are not UTF-8 are named by line (they reached the JSON writer: an internal error).
  CHECK(message("\xff\xfe==1.0\n") == "requirements.txt: line 1: not UTF-8 text");
  CHECK(message("a==1.0\nb\xed\xa0\x80==1.0\n") == "requirements.txt: line 2: not UTF-8 text");  // a surrogate
  CHECK(message("a==1.0\nb\xc3==1.0\n") == "requirements.txt: line 2: not UTF-8 text");          // cut off
  // A byte-order mark (Windows editors write one) is read past, as pip does.
  CHECK(describe(read_lock(LockFormat::requirements, "\xEF\xBB\xBFtorch==1.0\n", "requirements.txt", env)) ==
        "torch 1.0  \n");
}

TEST_CASE("lock formats by file name", "[capture][lockfile]") {
  CHECK(lock_format_of("repo/uv.lock") == LockFormat::uv_lock);
  CHECK(lock_format_of("pylock.toml") == LockFormat::pylock);
  CHECK(lock_format_of("deploy/pylock.gpu.toml") == LockFormat::pylock);
  CHECK(lock_format_of("requirements.txt") == LockFormat::requirements);
  CHECK(lock_format_of("freeze-2026-11-30.txt") == LockFormat::requirements);
}

TEST_CASE("pip, setuptools and wheel: one rule for capture and freeze, by what the input says needs them", "[capture][lockfile]") {
  // A capture knows every Requires-Dist: an installer package nothing needs is left out, one needed stays.
  CHECK(installer_package_left_out("pip", NeedsKnown::yes, {"torch"}) ==
        std::optional<std::string>("the installer's own package, nothing installed needs it"));
  CHECK(installer_package_left_out("setuptools", NeedsKnown::yes, {"setuptools"}) == std::nullopt);
  CHECK(installer_package_left_out("torch", NeedsKnown::yes, {}) == std::nullopt);
  // A freeze does not say what needs them: torch on Python 3.12 needs setuptools, so it stays, said so.
  CHECK(installer_package_left_out("setuptools", NeedsKnown::no, {}) == std::nullopt);
  const LockRead frozen = read_lock(LockFormat::requirements, "pip==24.0\nsetuptools==80.9.0\ntorch==2.11.0\n", "freeze.txt",
                                    linux_marker_environment("3.12"));
  CHECK(frozen.packages.size() == 3);
  REQUIRE(frozen.notes.size() == 2);
  CHECK(frozen.notes[0] == "line 1: pip: the installer's own package, kept: freeze.txt does not say whether something "
                           "installed needs it (a capture of the venv would say)");
  CHECK(frozen.notes[1].rfind("line 2: setuptools: the installer's own package, kept", 0) == 0);
}

TEST_CASE("a git source in a folder of its repository keeps the folder in the state's repo", "[capture][lockfile]") {
  const std::string sha = "0a515c7dd136666e63a698b7fe0f83642a6e0b57";
  const LockRead read = read_lock(LockFormat::requirements,
                                  "-e git+https://example.org/mono.git@" + sha + "#egg=core&subdirectory=libs/core\n",
                                  "freeze.txt", linux_marker_environment("3.12"));
  REQUIRE(read.repos.size() == 1);
  CHECK(read.repos[0].subdirectory == "libs/core");
  EnvState state;
  state.repos["core"] = repo_pin_of(read.repos[0], "freeze.txt", "HEAD", ".");
  CHECK(state.repos["core"].subdirectory == "libs/core");
  const EnvState again = parse_state(state_to_json(state).dump(), "state.json");
  CHECK(again.repos.at("core").subdirectory == "libs/core");
  // Another folder at the same commit is another package: a difference.
  EnvState other = again;
  other.repos["core"].subdirectory = "libs/extra";
  const std::vector<Delta> deltas = diff_states(again, other);
  REQUIRE(deltas.size() == 1);
  CHECK(deltas[0].good == sha + " (libs/core)");
  CHECK(deltas[0].bad == sha + " (libs/extra)");
}
