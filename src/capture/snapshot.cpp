#include "capture/snapshot.hpp"

#include <cctype>
#include <ctime>
#include <filesystem>
#include <set>

#include "capture/env_vars.hpp"
#include "core/installer_packages.hpp"
#include "core/version.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Variables whose role a state already holds elsewhere: the cache folders are per-run in `envbisect run`.
bool is_cache_location(const std::string& name) {
  return name == "TORCHINDUCTOR_CACHE_DIR" || name == "TRITON_CACHE_DIR" || name == "TRITON_HOME";
}

bool valid_package_name(const std::string& name) {
  if (name.empty() || !std::isalnum(static_cast<unsigned char>(name.front())) ||
      !std::isalnum(static_cast<unsigned char>(name.back()))) {
    return false;
  }
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

// Set wheel and sha256 when pip recorded a direct install of a wheel file with its hash.
void pin_wheel_from_direct_url(const json& direct_url, PackagePin& pin) {
  if (!direct_url.is_object() || !direct_url.contains("url") || !direct_url["url"].is_string()) {
    return;
  }
  const std::string url = direct_url["url"].get<std::string>();
  if (url.size() < 4 || url.substr(url.size() - 4) != ".whl") {
    return;
  }
  std::string sha;
  const json archive = direct_url.value("archive_info", json::object());
  if (archive.contains("hashes") && archive["hashes"].is_object() && archive["hashes"].contains("sha256")) {
    sha = archive["hashes"]["sha256"].get<std::string>();
  } else if (archive.contains("hash") && archive["hash"].is_string() &&
             starts_with(archive["hash"].get<std::string>(), "sha256=")) {
    sha = archive["hash"].get<std::string>().substr(7);
  }
  if (sha.size() != 64) {
    return;
  }
  pin.wheel = url.substr(url.rfind('/') + 1);
  pin.sha256 = sha;
}

void capture_packages(const CaptureInputs& inputs, Capture& capture, json& captured) {
  const json& packages = inputs.probe.value("packages", json::object());
  if (packages.contains("error")) {
    capture.warnings.push_back("the probe could not list packages: " + packages["error"].dump());
    return;
  }
  captured["packages"] = json::object();
  // The installer's own packages (pip, setuptools, wheel) are the venv's tooling, not the job's
  // environment: pip freeze leaves them out too, and `run` builds venvs with its own installer. They
  // stay when something installed needs them.
  std::set<std::string> needed;
  for (const auto& [key, entry] : packages.items()) {
    if (entry.is_object() && entry.contains("requires") && entry["requires"].is_array()) {
      for (const json& name : entry["requires"]) {
        if (name.is_string()) {
          needed.insert(normalize_package_name(name.get<std::string>()));
        }
      }
    }
  }
  for (const auto& [key, entry] : packages.items()) {
    if (!entry.is_object()) {
      continue;
    }
    const std::string normal = normalize_package_name(key);
    if (const std::optional<std::string> why = installer_package_left_out(normal, NeedsKnown::yes, needed)) {
      captured["packages"][normal] = entry;
      const std::string version = entry.contains("version") && entry["version"].is_string() ? entry["version"].get<std::string>() : "";
      captured["left_out"].push_back(normal + " " + version + ": " + *why);
      continue;
    }
    const std::string name = entry.contains("name") && entry["name"].is_string() ? entry["name"].get<std::string>() : key;
    const std::string version =
        entry.contains("version") && entry["version"].is_string() ? entry["version"].get<std::string>() : "";
    captured["packages"][normalize_package_name(name)] = entry;
    if (!valid_package_name(name) || !Version::parse(version)) {
      capture.warnings.push_back("package '" + name + "' " + version + " (" + entry.value("dist_info", "") +
                                 ") left out of the state: not a valid name and PEP 440 version");
      continue;
    }
    PackagePin pin;
    pin.version = version;
    pin_wheel_from_direct_url(entry.value("direct_url", json()), pin);
    capture.state.packages[normalize_package_name(name)] = pin;
  }
}

// Return `path` relative to `base` when it lies under it, unchanged otherwise.
std::string path_for_state(const std::string& path, const std::string& base) {
  if (base.empty() || path.empty() || path.front() != '/') {
    return path;
  }
  const fs::path relative = fs::path(path).lexically_normal().lexically_relative(fs::path(base).lexically_normal());
  if (relative.empty() || starts_with(relative.string(), "..")) {
    return path;
  }
  return relative.string();
}

void capture_repos(const CaptureInputs& inputs, Capture& capture, json& captured) {
  captured["repos"] = json::object();
  for (const auto& [name, facts] : inputs.repos) {
    json entry = {{"path", facts.path}, {"head", facts.head}, {"branch", facts.branch}, {"url", facts.url},
                  {"dirty", facts.dirty}};
    if (!facts.error.empty()) {
      entry["error"] = facts.error;
      capture.warnings.push_back("repo " + name + ": " + facts.error);
      captured["repos"][name] = entry;
      continue;
    }
    captured["repos"][name] = entry;
    if (!facts.dirty.empty()) {
      capture.warnings.push_back("repo " + name + " (" + facts.path + ") has " + std::to_string(facts.dirty.size()) +
                                 " uncommitted file(s); the state pins HEAD " + facts.head.substr(0, 12) +
                                 ", the facts list them");
    }
    RepoPin pin;
    pin.path = path_for_state(facts.path, inputs.state_dir);
    pin.commit = facts.head;
    pin.url = facts.url;
    capture.state.repos[name] = pin;
  }
}

void capture_caches(const CaptureInputs& inputs, Capture& capture, json& captured) {
  const json& caches = inputs.probe.value("caches", json::object());
  captured["caches"] = caches;
  for (const auto& [name, entry] : caches.items()) {
    if (!entry.is_object() || entry.contains("error")) {
      capture.warnings.push_back("cache " + name + " could not be read: " + entry.dump());
      continue;
    }
    const bool warm = entry.value("entries", 0) > 0;
    capture.state.caches[name] = CacheState{name, warm ? "warm" : "cold"};
  }
}

void capture_env(const CaptureInputs& inputs, Capture& capture, json& captured) {
  std::map<std::string, std::string> env;
  const json env_section = inputs.probe.value("env", json::object());
  for (const auto& [name, value] : env_section.items()) {
    if (value.is_string()) {
      env[name] = value.get<std::string>();
    }
  }
  const std::map<std::string, std::string> redacted = redact_env(env);
  captured["env"] = redacted;
  for (const auto& [name, value] : redacted) {
    // A secret's value is unknown here; writing "<redacted>" (or a URL without its password) into the
    // state would set it in benchmarks: a redacted variable stays out of the state.
    if (value == env.at(name) && !is_secret_env_name(name) && !is_cache_location(name)) {
      capture.state.env[name] = value;
    }
  }
}

}  // namespace

std::string format_utc_time(double epoch_seconds) {
  const std::time_t seconds = static_cast<std::time_t>(epoch_seconds);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[32] = {};
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

std::map<std::string, RepoFacts> repo_facts_from_probe(const nlohmann::json& probe) {
  std::map<std::string, RepoFacts> out;
  const json repos_section = probe.value("repos", json::object());
  for (const auto& [name, entry] : repos_section.items()) {
    RepoFacts facts;
    facts.path = entry.value("path", "");
    facts.error = entry.value("error", "");
    facts.head = entry.value("head", "");
    facts.branch = entry.contains("branch") && entry["branch"].is_string() ? entry["branch"].get<std::string>() : "";
    facts.url = entry.contains("url") && entry["url"].is_string() ? entry["url"].get<std::string>() : "";
    if (entry.contains("dirty") && entry["dirty"].is_array()) {
      facts.dirty = entry["dirty"].get<std::vector<std::string>>();
    }
    out[name] = facts;
  }
  return out;
}

Capture build_capture(const CaptureInputs& inputs) {
  Capture capture;
  const json& probe = inputs.probe;
  const json python = probe.value("python", json::object());
  const json host = probe.value("host", json::object());
  const double time = probe.value("time", 0.0);

  // Name the state and say where it came from; the interpreter is the one venvs are made from.
  capture.state.name = inputs.name;
  capture.state.description = "captured by envbisect from " + python.value("executable", std::string("?")) + " on " +
                              host.value("hostname", std::string("?")) + " at " + format_utc_time(time);
  capture.state.python.version = python.value("version", "");
  capture.state.python.interpreter = python.value("in_venv", false) ? python.value("base_executable", std::string())
                                                                    : python.value("executable", std::string());

  json captured = {{"time", time},
                   {"time_utc", format_utc_time(time)},
                   {"via", inputs.via},
                   {"host", host},
                   {"python", python},
                   {"torch", probe.value("torch", json())},
                   {"gpus", probe.value("gpus", json())}};
  capture_packages(inputs, capture, captured);
  capture_repos(inputs, capture, captured);
  capture_caches(inputs, capture, captured);
  capture_env(inputs, capture, captured);
  capture.facts = {{"format", 1}, {"captured", captured}, {"warnings", capture.warnings}};
  return capture;
}

}  // namespace envbisect
