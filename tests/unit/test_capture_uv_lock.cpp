// uv.lock read with uv's semantics: roots, dependency groups, extras (nested), conflict markers, git
// and local sources, requires-python. tests/unit/test_capture_uv_oracle.cpp checks the same against
// uv itself on real locks.
#include <optional>
#include <string>

#include <catch2/catch.hpp>

#include "capture/lockfile.hpp"
#include "util/error.hpp"

using namespace envbisect;

namespace {

const std::string k_hash = "sha256:" + std::string(64, 'a');

std::string wheel(const std::string& file) {
  return "wheels = [{ url = \"https://files.example/" + file + "\", hash = \"" + k_hash + "\" }]\n";
}

// A two-member workspace: app (the project) with cpu/gpu extras in conflict, dev and docs groups,
// a chain of extras (a[x] -> c[y] -> d), a git dependency; lib, a member at packages/lib.
const std::string k_lock = R"(version = 1
revision = 3
requires-python = ">=3.11"
conflicts = [[
    { package = "app", extra = "cpu" },
    { package = "app", extra = "gpu" },
]]

[manifest]
members = ["app", "lib"]

[[package]]
name = "app"
version = "0.1.0"
source = { editable = "." }
dependencies = [
    { name = "lib" },
    { name = "a", extra = ["x"] },
    { name = "torchvision" },
    { name = "titan" },
]

[package.optional-dependencies]
cpu = [{ name = "torch", version = "2.9.1+cpu", source = { registry = "https://download.pytorch.org/whl/cpu" } }]
gpu = [{ name = "torch", version = "2.9.1+cu128", source = { registry = "https://download.pytorch.org/whl/cu128" } }]

[package.dev-dependencies]
dev = [{ name = "pytest" }]
docs = [{ name = "sphinx" }]

[[package]]
name = "lib"
version = "0.1.0"
source = { editable = "packages/lib" }
dependencies = [{ name = "numpy" }]

[[package]]
name = "torchvision"
version = "0.24.1"
source = { registry = "https://pypi.org/simple" }
dependencies = [
    { name = "torch", version = "2.9.1+cpu", source = { registry = "https://download.pytorch.org/whl/cpu" }, marker = "extra == 'extra-3-app-cpu'" },
    { name = "torch", version = "2.9.1+cu128", source = { registry = "https://download.pytorch.org/whl/cu128" }, marker = "extra == 'extra-3-app-gpu' or extra != 'extra-3-app-cpu'" },
]
)" + wheel("torchvision-0.24.1-cp311-abi3-manylinux_2_28_x86_64.whl") +
                             R"(
[[package]]
name = "torch"
version = "2.9.1+cpu"
source = { registry = "https://download.pytorch.org/whl/cpu" }
)" + wheel("torch-2.9.1%2Bcpu-cp311-abi3-manylinux_2_28_x86_64.whl") +
                             R"(
[[package]]
name = "torch"
version = "2.9.1+cu128"
source = { registry = "https://download.pytorch.org/whl/cu128" }
)" + wheel("torch-2.9.1%2Bcu128-cp311-abi3-manylinux_2_28_x86_64.whl") +
                             R"(
[[package]]
name = "titan"
version = "0.2.0"
source = { git = "https://github.com/pytorch/torchtitan?rev=main#23e4dfca5ca52587dbaf18f67bee8d73e875df5b" }

[[package]]
name = "a"
version = "1.0"
source = { registry = "https://pypi.org/simple" }
)" + wheel("a-1.0-py3-none-any.whl") + R"(
[package.optional-dependencies]
x = [{ name = "c", extra = ["y"] }]

[[package]]
name = "c"
version = "1.0"
source = { registry = "https://pypi.org/simple" }
)" + wheel("c-1.0-py3-none-any.whl") + R"(
[package.optional-dependencies]
y = [{ name = "d" }]

[[package]]
name = "d"
version = "1.0"
source = { registry = "https://pypi.org/simple" }
)" + wheel("d-1.0-py3-none-any.whl") + R"(
[[package]]
name = "numpy"
version = "2.3.0"
source = { registry = "https://pypi.org/simple" }
)" + wheel("numpy-2.3.0-cp311-cp311-manylinux_2_28_x86_64.whl") +
                             R"(
[[package]]
name = "pytest"
version = "8.3.4"
source = { registry = "https://pypi.org/simple" }
)" + wheel("pytest-8.3.4-py3-none-any.whl") + R"(
[[package]]
name = "sphinx"
version = "8.0.0"
source = { registry = "https://pypi.org/simple" }
sdist = { url = "https://files.example/sphinx-8.0.0.tar.gz", hash = ")" + k_hash + R"(" }
)";

const std::string k_pyproject = "[project]\nname = \"app\"\n[tool.uv]\ndefault-groups = [\"dev\", \"docs\"]\n";

// Return "name version" per package and "repo name url@commit|path" per repo, one a line.
std::string installed(const UvSelection& uv, bool with_pyproject = true, const std::string& lock = k_lock) {
  LockOptions options;
  options.uv = uv;
  options.read_beside = [&](const std::string& path) -> std::optional<std::string> {
    if (with_pyproject && path == "pyproject.toml") {
      return k_pyproject;
    }
    return std::nullopt;
  };
  const LockRead read = read_lock(LockFormat::uv_lock, lock, "uv.lock", linux_marker_environment("3.11"), options);
  std::string text;
  for (const LockedPackage& p : read.packages) {
    text += p.name + " " + p.version + "\n";
  }
  for (const LockedRepo& r : read.repos) {
    text += "repo " + r.name + " " + (r.kind == "git" ? r.url + "@" + r.commit.substr(0, 8) : r.path) + "\n";
  }
  return text;
}

std::string error_of(const UvSelection& uv) {
  try {
    installed(uv);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("uv.lock: default roots and groups as uv sync, nested extras followed, git and local sources as repos",
          "[capture][uv_lock]") {
  // The project, its default groups (dev and docs from pyproject.toml), a[x] -> c[y] -> d, torch of
  // neither conflicting extra but the one torchvision needs when no extra is chosen.
  CHECK(installed({}) ==
        "a 1.0\nc 1.0\nd 1.0\nnumpy 2.3.0\npytest 8.3.4\nsphinx 8.0.0\ntorch 2.9.1+cu128\ntorchvision 0.24.1\n"
        "repo app .\nrepo lib packages/lib\n"
        "repo titan https://github.com/pytorch/torchtitan@23e4dfca\n");
  // Without pyproject.toml beside the lock the default is uv's: dev only.
  CHECK(installed({}, false).find("sphinx") == std::string::npos);
  UvSelection no_defaults;
  no_defaults.no_default_groups = true;
  CHECK(installed(no_defaults).find("pytest") == std::string::npos);
  UvSelection no_dev;
  no_dev.no_dev = true;
  CHECK(installed(no_dev).find("pytest") == std::string::npos);
  CHECK(installed(no_dev).find("sphinx") != std::string::npos);
  UvSelection only_docs;
  only_docs.only_groups = {"docs"};
  CHECK(installed(only_docs) == "sphinx 8.0.0\n");
  UvSelection member;
  member.packages = {"lib"};
  CHECK(installed(member) == "numpy 2.3.0\nrepo lib packages/lib\n");
}

TEST_CASE("uv.lock: conflict markers follow the chosen extras, two conflicting extras are refused", "[capture][uv_lock]") {
  UvSelection cpu;
  cpu.extras = {"cpu"};
  CHECK(installed(cpu).find("torch 2.9.1+cpu\n") != std::string::npos);
  CHECK(installed(cpu).find("cu128") == std::string::npos);
  UvSelection gpu;
  gpu.extras = {"gpu"};
  CHECK(installed(gpu).find("torch 2.9.1+cu128\n") != std::string::npos);
  UvSelection both;
  both.extras = {"cpu", "gpu"};
  CHECK(error_of(both) == "uv.lock: /conflicts/0: extra app[cpu] and extra app[gpu] are both chosen, but the lock "
                          "declares them in conflict (choose one: --extra, --group, --no-default-groups)");
  UvSelection all;
  all.all_extras = true;
  CHECK(error_of(all).find("in conflict") != std::string::npos);
  all.no_extras = {"cpu"};
  CHECK(installed(all).find("torch 2.9.1+cu128\n") != std::string::npos);
  // Flags naming what the lock lacks are errors naming the flag.
  UvSelection group;
  group.groups = {"lint"};
  CHECK(error_of(group) == "uv.lock: --group lint: no dependency group 'lint' in the lock's project app (groups: dev, docs)");
  UvSelection extra;
  extra.extras = {"rocm"};
  CHECK(error_of(extra).rfind("uv.lock: --extra rocm: no extra 'rocm'", 0) == 0);
  UvSelection package;
  package.packages = {"numpy"};
  CHECK(error_of(package) == "uv.lock: --package numpy: not a member of the lock's workspace (members: app, lib)");
}

TEST_CASE("uv.lock: the selection is described, left-out entries are listed by name", "[capture][uv_lock]") {
  LockOptions options;
  options.uv.extras = {"gpu"};
  const LockRead read = read_lock(LockFormat::uv_lock, k_lock, "uv.lock", linux_marker_environment("3.11"), options);
  CHECK(read.selection == "roots app; groups dev; extras app[gpu]");
  bool listed = false;
  for (const std::string& note : read.notes) {
    listed = listed || note.find("): torch 2.9.1+cpu") != std::string::npos;
  }
  CHECK(listed);
  // sphinx has only an sdist: pinned by version, and said so.
  const LockRead all = read_lock(LockFormat::uv_lock, k_lock, "uv.lock", linux_marker_environment("3.11"),
                                 LockOptions{UvSelection{{}, false, {}, false, {}, {"docs"}, {}, {}, false, false, false, false}, {}});
  bool noted = false;
  for (const std::string& note : all.notes) {
    noted = noted || note == "sphinx 8.0.0: sdist only (no wheel in the lock): pinned by version, built at install";
  }
  CHECK(noted);
}

TEST_CASE("uv.lock: the Python defaults from requires-python, no fitting wheel names the Python that fits",
          "[capture][uv_lock]") {
  CHECK(default_python_of(LockFormat::uv_lock, k_lock) == "3.11");
  CHECK(default_python_of(LockFormat::uv_lock, "version = 1\nrequires-python = \">=3.10.12, <3.13\"\n") == "3.10.12");
  CHECK(default_python_of(LockFormat::pylock, "lock-version = \"1.0\"\nrequires-python = \"==3.12.*\"\n") == "3.12");
  CHECK(default_python_of(LockFormat::requirements, "a==1\n").empty());
  const std::string lock = "version = 1\nrequires-python = \">=3.11\"\n[[package]]\nname = \"app\"\nversion = \"0.1\"\n"
                           "source = { editable = \".\" }\ndependencies = [{ name = \"z\" }]\n"
                           "[[package]]\nname = \"z\"\nversion = \"1.0\"\nsource = { registry = \"https://pypi.org/simple\" }\n" +
                           wheel("z-1.0-cp312-cp312-manylinux_2_28_x86_64.whl");
  CHECK_THROWS_WITH(read_lock(LockFormat::uv_lock, lock, "uv.lock", linux_marker_environment("3.11")),
                    Catch::Contains("no wheel of z 1.0 fits CPython 3.11") && Catch::Contains("hint: --python 3.12"));
}

TEST_CASE("uv.lock: a project with dynamic metadata (no version, no metadata in the lock) takes no named group or extra, as uv",
          "[capture][uv_lock]") {
  // uv 0.11.15 on such a lock: `--group dev` exits 2 "Group `dev` is not defined in the project's
  // `dependency-groups` table"; the default groups, --all-groups and --all-extras are read.
  const std::string lock = R"(version = 1
revision = 3
requires-python = ">=3.11"

[[package]]
name = "app"
source = { editable = "." }
dependencies = [{ name = "numpy" }]

[package.optional-dependencies]
plot = [{ name = "pillow" }]

[package.dev-dependencies]
dev = [{ name = "pytest" }]

[[package]]
name = "numpy"
version = "2.1.0"
source = { registry = "https://pypi.org/simple" }
)" + wheel("numpy-2.1.0-cp311-cp311-manylinux_2_17_x86_64.whl") +
                           R"(
[[package]]
name = "pillow"
version = "11.0.0"
source = { registry = "https://pypi.org/simple" }
)" + wheel("pillow-11.0.0-cp311-cp311-manylinux_2_17_x86_64.whl") +
                           R"(
[[package]]
name = "pytest"
version = "8.3.0"
source = { registry = "https://pypi.org/simple" }
)" + wheel("pytest-8.3.0-py3-none-any.whl");
  // Without a pyproject.toml beside it, uv's default group is dev.
  auto names = [&](const UvSelection& uv) { return installed(uv, false, lock); };
  CHECK(names({}) == "numpy 2.1.0\npytest 8.3.0\nrepo app .\n");
  UvSelection all;
  all.all_groups = true;
  all.all_extras = true;
  CHECK(names(all) == "numpy 2.1.0\npillow 11.0.0\npytest 8.3.0\nrepo app .\n");
  UvSelection group;
  group.groups = {"dev"};
  CHECK_THROWS_WITH(names(group), Catch::Contains("uv.lock: --group dev: uv refuses to name a dependency group of project app") &&
                                      Catch::Contains("no version and no metadata"));
  UvSelection extra;
  extra.extras = {"plot"};
  CHECK_THROWS_WITH(names(extra), Catch::Contains("uv.lock: --extra plot: uv refuses to name an extra of project app"));
}
