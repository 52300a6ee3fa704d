#include "capture/python_probe.hpp"

#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace envbisect;
using nlohmann::json;

namespace {

// A bare venv (no pip: 0.1 s) holding one hand-made distribution, and two cache folders.
struct ProbeFixture {
  fs::path dir;
  fs::path venv;
  LocalRunner runner;
  std::map<std::string, std::string> env;

  ProbeFixture() {
    std::string pattern = (fs::temp_directory_path() / "envbisect-probe-XXXXXX").string();
    dir = ::mkdtemp(pattern.data());
    venv = dir / "venv";
    ProcessSpec spec;
    spec.argv = {"python3", "-m", "venv", "--without-pip", venv.string()};
    spec.env = allowed_parent_env();
    spec.stderr_path = (dir / "venv.err").string();
    REQUIRE(runner.run(spec).exit_code == 0);
    const fs::path site = fs::directory_iterator(venv / "lib")->path() / "site-packages";
    const fs::path info = site / "Faux_Torch-2.11.0+cu128.dist-info";
    fs::create_directories(info);
    std::ofstream(info / "METADATA") << "Metadata-Version: 2.1\nName: Faux_Torch\nVersion: 2.11.0+cu128\n";
    std::ofstream(info / "RECORD") << "faux_torch/__init__.py,,\n";
    std::ofstream(info / "INSTALLER") << "uv\n";
    std::ofstream(info / "direct_url.json") << R"({"url": "file:///w/faux_torch-2.11.0+cu128-py3-none-any.whl"})";
    fs::create_directories(dir / "inductor" / "ab");
    std::ofstream(dir / "inductor" / "ab" / "kernel.py") << "x = 1\n";
    std::ofstream(dir / "inductor" / "index") << "12345";
    env = allowed_parent_env();
    env["TORCHINDUCTOR_CACHE_DIR"] = (dir / "inductor").string();
    env["TRITON_CACHE_DIR"] = (dir / "no-triton").string();
    env["NCCL_DEBUG"] = "INFO";
    env["HF_TOKEN"] = "hf_secret";
  }
  ~ProbeFixture() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
};

}  // namespace

TEST_CASE("the probe reports a venv's packages, caches, variables and host as JSON", "[capture][probe]") {
  ProbeFixture f;
  ProbeRequest request;
  request.python = (f.venv / "bin" / "python").string();
  const json report = run_python_probe(f.runner, request, f.env, f.dir.string());

  CHECK(report["python"]["in_venv"] == true);
  CHECK(report["python"]["executable"] == request.python);
  REQUIRE(report["packages"].size() == 1);
  const json& pkg = report["packages"]["faux-torch"];
  CHECK(pkg["name"] == "Faux_Torch");
  CHECK(pkg["version"] == "2.11.0+cu128");
  CHECK(pkg["installer"] == "uv");
  CHECK(pkg["direct_url"]["url"] == "file:///w/faux_torch-2.11.0+cu128-py3-none-any.whl");
  CHECK(pkg["record_sha256"].get<std::string>().size() == 64);
  CHECK(pkg["mtime"].is_number());
  CHECK(report["torch"].is_null());  // not installed: nothing fails

  const json& inductor = report["caches"]["inductor"];
  CHECK(inductor["exists"] == true);
  CHECK(inductor["entries"] == 2);
  CHECK(inductor["bytes"] == 11);
  CHECK(inductor["oldest"].get<double>() <= inductor["newest"].get<double>());
  CHECK(inductor["content_sha256"].get<std::string>().size() == 64);
  CHECK(report["caches"]["triton"]["exists"] == false);
  CHECK(report["caches"]["triton"]["entries"] == 0);

  CHECK(report["env"]["NCCL_DEBUG"] == "INFO");
  CHECK(report["env"].count("PATH") == 0);
  CHECK(report["host"]["cpu_count"].get<int>() >= 1);

  // The content hash follows content: one more byte changes it.
  std::ofstream(f.dir / "inductor" / "index", std::ios::app) << "6";
  const json again = run_python_probe(f.runner, request, f.env, f.dir.string());
  CHECK(again["caches"]["inductor"]["content_sha256"] != inductor["content_sha256"]);
}

TEST_CASE("a probe through a command prefix reports the same as a local one", "[capture][probe]") {
  ProbeFixture f;
  ProbeRequest local;
  local.python = (f.venv / "bin" / "python").string();
  ProbeRequest via = local;
  via.prefix = {"env", "FOO=1"};
  json a = run_python_probe(f.runner, local, f.env, f.dir.string());
  json b = run_python_probe(f.runner, via, f.env, f.dir.string());
  a.erase("time");
  b.erase("time");
  CHECK(a == b);
}

TEST_CASE("a probe that cannot start or fails is an environment error naming it", "[capture][probe]") {
  ProbeFixture f;
  ProbeRequest request;
  request.python = (f.dir / "missing-python").string();
  CHECK_THROWS_WITH(run_python_probe(f.runner, request, f.env, f.dir.string()), Catch::Contains("missing-python"));
  request.python = (f.venv / "bin" / "python").string();
  request.prefix = {"env", "-i", "PYTHONPATH=/nonexistent", "false"};  // a prefix whose command fails
  try {
    run_python_probe(f.runner, request, f.env, f.dir.string());
    FAIL("expected an Error");
  } catch (const Error& error) {
    CHECK(error.code() == ExitCode::environment);
    CHECK_THAT(error.what(), Catch::Contains("exited with status 1"));
  }
}

TEST_CASE("probe_env passes allow-listed and captured variables only", "[capture][probe]") {
  const std::map<std::string, std::string> parent = {{"PATH", "/bin"}, {"HOME", "/root"}, {"PIP_FIND_LINKS", "/opt"},
                                                     {"TORCH_LOGS", "+dynamo"}, {"PYTHONDONTWRITEBYTECODE", "1"},
                                                     {"UV_CACHE_DIR", "/uv"}};
  const std::map<std::string, std::string> expected = {
      {"PATH", "/bin"}, {"HOME", "/root"}, {"TORCH_LOGS", "+dynamo"}, {"UV_CACHE_DIR", "/uv"}};
  CHECK(probe_env(parent) == expected);
}
