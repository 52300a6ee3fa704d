#include "env/install_files.hpp"
#include "env/materialize.hpp"
#include "env/store.hpp"
#include "env/venv_skeleton.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

#include "exec/runner.hpp"

#include "env_test_support.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using envbisect::detail::console_script;
using envbisect::detail::installed_record_path;
using envbisect::env_test::slurp;
using envbisect::env_test::TempDir;

namespace {

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A store entry of NAME VERSION unpacked in DIR (its manifest and files written by the test).
envbisect::StoreEntry store_entry(const fs::path& dir, const std::string& name, const std::string& version) {
  envbisect::StoreEntry entry;
  entry.dir = dir.string();
  entry.name = name;
  entry.version = version;
  entry.dist_info = name + "-" + version + ".dist-info";
  return entry;
}

}  // namespace

TEST_CASE("console scripts call the entry point with the environment's python, as pip writes them", "[env][install_files]") {
  CHECK(console_script("/e/bin/python", "tool.cli:main") ==
        "#!/e/bin/python\n# -*- coding: utf-8 -*-\nimport re\nimport sys\nfrom tool.cli import main\n"
        "if __name__ == '__main__':\n"
        "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
        "    sys.exit(main())\n");
  // A dotted attribute imports its root; extras and spaces are dropped.
  const std::string dotted = console_script("/e/bin/python", " pkg.mod : App.run [cli] ");
  CHECK(dotted.find("from pkg.mod import App\n") != std::string::npos);
  CHECK(dotted.find("    sys.exit(App.run())\n") != std::string::npos);
  // No attribute: the module itself is called, as pip does.
  const std::string bare = console_script("/e/bin/python", "tool");
  CHECK(bare.find("import tool\n") != std::string::npos);
  CHECK(bare.find("    sys.exit(tool())\n") != std::string::npos);
}

TEST_CASE("RECORD paths of .data files move where the installer put them", "[env][install_files]") {
  const std::string data = "tool-1.0.data";
  struct Row { const char* wheel_path; const char* installed; };
  const Row rows[] = {
      {"tool/__init__.py", "tool/__init__.py"},
      {"tool-1.0.dist-info/METADATA", "tool-1.0.dist-info/METADATA"},
      {"tool-1.0.data/purelib/extra/x.py", "extra/x.py"},
      {"tool-1.0.data/platlib/ext.so", "ext.so"},
      {"tool-1.0.data/scripts/tool-sh", "../../../bin/tool-sh"},
      {"tool-1.0.data/data/share/man/tool.1", "../../../share/man/tool.1"},
      {"tool-1.0.data/headers/tool.h", "tool-1.0.data/headers/tool.h"},
      {"other-1.0.data/scripts/x", "other-1.0.data/scripts/x"},
  };
  for (const Row& row : rows) {
    INFO(row.wheel_path);
    CHECK(installed_record_path(row.wheel_path, data) == row.installed);
  }
  CHECK(installed_record_path("tool-1.0.data/scripts/x", "") == "tool-1.0.data/scripts/x");
}

TEST_CASE("script names that would shadow the interpreter or are no file names are refused", "[env][install_files]") {
  TempDir dir("install");
  fs::create_directories(dir.path / "bin");
  fs::create_symlink("/usr/bin/env", dir.path / "bin" / "activate-link");
  using envbisect::detail::script_name_problem;
  for (const std::string name : {"python", "python3", "python3.11", "python3.12", "", ".", "..", "a/b", "activate-link"}) {
    INFO(name);
    CHECK_FALSE(script_name_problem((dir.path / "bin").string(), name).empty());
  }
  for (const std::string name : {"tool", "python-config-tool", "pythonista", "pip3"}) {
    INFO(name);
    CHECK(script_name_problem((dir.path / "bin").string(), name).empty());
  }
}

TEST_CASE("a wheel whose scripts would replace the interpreter is a reason, and the interpreter is untouched", "[env][install_files]") {
  TempDir dir("install-hostile");
  // A copy of the interpreter: were it written through, only the copy would suffer.
  envbisect::LocalRunner runner;
  envbisect::ProcessSpec probe;
  probe.argv = {"python3", "-I", "-c", "import os, sys; print(os.path.realpath(sys.executable), end='')"};
  probe.env = envbisect::allowed_parent_env();
  probe.stdout_path = (dir.path / "probe.out").string();
  REQUIRE(runner.run(probe).exit_code == 0);
  fs::create_directories(dir.path / "base" / "bin");
  const fs::path python = dir.path / "base" / "bin" / "python3";
  fs::copy_file(slurp(dir.path / "probe.out"), python);
  const std::string python_hash = envbisect::sha256_hex(slurp(python));
  auto hostile = [](const std::string& name, std::map<std::string, std::string> files) {
    const std::string di = name + "-1.0.dist-info";
    files[di + "/METADATA"] = "Metadata-Version: 2.1\nName: " + name + "\nVersion: 1.0\n";
    files[di + "/WHEEL"] = "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n";
    files[name + "/__init__.py"] = "def main():\n    pass\n";
    return envbisect::env_test::TestWheel{name, "1.0", files, {}, envbisect::env_test::WheelLayout::as_given};
  };
  envbisect::env_test::build_wheels(
      dir.path / "wheels",
      {hostile("consolepy", {{"consolepy-1.0.dist-info/entry_points.txt", "[console_scripts]\npython3 = consolepy:main\n"}}),
       hostile("datapy", {{"datapy-1.0.data/scripts/python", "#!python\nprint('shadow')\n"}}),
       hostile("dotscript", {{"dotscript-1.0.dist-info/entry_points.txt", "[console_scripts]\n.. = dotscript:main\n"}})});
  envbisect::StoreOptions options;
  options.store_dir = (dir.path / "store").string();
  for (const auto& [name, expected] : std::vector<std::pair<std::string, std::string>>{
           {"consolepy", "'python3' would shadow the interpreter"},
           {"datapy", "'python' would shadow the interpreter"},
           {"dotscript", "'..' is not a file name"}}) {
    INFO(name);
    envbisect::VenvRequest request;
    request.python = python.string();
    request.packages = {{name, "1.0"}};
    request.wheel_dirs = {(dir.path / "wheels").string()};
    request.env_dir = (dir.path / ("env-" + name)).string();
    request.log_dir = (dir.path / ("logs-" + name)).string();
    const envbisect::VenvResult result = envbisect::materialize_venv(runner, request, options);
    CHECK_FALSE(result.ok);
    CHECK(result.reason.find(expected) != std::string::npos);
    CHECK(result.reason.find(name + " 1.0") != std::string::npos);
    CHECK_FALSE(fs::exists(request.env_dir));
    CHECK(envbisect::sha256_hex(slurp(python)) == python_hash);
  }
}

TEST_CASE("a copied venv skeleton points its text files at the new place", "[env][venv_skeleton]") {
  TempDir dir("skeleton");
  const fs::path skeleton = dir.path / "skeleton";
  const std::string origin = (dir.path / "made-here").string();
  write(skeleton / "origin", origin);
  write(skeleton / "pyvenv.cfg", "home = /usr/bin\ncommand = /usr/bin/python3 -m venv " + origin + "\n");
  write(skeleton / "bin" / "activate", "VIRTUAL_ENV=\"" + origin + "\"\nPATH=\"" + origin + "/bin:$PATH\"\n");
  write(skeleton / "bin" / "other", "mentions " + origin + " but is no activate script\n");
  write(skeleton / "lib" / "python3.11" / "site-packages" / "keep.txt", origin);
  fs::create_symlink("/usr/bin/python3", skeleton / "bin" / "python");

  const fs::path env = dir.path / "envs" / "candidate";
  fs::create_directories(env.parent_path());
  envbisect::detail::copy_skeleton(skeleton.string(), env.string());
  CHECK_FALSE(fs::exists(env / "origin"));
  CHECK(slurp(env / "pyvenv.cfg") == "home = /usr/bin\ncommand = /usr/bin/python3 -m venv " + env.string() + "\n");
  CHECK(slurp(env / "bin" / "activate") == "VIRTUAL_ENV=\"" + env.string() + "\"\nPATH=\"" + env.string() + "/bin:$PATH\"\n");
  CHECK(slurp(env / "bin" / "other") == "mentions " + origin + " but is no activate script\n");
  CHECK(slurp(env / "lib" / "python3.11" / "site-packages" / "keep.txt") == origin);
  CHECK(fs::read_symlink(env / "bin" / "python") == "/usr/bin/python3");
  // The skeleton itself is untouched: it is copied again for the next candidate.
  CHECK(slurp(skeleton / "bin" / "activate").find(origin) != std::string::npos);
}

TEST_CASE("a helper's failure names it and quotes the end of its stderr", "[env][venv_skeleton]") {
  TempDir dir("failure");
  const fs::path err = dir.path / "err.log";
  write(err, "one\ntwo\n\nthree\nfour\nfive\nsix\nseven\n");
  envbisect::ProcessResult failed;
  failed.spawned = true;
  failed.exit_code = 2;
  CHECK(envbisect::detail::process_failure("creating the venv skeleton", failed, err.string()) ==
        "creating the venv skeleton failed (exit 2)\n  three\n  four\n  five\n  six\n  seven");
  failed.timed_out = true;
  CHECK(envbisect::detail::process_failure("x", failed, (dir.path / "missing").string()) == "x timed out");
  envbisect::ProcessResult not_spawned;
  not_spawned.spawn_error = "no such file";
  CHECK(envbisect::detail::process_failure("checking python9's version", not_spawned, err.string()) ==
        "checking python9's version: no such file");
}

TEST_CASE("a file whose path in the environment is longer than the system allows is bad input, not a harness error", "[env][install_files]") {
  // The store's entry folder is short, the environment's folder long: the wheel unpacked in the
  // store, and failed as "cannot link" (environment: the whole run stopped) when installed.
  TempDir dir("install");
  std::string rel = "pkg";
  for (int i = 0; i < 14; ++i) {
    rel += "/" + std::string(250, 'd');
  }
  const std::string file = rel + "/x.py";
  const envbisect::StoreEntry entry = store_entry(dir.path / "e", "deep", "1.0");
  std::string manifest;
  for (std::size_t slash = rel.find('/'); slash != std::string::npos; slash = rel.find('/', slash + 1)) {
    manifest += "sd " + rel.substr(0, slash) + "\n";
  }
  manifest += "sd " + rel + "\nsf " + file + "\n";
  write(dir.path / "e" / "manifest", manifest);
  write(dir.path / "e" / "site" / file, "x = 1\n");
  std::string env = (dir.path / "env").string();
  for (int i = 0; i < 4; ++i) {
    env += "/" + std::string(200, 'v');
  }
  const std::string site = env + "/lib/python3.11/site-packages";
  fs::create_directories(site);
  fs::create_directories(env + "/bin");
  std::vector<std::string> notes;
  try {
    envbisect::detail::install_entry(entry, env, site, env + "/bin/python", notes);
    FAIL("installed a file past PATH_MAX");
  } catch (const envbisect::Error& e) {
    CHECK(e.code() == envbisect::ExitCode::bad_input);
    CHECK(std::string(e.what()).find("deep 1.0: the path ") != std::string::npos);
    CHECK(std::string(e.what()).find("is longer than the system allows") != std::string::npos);
  }
}

TEST_CASE("a wheel's data file may not replace the environment's pyvenv.cfg", "[env][install_files]") {
  // "p-2.0.data/data/pyvenv.cfg" with "home = /usr/bin" and "include-system-site-packages = true"
  // replaced the venv's own: the candidate ran the state's executable on another Python's stdlib.
  TempDir dir("install");
  const envbisect::StoreEntry entry = store_entry(dir.path / "e", "p", "2.0");
  write(dir.path / "e" / "manifest", "sd p\nsf p/__init__.py\npf pyvenv.cfg\n");
  write(dir.path / "e" / "site" / "p" / "__init__.py", "");
  write(dir.path / "e" / "data" / "pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = true\n");
  const std::string env = (dir.path / "env").string();
  write(dir.path / "env" / "pyvenv.cfg", "home = /opt/python/bin\n");
  fs::create_directories(env + "/bin");
  fs::create_directories(env + "/lib/python3.11/site-packages");
  std::vector<std::string> notes;
  try {
    envbisect::detail::install_entry(entry, env, env + "/lib/python3.11/site-packages", env + "/bin/python", notes);
    FAIL("installed over pyvenv.cfg");
  } catch (const envbisect::Error& e) {
    CHECK(e.code() == envbisect::ExitCode::bad_input);
    CHECK(std::string(e.what()).find("p 2.0: refusing the data file pyvenv.cfg") != std::string::npos);
  }
  CHECK(slurp(dir.path / "env" / "pyvenv.cfg") == "home = /opt/python/bin\n");
}

TEST_CASE("a file already in the environment is replaced when plain, refused when a link or a folder", "[env][install_files]") {
  // The link is tried first and the target looked at only on EEXIST: what is there must still be
  // checked before it is replaced, or a link placed there would lead the write elsewhere.
  TempDir dir("install");
  const envbisect::StoreEntry entry = store_entry(dir.path / "e", "p", "2.0");
  write(dir.path / "e" / "manifest", "sd p\nsf p/a.py\nsf p/b.py\nsd p-2.0.dist-info\nsf p-2.0.dist-info/RECORD\n");
  write(dir.path / "e" / "site" / "p-2.0.dist-info" / "RECORD", "p/a.py,,\np/b.py,,\np-2.0.dist-info/RECORD,,\n");
  write(dir.path / "e" / "site" / "p" / "a.py", "a = 2\n");
  write(dir.path / "e" / "site" / "p" / "b.py", "b = 2\n");
  const std::string env = (dir.path / "env").string();
  const std::string site = env + "/lib/python3.11/site-packages";
  fs::create_directories(env + "/bin");
  write(fs::path(site) / "p" / "a.py", "a = 1\n");  // another distribution's file: replaced, as pip does
  std::vector<std::string> notes;
  envbisect::detail::install_entry(entry, env, site, env + "/bin/python", notes);
  CHECK(slurp(fs::path(site) / "p" / "a.py") == "a = 2\n");
  CHECK(slurp(fs::path(site) / "p" / "b.py") == "b = 2\n");
  CHECK(std::count_if(notes.begin(), notes.end(), [](const std::string& n) { return n.find("overwrites") != std::string::npos; }) == 1);

  const std::string env2 = (dir.path / "env2").string();
  const std::string site2 = env2 + "/lib/python3.11/site-packages";
  fs::create_directories(env2 + "/bin");
  fs::create_directories(fs::path(site2) / "p");
  write(dir.path / "outside.py", "outside = 1\n");
  fs::create_symlink(dir.path / "outside.py", fs::path(site2) / "p" / "a.py");
  notes.clear();
  try {
    envbisect::detail::install_entry(entry, env2, site2, env2 + "/bin/python", notes);
    FAIL("installed through a link");
  } catch (const envbisect::Error& e) {
    CHECK(e.code() == envbisect::ExitCode::bad_input);
    CHECK(std::string(e.what()).find("is already a link in the environment") != std::string::npos);
  }
  CHECK(slurp(dir.path / "outside.py") == "outside = 1\n");
}
