#include "core/state.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "core/json_input.hpp"
#include "core/version.hpp"
#include "core/wheel_name.hpp"
#include "util/strings.hpp"

namespace envbisect {

using nlohmann::json;

std::string normalize_package_name(std::string_view name) {
  // PEP 503: each run of -, _ and . becomes one -, letters lower case (re.sub(r"[-_.]+", "-", name).lower()).
  std::string out;
  for (const char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (out.empty() || out.back() != '-') {
        out += '-';
      }
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

bool is_valid_package_name(const std::string& name) {
  // PEP 508 names: ASCII letters and digits, with . _ - inside.
  if (name.empty() || !std::isalnum(static_cast<unsigned char>(name.front())) ||
      !std::isalnum(static_cast<unsigned char>(name.back()))) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

namespace {

bool is_hex(const std::string& text);

// Return whether `path` is a non-empty relative path that stays inside its base ("pkgs/a", not "../a").
bool relative_inside(const std::string& path) {
  if (path.empty() || path[0] == '/') {
    return false;
  }
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = std::min(path.find('/', start), path.size());
    const std::string part = path.substr(start, slash - start);
    if (part.empty() || part == "..") {
      return false;
    }
    start = slash + 1;
  }
  return true;
}

// Read a package's `hashes`: sha256s (64 hex digits) of its files, any of which the wheel taken may have.
void read_hashes(const json& value, const std::string& pointer, PackagePin& pin, Problems& problems) {
  auto it = value.find("hashes");
  if (it == value.end()) {
    return;
  }
  if (!it->is_array() || it->empty()) {
    problems.add(pointer + "/hashes", "expected a list of sha256s (64 hex digits each), got " + it->dump());
    return;
  }
  if (value.contains("sha256")) {
    problems.add(pointer + "/hashes", "give sha256 (one file) or hashes (any of these files), not both");
  }
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& hash = (*it)[i];
    if (!hash.is_string() || hash.get<std::string>().size() != 64 || !is_hex(hash.get<std::string>())) {
      problems.add(pointer + "/hashes/" + std::to_string(i), "expected 64 hex digits, got " + hash.dump());
      continue;
    }
    std::string hex = hash.get<std::string>();
    std::transform(hex.begin(), hex.end(), hex.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    pin.hashes.push_back(hex);
  }
  std::sort(pin.hashes.begin(), pin.hashes.end());
  pin.hashes.erase(std::unique(pin.hashes.begin(), pin.hashes.end()), pin.hashes.end());
}

bool is_hex(const std::string& text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// Read a string member; record a problem when present with the wrong type or when required and absent.
std::string read_string(const json& object, const char* key, const std::string& pointer, Problems& problems,
                        bool required) {
  auto it = object.find(key);
  if (it == object.end()) {
    if (required) {
      problems.add(pointer + "/" + key, "missing; expected a string");
    }
    return "";
  }
  if (!it->is_string()) {
    problems.add(pointer + "/" + key, "expected a string, got " + json_type_name(*it));
    return "";
  }
  return it->get<std::string>();
}

// Return the section `key` when it is an object; record a problem when it is something else.
const json* section(const json& doc, const char* key, Problems& problems) {
  auto it = doc.find(key);
  if (it == doc.end()) {
    return nullptr;
  }
  if (!it->is_object()) {
    problems.add(std::string("/") + key, "expected an object, got " + json_type_name(*it));
    return nullptr;
  }
  return &*it;
}

void parse_container(const json& doc, EnvState& state, Problems& problems) {
  const json* container = section(doc, "container", problems);
  if (container == nullptr) {
    return;
  }
  check_fields(*container, "/container", {"base", "packages"}, problems);
  state.container.base = read_string(*container, "base", "/container", problems, true);
  if (container->contains("base") && (*container)["base"] == "") {
    problems.add("/container/base", "expected a rootfs folder or an image name, got an empty string");
  }
  const json* packages = section(*container, "packages", problems);
  if (packages == nullptr) {
    return;
  }
  for (const auto& [name, version] : packages->items()) {
    if (!version.is_string()) {
      problems.add("/container/packages/" + pointer_token(name), "expected a Debian version string, got " +
                                                                     json_type_name(version));
      continue;
    }
    state.container.packages[name] = version.get<std::string>();
  }
}

// "3.11" or "3.11.4": what uv, venv and the interpreter lookup take as a version.
bool is_python_version(const std::string& text) {
  std::size_t parts = 0;
  std::size_t digits = 0;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c == '.' && digits > 0) {
      ++parts;
      digits = 0;
    } else {
      return false;
    }
  }
  return digits > 0 && (parts == 1 || parts == 2);
}

void parse_python(const json& doc, EnvState& state, Problems& problems) {
  const json* python = section(doc, "python", problems);
  if (python == nullptr) {
    return;
  }
  check_fields(*python, "/python", {"version", "interpreter", "venv"}, problems);
  state.python.version = read_string(*python, "version", "/python", problems, false);
  state.python.interpreter = read_string(*python, "interpreter", "/python", problems, false);
  for (const char* field : {"version", "interpreter"}) {
    if (python->contains(field) && (*python)[field].is_string() && (*python)[field].get_ref<const std::string&>().empty()) {
      problems.add(std::string("/python/") + field, "got an empty string; leave the field out for the default");
    }
  }
  if (!state.python.version.empty() && !is_python_version(state.python.version)) {
    problems.add("/python/version", "expected a Python version such as 3.11 or 3.11.4, got '" + state.python.version + "'");
  }
  std::string venv = read_string(*python, "venv", "/python", problems, false);
  if (venv == "none") {
    state.python.use_as_is = true;
  } else if (!venv.empty() && venv != "fresh") {
    problems.add("/python/venv", "expected \"fresh\" (a venv per candidate, the default) or \"none\" (the interpreter as is), got '" + venv + "'");
  }
}

void parse_packages(const json& doc, EnvState& state, Problems& problems) {
  const json* packages = section(doc, "packages", problems);
  if (packages == nullptr) {
    return;
  }
  std::map<std::string, std::string> seen;  // normalised -> name as written
  for (const auto& [name, value] : packages->items()) {
    std::string pointer = "/packages/" + pointer_token(name);
    if (!is_valid_package_name(name)) {
      problems.add(pointer, "invalid package name '" + name + "'");
      continue;
    }
    std::string key = normalize_package_name(name);
    if (auto it = seen.find(key); it != seen.end()) {
      problems.add(pointer, "duplicate package: '" + name + "' and '" + it->second + "' are the same name");
      continue;
    }
    seen.emplace(key, name);
    PackagePin pin;
    if (value.is_string()) {
      pin.version = value.get<std::string>();
    } else if (value.is_object()) {
      check_fields(value, pointer, {"version", "wheel", "sha256", "hashes"}, problems);
      pin.version = read_string(value, "version", pointer, problems, true);
      if (value.contains("wheel")) {
        pin.wheel = read_string(value, "wheel", pointer, problems, false);
      }
      if (value.contains("sha256")) {
        pin.sha256 = read_string(value, "sha256", pointer, problems, false);
        if (value["sha256"].is_string() && (pin.sha256->size() != 64 || !is_hex(*pin.sha256))) {
          problems.add(pointer + "/sha256", "expected 64 hex digits");
        }
      }
      read_hashes(value, pointer, pin, problems);
      pointer += "/version";
    } else {
      problems.add(pointer, "expected a version string or an object, got " + json_type_name(value));
      continue;
    }
    if (value.is_string() && pin.version.empty()) {
      problems.add(pointer, "invalid PEP 440 version '': a pin names one version");
    } else if (!pin.version.empty() && !Version::parse(pin.version)) {
      problems.add(pointer, "invalid PEP 440 version '" + pin.version + "'");
    } else if (pin.wheel && !pin.wheel->empty() && !pin.version.empty()) {
      // A wheel pin names one file of this package at this version, found in the wheel sources.
      const std::optional<WheelName> wheel = parse_wheel_name(*pin.wheel);
      const std::string wheel_pointer = "/packages/" + pointer_token(name) + "/wheel";
      if (!wheel || pin.wheel->find('/') != std::string::npos) {
        problems.add(wheel_pointer, "expected a wheel file name (NAME-VERSION-PY-ABI-PLATFORM.whl, no folder), got '" +
                                        *pin.wheel + "'");
      } else if (wheel->name != key || !(wheel->version == *Version::parse(pin.version))) {
        problems.add(wheel_pointer, "'" + *pin.wheel + "' is " + wheel->name + " " + wheel->version_text + ", not " +
                                        name + " " + pin.version);
      }
    }
    state.packages.emplace(key, std::move(pin));
  }
}

// Return why `text` cannot be a revision a repository resolves (empty when it can be): it must be
// non-empty, at most 256 characters, without spaces or control characters, and not look like an option.
std::string revision_problem(const std::string& text) {
  if (text.empty()) {
    return "got an empty string";
  }
  if (text.size() > 256) {
    return "got " + std::to_string(text.size()) + " characters (at most 256)";
  }
  for (unsigned char c : text) {
    if (c <= 0x20 || c == 0x7f) {
      return "got text with a space or control character";
    }
  }
  if (text.front() == '-') {
    return "got '" + text + "', which starts with '-'";
  }
  return "";
}

// Return why `name` cannot name a repository, cache or thread knob (empty when it can): envbisect
// makes folders of repository and cache names (RUNDIR/repos/NAME-COMMIT, a cache snapshot per
// name) and recipes quote them in placeholders, so a name is one path part a shell would not need
// quoting for: letters, digits, '.', '_', '-' and '+', at most 100, not starting with '.' or '-'
// ("../../x" would put a checkout or a cache snapshot outside the run folder).
std::string name_problem(const std::string& name) {
  if (name.empty()) {
    return "invalid name: empty";
  }
  if (name.size() > 100) {
    return "invalid name: " + std::to_string(name.size()) + " characters (at most 100)";
  }
  if (name.front() == '.' || name.front() == '-') {
    return "invalid name '" + name + "': starts with '" + name.front() + "'";
  }
  for (unsigned char c : name) {
    if (std::isalnum(c) == 0 && c != '.' && c != '_' && c != '-' && c != '+') {
      return "invalid name '" + name + "': only letters, digits, '.', '_', '-' and '+' can name a folder";
    }
  }
  return "";
}

void parse_repos(const json& doc, EnvState& state, Problems& problems) {
  const json* repos = section(doc, "repos", problems);
  if (repos == nullptr) {
    return;
  }
  for (const auto& [name, value] : repos->items()) {
    std::string pointer = "/repos/" + pointer_token(name);
    if (std::string why = name_problem(name); !why.empty()) {
      problems.add(pointer, why);
      continue;
    }
    if (!value.is_object()) {
      problems.add(pointer, "expected an object with path and commit, got " + json_type_name(value));
      continue;
    }
    check_fields(value, pointer, {"path", "url", "commit", "subdirectory"}, problems);
    RepoPin pin;
    // A repository known by its URL alone (a lock's git source) may leave `path` out; `run` needs one.
    pin.url = read_string(value, "url", pointer, problems, false);
    pin.path = read_string(value, "path", pointer, problems, pin.url.empty());
    pin.commit = read_string(value, "commit", pointer, problems, true);
    pin.subdirectory = read_string(value, "subdirectory", pointer, problems, false);
    if (value.contains("subdirectory") && value["subdirectory"].is_string() && !relative_inside(pin.subdirectory)) {
      problems.add(pointer + "/subdirectory", "expected a folder inside the repository (relative, no '..'), got '" +
                                                  pin.subdirectory + "'");
    }
    if (value.contains("commit") && value["commit"].is_string()) {
      if (std::string why = revision_problem(pin.commit); !why.empty()) {
        problems.add(pointer + "/commit", "expected a commit id, tag, branch or revision (v2.3, main~4), " + why);
      }
    }
    state.repos.emplace(name, std::move(pin));
  }
}

void parse_caches(const json& doc, EnvState& state, Problems& problems) {
  const json* caches = section(doc, "caches", problems);
  if (caches == nullptr) {
    return;
  }
  for (const auto& [name, value] : caches->items()) {
    std::string pointer = "/caches/" + pointer_token(name);
    if (std::string why = name_problem(name); !why.empty()) {
      problems.add(pointer, why);
      continue;
    }
    if (!value.is_object()) {
      problems.add(pointer, "expected an object with role and state, got " + json_type_name(value));
      continue;
    }
    check_fields(value, pointer, {"role", "state"}, problems);
    CacheState cache;
    cache.role = read_string(value, "role", pointer, problems, false);
    if (cache.role.empty()) {
      cache.role = name;
    }
    cache.state = read_string(value, "state", pointer, problems, true);
    if (value.contains("state") && value["state"].is_string() && cache.state != "cold" && cache.state != "warm" &&
        cache.state.find('/') == std::string::npos) {
      problems.add(pointer + "/state", "expected \"cold\", \"warm\" or a snapshot path, got '" + cache.state + "'");
    }
    state.caches.emplace(name, std::move(cache));
  }
}

void parse_scalars(const json& doc, EnvState& state, Problems& problems) {
  if (const json* threads = section(doc, "threads", problems)) {
    for (const auto& [name, value] : threads->items()) {
      if (std::string why = name_problem(name); !why.empty()) {
        problems.add("/threads/" + pointer_token(name), why);
        continue;
      }
      if (!value.is_number_integer() || value.get<std::int64_t>() < 0) {
        problems.add("/threads/" + pointer_token(name), "expected a non-negative integer, got " + value.dump());
        continue;
      }
      state.threads.emplace(name, value.get<std::int64_t>());
    }
  }
  if (const json* env = section(doc, "env", problems)) {
    for (const auto& [name, value] : env->items()) {
      if (name.empty() || name.find('=') != std::string::npos || name.find('\0') != std::string::npos) {
        problems.add("/env/" + pointer_token(name), "invalid environment variable name");
      } else if (!value.is_string()) {
        problems.add("/env/" + pointer_token(name), "expected a string, got " + json_type_name(value));
      } else if (value.get_ref<const std::string&>().find('\0') != std::string::npos) {
        problems.add("/env/" + pointer_token(name), "contains a NUL character, which no environment variable can hold");
      } else {
        state.env.emplace(name, value.get<std::string>());
      }
    }
  }
  if (const json* data = section(doc, "data", problems)) {
    for (const auto& [name, value] : data->items()) {
      if (value.is_string()) {
        state.data.emplace(name, value.get<std::string>());
      } else if (value.is_number_float() && std::isfinite(value.get<double>()) &&
                 std::floor(value.get<double>()) == value.get<double>() && std::fabs(value.get<double>()) < 9007199254740992.0) {
        // 1e2, 100.0 and 100 are one number: written as the integer, as a benchmark reads it.
        state.data.emplace(name, std::to_string(static_cast<long long>(value.get<double>())));
      } else if (value.is_number() || value.is_boolean()) {
        state.data.emplace(name, value.dump());
      } else {
        problems.add("/data/" + pointer_token(name), "expected a string, number or boolean, got " + json_type_name(value));
      }
    }
  }
}

constexpr std::int64_t k_max_gpu_index = 65535;

std::vector<int> read_gpu_list(const json& gpus, const char* key, Problems& problems) {
  std::vector<int> out;
  auto it = gpus.find(key);
  if (it == gpus.end()) {
    return out;
  }
  std::string pointer = std::string("/gpus/") + key;
  if (!it->is_array()) {
    problems.add(pointer, "expected an array of GPU indices, got " + json_type_name(*it));
    return out;
  }
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& index = (*it)[i];
    // Read as 64 bits first: get<int>() would wrap 4294967296 to GPU 0.
    if (!index.is_number_integer() || index.get<std::int64_t>() < 0 || index.get<std::int64_t>() > k_max_gpu_index) {
      problems.add(pointer + "/" + std::to_string(i),
                   "expected a GPU index (an integer from 0 to " + std::to_string(k_max_gpu_index) + "), got " + index.dump());
      continue;
    }
    if (std::find(out.begin(), out.end(), index.get<int>()) != out.end()) {
      problems.add(pointer + "/" + std::to_string(i), "GPU " + index.dump() + " is listed twice");
      continue;
    }
    out.push_back(index.get<int>());
  }
  return out;
}

void parse_gpus(const json& doc, EnvState& state, Problems& problems) {
  const json* gpus = section(doc, "gpus", problems);
  if (gpus == nullptr) {
    return;
  }
  check_fields(*gpus, "/gpus", {"target", "drafter"}, problems);
  state.gpus.target = read_gpu_list(*gpus, "target", problems);
  state.gpus.drafter = read_gpu_list(*gpus, "drafter", problems);
  std::set<int> target(state.gpus.target.begin(), state.gpus.target.end());
  for (int index : state.gpus.drafter) {
    if (target.count(index) != 0) {
      problems.add("/gpus/drafter", "GPU " + std::to_string(index) + " is both a target and a drafter GPU");
    }
  }
}

// Read `unknown`: the fields the state does not know, each one of k_unknowable_fields, once.
void parse_unknown(const json& doc, EnvState& state, Problems& problems) {
  auto it = doc.find("unknown");
  if (it == doc.end()) {
    return;
  }
  const std::string expected = join(std::vector<std::string>(k_unknowable_fields.begin(), k_unknowable_fields.end()), ", ");
  if (!it->is_array()) {
    problems.add("/unknown", "expected a list of fields the state does not know (" + expected + "), got " + json_type_name(*it));
    return;
  }
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& field = (*it)[i];
    const std::string pointer = "/unknown/" + std::to_string(i);
    if (!field.is_string() || k_unknowable_fields.count(field.get<std::string>()) == 0) {
      problems.add(pointer, "expected one of " + expected + ", got " + field.dump());
    } else if (!state.unknown.insert(field.get<std::string>()).second) {
      problems.add(pointer, field.get<std::string>() + " is listed twice");
    }
  }
}

}  // namespace

EnvState parse_state(const std::string& text, const std::string& source) {
  json doc = parse_json_text(text, source);
  Problems problems(source);
  if (!doc.is_object()) {
    problems.add("", "expected a JSON object (an environment state), got " + json_type_name(doc));
    problems.throw_if_any();
  }
  check_fields(doc, "", {"format", "name", "description", "python", "packages", "repos", "caches", "threads", "env",
                         "data", "gpus", "container", "unknown"},
               problems);
  EnvState state;
  auto format = doc.find("format");
  if (format == doc.end()) {
    problems.add("/format", "missing; expected 1 (this envbisect reads state format 1)");
  } else if (!format->is_number_integer() || format->get<std::int64_t>() != 1) {
    problems.add("/format", "expected 1 (this envbisect reads state format 1), got " + format->dump());
  }
  // A NUL would silently cut the argv, path or variable a value becomes ({data.NAME} in an argument):
  // every section but env (which says so itself) is checked here.
  for (const auto& [key, value] : doc.items()) {
    if (key != "env") {
      check_no_nul(value, "/" + pointer_token(key), problems);
    }
  }
  state.name = read_string(doc, "name", "", problems, false);
  state.description = read_string(doc, "description", "", problems, false);
  parse_python(doc, state, problems);
  parse_packages(doc, state, problems);
  parse_repos(doc, state, problems);
  parse_caches(doc, state, problems);
  parse_scalars(doc, state, problems);
  parse_gpus(doc, state, problems);
  parse_container(doc, state, problems);
  parse_unknown(doc, state, problems);
  problems.throw_if_any();
  // At this point the state is fully valid.
  return state;
}

json state_to_json(const EnvState& state) {
  json doc = {{"format", state.format}};
  if (!state.name.empty()) {
    doc["name"] = state.name;
  }
  if (!state.description.empty()) {
    doc["description"] = state.description;
  }
  if (!state.python.version.empty() || !state.python.interpreter.empty() || state.python.use_as_is) {
    json python = json::object();
    if (state.python.use_as_is) {
      python["venv"] = "none";
    }
    if (!state.python.version.empty()) {
      python["version"] = state.python.version;
    }
    if (!state.python.interpreter.empty()) {
      python["interpreter"] = state.python.interpreter;
    }
    doc["python"] = python;
  }
  for (const auto& [name, pin] : state.packages) {
    if (!pin.wheel && !pin.sha256 && pin.hashes.empty()) {
      doc["packages"][name] = pin.version;
      continue;
    }
    json entry = {{"version", pin.version}};
    if (pin.wheel) {
      entry["wheel"] = *pin.wheel;
    }
    if (pin.sha256) {
      entry["sha256"] = *pin.sha256;
    }
    if (!pin.hashes.empty()) {
      entry["hashes"] = pin.hashes;
    }
    doc["packages"][name] = entry;
  }
  for (const auto& [name, pin] : state.repos) {
    json entry = {{"commit", pin.commit}};
    if (!pin.path.empty() || pin.url.empty()) {
      entry["path"] = pin.path;
    }
    if (!pin.url.empty()) {
      entry["url"] = pin.url;
    }
    if (!pin.subdirectory.empty()) {
      entry["subdirectory"] = pin.subdirectory;
    }
    doc["repos"][name] = entry;
  }
  for (const auto& [name, cache] : state.caches) {
    doc["caches"][name] = {{"role", cache.role}, {"state", cache.state}};
  }
  for (const auto& [name, count] : state.threads) {
    doc["threads"][name] = count;
  }
  for (const auto& [name, value] : state.env) {
    doc["env"][name] = value;
  }
  for (const auto& [name, value] : state.data) {
    doc["data"][name] = value;
  }
  if (!state.gpus.target.empty() || !state.gpus.drafter.empty()) {
    doc["gpus"] = {{"target", state.gpus.target}, {"drafter", state.gpus.drafter}};
  }
  if (!state.container.base.empty()) {
    doc["container"] = {{"base", state.container.base}, {"packages", state.container.packages}};
  }
  if (!state.unknown.empty()) {
    doc["unknown"] = state.unknown;
  }
  return doc;
}

}  // namespace envbisect
