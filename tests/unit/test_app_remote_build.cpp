#include "app/remote/remote_build.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "exec/staging.hpp"
#include "exec_test_support.hpp"

using envbisect::BuildEnvRequest;
using envbisect::build_request_from_json;
using envbisect::build_request_to_json;
using envbisect::Error;

namespace {

BuildEnvRequest sample() {
  BuildEnvRequest request;
  request.venv.python = "python3";
  request.venv.python_version = "3.11";
  request.venv.packages = {{"fauxtorch", "2.11.0+cu130"}, {"fauxtransformers", "5.8.1"}};
  request.venv.wheel_dirs = {"/stage/w/wheels"};
  request.venv.env_dir = "/stage/store/envs/abc";
  request.venv.log_dir = "/stage/run/logs/build-abc";
  request.builder = "store";
  request.store.store_dir = "/stage/store";
  request.store.uv_cache_dirs = {"/stage/uv"};
  return request;
}

std::string message_of(const nlohmann::json& doc) {
  try {
    build_request_from_json(doc, "req.json");
  } catch (const Error& error) {
    CHECK(error.code() == envbisect::ExitCode::bad_input);
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a build request survives its JSON form", "[app][remote_build]") {
  const BuildEnvRequest back = build_request_from_json(build_request_to_json(sample()), "req.json");
  CHECK(back.venv.python == "python3");
  CHECK(back.venv.python_version == "3.11");
  CHECK(back.venv.packages == sample().venv.packages);
  CHECK(back.venv.wheel_dirs == sample().venv.wheel_dirs);
  CHECK(back.venv.env_dir == "/stage/store/envs/abc");
  CHECK(back.venv.log_dir == "/stage/run/logs/build-abc");
  CHECK(back.builder == "store");
  CHECK(back.store.store_dir == "/stage/store");
  CHECK(back.store.uv_cache_dirs == sample().store.uv_cache_dirs);
}

TEST_CASE("a bad build request names the file and the field", "[app][remote_build]") {
  nlohmann::json doc = build_request_to_json(sample());
  doc.erase("env_dir");
  CHECK(message_of(doc) == "req.json: /env_dir: missing");
  doc = build_request_to_json(sample());
  doc["packages"]["fauxtorch"] = 2;
  CHECK(message_of(doc) == "req.json: /packages/fauxtorch: expected a version string");
  doc = build_request_to_json(sample());
  doc["builder"] = "conda";
  CHECK(message_of(doc) == "req.json: /builder: conda: expected store or installer");
  doc = build_request_to_json(sample());
  doc["log_dir"] = "logs";
  CHECK(message_of(doc) == "req.json: /log_dir: logs: expected an absolute path");
  doc = build_request_to_json(sample());
  doc["wheel_dirs"] = nlohmann::json::array({"/a", 3});
  CHECK(message_of(doc) == "req.json: /wheel_dirs/1: expected a string");
  doc = build_request_to_json(sample());
  doc["python"] = nlohmann::json::array();
  CHECK(message_of(doc) == "req.json: /python: expected string, got array");
  CHECK(message_of(nlohmann::json::array()) == "req.json: expected a JSON object");
}

TEST_CASE("run_build_env reuses an environment its marker says was built", "[app][remote_build]") {
  const envbisect::test::TempDir dir("build-env");
  const std::filesystem::path env = dir.path / "envs" / "abc";
  std::filesystem::create_directories(env);
  std::ofstream(env / "envbisect-built.json")
      << R"({"ok": true, "builder": "store", "python": "/x/bin/python", "installed": {"alpha": "1.0"}})";
  BuildEnvRequest request = sample();
  request.venv.env_dir = env.string();
  request.venv.log_dir = (dir.path / "logs").string();
  std::ofstream(dir.path / "req.json") << build_request_to_json(request).dump();
  std::ostringstream out;
  std::streambuf* old = std::cout.rdbuf(out.rdbuf());
  const envbisect::ExitCode code = envbisect::run_build_env((dir.path / "req.json").string());
  std::cout.rdbuf(old);
  CHECK(code == envbisect::ExitCode::ok);
  const nlohmann::json answer = nlohmann::json::parse(out.str());
  CHECK(answer["ok"] == true);
  CHECK(answer["reused"] == true);
  CHECK(answer["python"] == "/x/bin/python");
  CHECK(answer["installed"]["alpha"] == "1.0");
  CHECK(std::filesystem::exists(env.string() + ".lock"));  // held while deciding
}

TEST_CASE("build_venv_remotely sends the wheels, maps the answer back and refuses an answer it cannot read",
          "[app][remote_build]") {
  const envbisect::test::TempDir dir("remote-build");
  for (const char* sub : {"bin", "bundle", "wheels", "logs"}) {
    std::filesystem::create_directories(dir.path / sub);
  }
  const std::string root = (dir.path / "root").string();
  // The wheel the request resolves to, and one it does not need.
  std::ofstream(dir.path / "wheels" / "alpha-1.0-py3-none-any.whl") << "zip";
  std::ofstream(dir.path / "wheels" / "alpha-2.0-py3-none-any.whl") << "zip";
  // A stand-in for the bundled envbisect: answers as `build-env` does, naming paths under the root.
  const std::string env_dir = (dir.path / "store" / "envs" / "abc").string();
  auto bundle_answers = [&](const std::string& answer) {
    std::ofstream(dir.path / "bundle" / "envbisect") << "#!/bin/sh\necho 'building'\necho '" << answer << "'\n";
    std::filesystem::permissions(dir.path / "bundle" / "envbisect", std::filesystem::perms::owner_all);
  };
  bundle_answers(R"({"ok": true, "reason": "", "builder": "store", "python": ")" + root + env_dir +
                 R"(/bin/python", "installed": {"alpha": "1.0"}, "logs": [")" + root +
                 (dir.path / "logs" / "materialize.log").string() + R"("], "reused": false})");
  BuildEnvRequest request;
  request.venv.python = "python3";
  request.venv.packages = {{"alpha", "1.0"}};
  request.venv.wheel_dirs = {(dir.path / "wheels").string()};
  request.venv.env_dir = env_dir;
  request.venv.log_dir = (dir.path / "logs").string();
  request.store.store_dir = (dir.path / "store").string();

  const envbisect::test::LoopbackSsh ssh(dir.path / "bin", "no line refused");
  envbisect::StagingRunner staging(envbisect::SshTarget{"root@loopback", "", ""}, root);
  envbisect::RemoteBuild built = envbisect::build_venv_remotely(staging, (dir.path / "bundle").string(), request);
  CHECK(built.venv.ok);
  CHECK_FALSE(built.reused);
  CHECK(built.venv.python_path == env_dir + "/bin/python");  // the local name of the remote path
  CHECK(built.venv.installed == std::map<std::string, std::string>{{"alpha", "1.0"}});
  CHECK(std::find(built.venv.log_paths.begin(), built.venv.log_paths.end(),
                  (dir.path / "logs" / "materialize.log").string()) != built.venv.log_paths.end());
  // Only the wheel it needs was sent; the request it read names remote paths.
  CHECK(std::filesystem::exists(root + (dir.path / "wheels" / "alpha-1.0-py3-none-any.whl").string()));
  CHECK_FALSE(std::filesystem::exists(root + (dir.path / "wheels" / "alpha-2.0-py3-none-any.whl").string()));
  const nlohmann::json sent = nlohmann::json::parse(envbisect::test::slurp(dir.path / "logs" / "build-request.json"));
  CHECK(sent["env_dir"] == root + env_dir);
  CHECK(sent["store_dir"] == root + (dir.path / "store").string());

  // An answer in another shape (another envbisect version): not ok, with a reason, never a throw. (A
  // new runner each time: a run sends its read paths, the bundle among them, once.)
  bundle_answers(R"({"ok": "yes"})");
  envbisect::StagingRunner second(envbisect::SshTarget{"root@loopback", "", ""}, root);
  built = envbisect::build_venv_remotely(second, (dir.path / "bundle").string(), request);
  CHECK_FALSE(built.venv.ok);
  CHECK(built.venv.reason.find("is not understood") != std::string::npos);
  // No answer at all.
  bundle_answers("");
  envbisect::StagingRunner third(envbisect::SshTarget{"root@loopback", "", ""}, root);
  built = envbisect::build_venv_remotely(third, (dir.path / "bundle").string(), request);
  CHECK_FALSE(built.venv.ok);
  CHECK(built.venv.reason.find("building on root@loopback:" + root + " failed") != std::string::npos);
}
