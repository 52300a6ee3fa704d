#include "app/remote_build.hpp"

#include <catch2/catch.hpp>

#include <string>

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
