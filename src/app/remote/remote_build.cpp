#include "app/remote/remote_build.hpp"

#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <vector>

#include <spdlog/spdlog.h>

#include "env/store.hpp"
#include "env/wheel_source.hpp"
#include "exec/runner.hpp"
#include "exec/staging.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace envbisect {

using nlohmann::json;

namespace {

constexpr std::chrono::minutes k_build_limit{30};

const json& field(const json& doc, const char* name, json::value_t type, const std::string& where) {
  if (!doc.contains(name)) {
    throw Error(where + ": /" + name + ": missing", ExitCode::bad_input);
  }
  const json& value = doc.at(name);
  const bool ok = value.type() == type ||
                  (type == json::value_t::array && value.is_array()) ||
                  (type == json::value_t::object && value.is_object());
  if (!ok) {
    throw Error(where + ": /" + name + ": expected " + json(type).type_name() + ", got " + value.type_name(),
                ExitCode::bad_input);
  }
  return value;
}

std::vector<std::string> strings_of(const json& value, const std::string& where) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string()) {
      throw Error(where + "/" + std::to_string(i) + ": expected a string", ExitCode::bad_input);
    }
    out.push_back(value[i].get<std::string>());
  }
  return out;
}

json result_to_json(const VenvResult& venv, bool reused) {
  return {{"ok", venv.ok},         {"reason", venv.reason},       {"builder", venv.builder},
          {"python", venv.python_path}, {"installed", venv.installed}, {"logs", venv.log_paths},
          {"reused", reused}};
}

}  // namespace

json build_request_to_json(const BuildEnvRequest& request) {
  return {{"python", request.venv.python},
          {"python_version", request.venv.python_version},
          {"packages", request.venv.packages},
          {"wheel_dirs", request.venv.wheel_dirs},
          {"index_url", request.venv.index_url},
          {"env_dir", request.venv.env_dir},
          {"log_dir", request.venv.log_dir},
          {"builder", request.builder},
          {"store_dir", request.store.store_dir},
          {"uv_cache_dirs", request.store.uv_cache_dirs}};
}

BuildEnvRequest build_request_from_json(const json& doc, const std::string& where) {
  if (!doc.is_object()) {
    throw Error(where + ": expected a JSON object", ExitCode::bad_input);
  }
  using type = json::value_t;
  BuildEnvRequest request;
  request.venv.python = field(doc, "python", type::string, where).get<std::string>();
  request.venv.python_version = field(doc, "python_version", type::string, where).get<std::string>();
  const json& packages = field(doc, "packages", type::object, where);
  for (const auto& [name, version] : packages.items()) {
    if (!version.is_string()) {
      throw Error(where + ": /packages/" + name + ": expected a version string", ExitCode::bad_input);
    }
    request.venv.packages[name] = version.get<std::string>();
  }
  request.venv.wheel_dirs = strings_of(field(doc, "wheel_dirs", type::array, where), where + ": /wheel_dirs");
  request.venv.index_url = field(doc, "index_url", type::string, where).get<std::string>();
  request.venv.env_dir = field(doc, "env_dir", type::string, where).get<std::string>();
  request.venv.log_dir = field(doc, "log_dir", type::string, where).get<std::string>();
  request.builder = field(doc, "builder", type::string, where).get<std::string>();
  if (request.builder != "store" && request.builder != "installer") {
    throw Error(where + ": /builder: " + request.builder + ": expected store or installer", ExitCode::bad_input);
  }
  request.store.store_dir = field(doc, "store_dir", type::string, where).get<std::string>();
  request.store.uv_cache_dirs =
      strings_of(field(doc, "uv_cache_dirs", type::array, where), where + ": /uv_cache_dirs");
  for (const std::string* path : {&request.venv.env_dir, &request.venv.log_dir}) {
    if (path->empty() || path->front() != '/') {
      throw Error(where + ": " + (path == &request.venv.env_dir ? "/env_dir" : "/log_dir") + ": " + *path +
                      ": expected an absolute path",
                  ExitCode::bad_input);
    }
  }
  return request;
}

ExitCode run_build_env(const std::string& request_path) {
  std::string text;
  try {
    text = read_file(request_path);
  } catch (const Error& error) {
    throw Error(std::string(error.what()), ExitCode::bad_input);
  }
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) {
    throw Error(request_path + ": not valid JSON", ExitCode::bad_input);
  }
  const BuildEnvRequest request = build_request_from_json(doc, request_path);
  const std::string& env_dir = request.venv.env_dir;
  make_dirs(parent_dir(env_dir));
  // Two runs building the same environment on this machine: the second waits, then reuses it.
  FileLock lock(env_dir + ".lock", LockMode::exclusive, LockWait::yes);
  const std::string marker = env_dir + "/envbisect-built.json";
  if (path_exists(marker)) {
    const json built = json::parse(read_file(marker), nullptr, false);
    if (!built.is_discarded() && built.value("ok", false)) {
      VenvResult venv;
      venv.ok = true;
      venv.builder = built.value("builder", "");
      venv.python_path = built.value("python", "");
      venv.installed = built.value("installed", std::map<std::string, std::string>{});
      std::cout << result_to_json(venv, true).dump() << "\n";
      return ExitCode::ok;
    }
  }
  remove_tree(env_dir);
  LocalRunner runner;
  const VenvResult venv =
      request.builder == "store" ? materialize_venv(runner, request.venv, request.store) : build_venv(runner, request.venv);
  if (venv.ok) {
    write_file_atomic(marker, json({{"ok", true},
                                    {"builder", venv.builder},
                                    {"python", venv.python_path},
                                    {"installed", venv.installed}})
                                  .dump());
  }
  std::cout << result_to_json(venv, false).dump() << "\n";
  return ExitCode::ok;
}

RemoteBuild build_venv_remotely(StagingRunner& staging, const std::string& bundle_dir, const BuildEnvRequest& request) {
  const VenvRequest& local = request.venv;
  make_dirs(local.log_dir);

  // Only what this environment needs travels: the exact builds its packages resolve to here.
  ProcessSpec spec;
  spec.read_paths.push_back(bundle_dir);
  const WheelSources sources{local.wheel_dirs, request.store.uv_cache_dirs};
  for (const auto& [name, version] : local.packages) {
    if (std::optional<Distribution> dist = find_distribution(sources, name, version, local.python_version)) {
      spec.read_paths.push_back(dist->path);
    }
  }
  BuildEnvRequest remote = request;
  remote.venv.env_dir = staging.remote_path(local.env_dir);
  remote.venv.log_dir = staging.remote_path(local.log_dir);
  remote.venv.wheel_dirs.clear();
  for (const std::string& dir : local.wheel_dirs) {
    remote.venv.wheel_dirs.push_back(staging.remote_path(absolute_path(dir, ".")));
  }
  remote.store.uv_cache_dirs.clear();
  for (const std::string& dir : request.store.uv_cache_dirs) {
    remote.store.uv_cache_dirs.push_back(staging.remote_path(absolute_path(dir, ".")));
  }
  remote.store.store_dir =
      staging.remote_path(request.store.store_dir.empty() ? default_store_dir() : request.store.store_dir);
  write_file_atomic(local.log_dir + "/build-request.json", build_request_to_json(remote).dump(2) + "\n");

  spec.argv = {bundle_dir + "/envbisect", "build-env", local.log_dir + "/build-request.json"};
  spec.env = allowed_parent_env();
  spec.cwd = local.log_dir;
  spec.stdout_path = local.log_dir + "/build-env.out.log";
  spec.stderr_path = local.log_dir + "/build-env.err.log";
  spec.timeout = k_build_limit;
  spec.write_paths.push_back(local.log_dir);
  spdlog::info("building environment on {} with {}", staging.where(), spec.argv.front());
  const ProcessResult process = staging.run(spec);

  RemoteBuild out;
  out.venv.builder = request.builder;
  out.venv.log_paths = {spec.stdout_path, spec.stderr_path};
  std::string answer = read_file_or_empty(spec.stdout_path);
  // The answer is the last line of stdout (one JSON object).
  while (!answer.empty() && (answer.back() == '\n' || answer.back() == '\r')) {
    answer.pop_back();
  }
  const std::size_t newline = answer.rfind('\n');
  const json doc = json::parse(newline == std::string::npos ? answer : answer.substr(newline + 1), nullptr, false);
  if (!process.spawned || process.exit_code != 0 || !doc.is_object()) {
    std::string why = !process.spawned ? process.spawn_error
                      : process.timed_out ? "timed out"
                                          : "exit " + std::to_string(process.exit_code);
    out.venv.reason = "building on " + staging.where() + " failed (" + why + "); see " + spec.stderr_path;
    return out;
  }
  try {
    out.venv.ok = doc.value("ok", false);
    out.venv.reason = doc.value("reason", "");
    out.venv.builder = doc.value("builder", request.builder);
    out.venv.python_path = staging.local_path(doc.value("python", ""));
    out.venv.installed = doc.value("installed", std::map<std::string, std::string>{});
    for (const std::string& path : doc.value("logs", std::vector<std::string>{})) {
      out.venv.log_paths.push_back(staging.local_path(path));
    }
    out.reused = doc.value("reused", false);
  } catch (const json::exception& error) {
    // Another envbisect version answering in another shape: say so rather than guess.
    out.venv.ok = false;
    out.venv.reason = "the remote builder's answer in " + spec.stdout_path + " is not understood (" + error.what() +
                      "); is the bundle this envbisect's version?";
  }
  return out;
}

}  // namespace envbisect
