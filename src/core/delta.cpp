#include "core/delta.hpp"

#include <algorithm>
#include <iterator>

#include <nlohmann/json.hpp>

#include "core/version.hpp"
#include "core/wheel_name.hpp"
#include "util/redact.hpp"
#include "util/strings.hpp"

namespace envbisect {

std::string_view to_string(Dimension dimension) {
  switch (dimension) {
    case Dimension::python: return "python";
    case Dimension::packages: return "packages";
    case Dimension::repos: return "repos";
    case Dimension::caches: return "caches";
    case Dimension::threads: return "threads";
    case Dimension::env: return "env";
    case Dimension::data: return "data";
    case Dimension::gpus: return "gpus";
    case Dimension::container: return "container";
  }
  return "?";
}

namespace {

std::string show(const PackagePin& pin) { return pin.version; }
std::string show(const RepoPin& pin) {
  return pin.subdirectory.empty() ? pin.commit : pin.commit + " (" + pin.subdirectory + ")";
}
std::string show(const CacheState& cache) { return cache.state; }
std::string show(std::int64_t count) { return std::to_string(count); }
std::string show(const std::string& text) { return text; }

std::string show_gpus(const std::vector<int>& indices) {
  std::vector<std::string> parts;
  for (int index : indices) {
    parts.push_back(std::to_string(index));
  }
  return "[" + join(parts, ",") + "]";
}

// Show a value; when it displays like `other` but differs (same version, other wheel), add what differs.
template <typename T>
std::string show_detail(const T& value, const T& /*other*/) {
  return show(value);
}
std::string show_detail(const PackagePin& pin, const PackagePin& other) {
  if (pin.version != other.version) {
    return pin.version;
  }
  std::string detail = pin.sha256                ? "sha256:" + pin.sha256->substr(0, 12)
                       : !pin.hashes.empty()     ? "one of " + std::to_string(pin.hashes.size()) + " sha256s"
                                                 : pin.wheel.value_or("any wheel");
  return pin.version + " (" + detail + ")";
}

// A container base as shown: its name, and when the other side's packages differ, how many and the first few.
std::string show_container(const ContainerBase& value, const ContainerBase& other) {
  std::vector<std::string> changed;
  for (const auto& [name, version] : value.packages) {
    auto it = other.packages.find(name);
    if (it == other.packages.end() || it->second != version) {
      changed.push_back(name + " " + version);
    }
  }
  if (changed.empty()) {
    return value.base;
  }
  std::size_t total = changed.size();
  changed.resize(std::min<std::size_t>(total, 3));
  return value.base + " (" + join(changed, ", ") + (total > 3 ? ", +" + std::to_string(total - 3) + " more" : "") + ")";
}

// Two repo pins are the same environment when they name the same commit and package folder in it;
// paths may differ per file.
bool same(const RepoPin& a, const RepoPin& b) { return a.commit == b.commit && a.subdirectory == b.subdirectory; }

// Return the text in lower case (sha256 hex digits, as the wheel sources compare them).
std::string lower_hex(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
  return text;
}

// Return the PEP 440 normal form of a version text ("1.0+CU128" -> "1.0+cu128"; the text itself when
// it is not a version). Two spellings with one normal form always choose the same build.
std::string normal_version(const std::string& text) {
  const std::optional<Version> version = Version::parse(text);
  return version ? version->to_string() : text;
}

// Return a wheel file name with its distribution name (PEP 503) and version normalised: pip and uv
// take "PyYAML-6.0.2-cp312-…" and "pyyaml-6.0.2-cp312-…" for one file. A name that is not a wheel's
// stays as written.
std::optional<std::string> normal_wheel(const std::optional<std::string>& wheel) {
  if (!wheel) {
    return std::nullopt;
  }
  const std::optional<WheelName> name = parse_wheel_name(*wheel);
  if (!name) {
    return wheel;
  }
  return name->name + "-" + name->version.to_string() + "-" + name->build + "-" + name->python_tag + "-" +
         name->abi_tag + "-" + name->platform_tag;
}

// Two package pins are the same environment when they choose the same build: versions equal once
// normalised (local labels are case-insensitive, "1.0-1" is "1.0.post1"), sha256 in either case, one
// wheel file (its name normalised). "1.0" and "1.0.0" stay different: their wheel files are told apart
// by name. One sha256 on both sides is one build, whatever each calls the file.
bool same(const PackagePin& a, const PackagePin& b) {
  if (normal_version(a.version) != normal_version(b.version)) {
    return false;
  }
  if (a.sha256 && b.sha256 && lower_hex(*a.sha256) == lower_hex(*b.sha256)) {
    return true;
  }
  return normal_wheel(a.wheel) == normal_wheel(b.wheel) && a.sha256.has_value() == b.sha256.has_value() &&
         (!a.sha256 || lower_hex(*a.sha256) == lower_hex(*b.sha256)) && a.hashes == b.hashes;
}
template <typename T>
bool same(const T& a, const T& b) { return a == b; }

// Append the deltas of one name -> value map, in name order.
template <typename Map>
void diff_map(Dimension dimension, const Map& good, const Map& bad, std::vector<Delta>& out) {
  auto g = good.begin();
  auto b = bad.begin();
  while (g != good.end() || b != bad.end()) {
    if (b == bad.end() || (g != good.end() && g->first < b->first)) {
      out.push_back({dimension, g->first, show(g->second), std::nullopt});
      ++g;
    } else if (g == good.end() || b->first < g->first) {
      out.push_back({dimension, b->first, std::nullopt, show(b->second)});
      ++b;
    } else {
      if (!same(g->second, b->second)) {
        out.push_back({dimension, g->first, show_detail(g->second, b->second), show_detail(b->second, g->second)});
      }
      ++g;
      ++b;
    }
  }
}

template <typename Map>
void apply_map(const std::string& name, Map& target, const Map& source) {
  auto it = source.find(name);
  if (it == source.end()) {
    target.erase(name);
  } else {
    target[name] = it->second;
  }
}

// Return whether both states know `field` (one of k_unknowable_fields).
bool both_know(const EnvState& good, const EnvState& bad, const std::string& field) {
  return good.unknown.count(field) == 0 && bad.unknown.count(field) == 0;
}

// Append one map's deltas when both states know that dimension.
template <typename Map>
void diff_known_map(Dimension dimension, const EnvState& good, const EnvState& bad, const Map& good_map,
                    const Map& bad_map, std::vector<Delta>& out) {
  if (both_know(good, bad, std::string(to_string(dimension)))) {
    diff_map(dimension, good_map, bad_map, out);
  }
}

}  // namespace

std::vector<std::string> taken_from_other(const EnvState& state, const EnvState& other) {
  std::vector<std::string> out;
  for (const std::string& field : k_unknowable_fields) {
    if (state.unknown.count(field) != 0 && other.unknown.count(field) == 0) {
      out.push_back(field);
    }
  }
  return out;
}

std::vector<Delta> diff_states(const EnvState& good, const EnvState& bad) {
  std::vector<Delta> out;
  if (good.python.version != bad.python.version && both_know(good, bad, "python/version")) {
    out.push_back({Dimension::python, "version", good.python.version, bad.python.version});
  }
  if (good.python.interpreter != bad.python.interpreter && both_know(good, bad, "python/interpreter")) {
    out.push_back({Dimension::python, "interpreter", good.python.interpreter, bad.python.interpreter});
  }
  if (good.python.use_as_is != bad.python.use_as_is) {
    out.push_back({Dimension::python, "venv", good.python.use_as_is ? "none" : "fresh", bad.python.use_as_is ? "none" : "fresh"});
  }
  diff_map(Dimension::packages, good.packages, bad.packages, out);
  const std::size_t first_repo = out.size();
  diff_map(Dimension::repos, good.repos, bad.repos, out);
  for (std::size_t i = first_repo; i < out.size(); ++i) {
    // The delta's values are the resolved ids (a commit axis walks them); the refs go beside them.
    if (auto it = good.repos.find(out[i].name); it != good.repos.end()) {
      out[i].good_ref = it->second.ref;
    }
    if (auto it = bad.repos.find(out[i].name); it != bad.repos.end()) {
      out[i].bad_ref = it->second.ref;
    }
  }
  diff_known_map(Dimension::caches, good, bad, good.caches, bad.caches, out);
  diff_known_map(Dimension::threads, good, bad, good.threads, bad.threads, out);
  diff_known_map(Dimension::env, good, bad, good.env, bad.env, out);
  diff_known_map(Dimension::data, good, bad, good.data, bad.data, out);
  const bool gpus_known = both_know(good, bad, "gpus");
  if (good.gpus.target != bad.gpus.target && gpus_known) {
    out.push_back({Dimension::gpus, "target", show_gpus(good.gpus.target), show_gpus(bad.gpus.target)});
  }
  if (good.gpus.drafter != bad.gpus.drafter && gpus_known) {
    out.push_back({Dimension::gpus, "drafter", show_gpus(good.gpus.drafter), show_gpus(bad.gpus.drafter)});
  }
  if (good.container != bad.container && both_know(good, bad, "container")) {
    // A base is a whole root filesystem: its Debian packages move with it, as one delta.
    std::optional<std::string> from;
    std::optional<std::string> to;
    if (!good.container.base.empty()) {
      from = show_container(good.container, bad.container);
    }
    if (!bad.container.base.empty()) {
      to = show_container(bad.container, good.container);
    }
    out.push_back({Dimension::container, "base", from, to});
  }
  return out;
}

EnvState apply_deltas(const EnvState& good, const EnvState& bad, const std::vector<Delta>& deltas,
                      const std::vector<std::size_t>& applied) {
  EnvState out = good;
  // What good does not know is bad's in every candidate, anchors included: no delta moves it.
  for (const std::string& field : taken_from_other(good, bad)) {
    if (field == "python/version") {
      out.python.version = bad.python.version;
    } else if (field == "python/interpreter") {
      out.python.interpreter = bad.python.interpreter;
    } else if (field == "caches") {
      out.caches = bad.caches;
    } else if (field == "threads") {
      out.threads = bad.threads;
    } else if (field == "env") {
      out.env = bad.env;
    } else if (field == "data") {
      out.data = bad.data;
    } else if (field == "gpus") {
      out.gpus = bad.gpus;
    } else if (field == "container") {
      out.container = bad.container;
    }
  }
  out.unknown.clear();
  std::set_intersection(good.unknown.begin(), good.unknown.end(), bad.unknown.begin(), bad.unknown.end(),
                        std::inserter(out.unknown, out.unknown.end()));
  for (std::size_t index : applied) {
    const Delta& delta = deltas.at(index);
    switch (delta.dimension) {
      case Dimension::python:
        if (delta.name == "version") {
          out.python.version = bad.python.version;
        } else if (delta.name == "venv") {
          out.python.use_as_is = bad.python.use_as_is;
        } else {
          out.python.interpreter = bad.python.interpreter;
        }
        break;
      case Dimension::packages: apply_map(delta.name, out.packages, bad.packages); break;
      case Dimension::repos: apply_map(delta.name, out.repos, bad.repos); break;
      case Dimension::caches: apply_map(delta.name, out.caches, bad.caches); break;
      case Dimension::threads: apply_map(delta.name, out.threads, bad.threads); break;
      case Dimension::env: apply_map(delta.name, out.env, bad.env); break;
      case Dimension::data: apply_map(delta.name, out.data, bad.data); break;
      case Dimension::gpus:
        if (delta.name == "target") {
          out.gpus.target = bad.gpus.target;
        } else {
          out.gpus.drafter = bad.gpus.drafter;
        }
        break;
      case Dimension::container: out.container = bad.container; break;
    }
  }
  return out;
}

namespace {

// The value of a delta as shown to people and written to files: an env or data secret never is.
std::optional<std::string> shown_value(const Delta& delta, const std::optional<std::string>& value) {
  if (!value || (delta.dimension != Dimension::env && delta.dimension != Dimension::data)) {
    return value;
  }
  return redact_env_value(delta.name, *value);
}

}  // namespace

std::string describe(const Delta& delta) {
  // Printed on terminals: a state's escape sequences are shown, never sent.
  return escape_control(std::string(to_string(delta.dimension)) + "/" + delta.name + " " +
                        shown_value(delta, delta.good).value_or("(absent)") + " -> " +
                        shown_value(delta, delta.bad).value_or("(absent)"));
}

std::string describe_set(const std::vector<Delta>& deltas, const std::vector<std::size_t>& set) {
  std::vector<std::string> names;
  for (std::size_t index : set) {
    names.push_back(std::string(to_string(deltas[index].dimension)) + "/" + deltas[index].name);
  }
  return "{" + join(names, ", ") + "}";
}

nlohmann::json delta_to_json(const Delta& delta) {
  nlohmann::json out = {{"dimension", to_string(delta.dimension)}, {"name", delta.name}};
  // result.json, the journal and `diff --json` all come through here: env secrets stay out of them.
  const std::optional<std::string> good = shown_value(delta, delta.good);
  const std::optional<std::string> bad = shown_value(delta, delta.bad);
  out["good"] = good ? nlohmann::json(*good) : nlohmann::json(nullptr);
  out["bad"] = bad ? nlohmann::json(*bad) : nlohmann::json(nullptr);
  if (!delta.good_ref.empty()) {
    out["good_ref"] = delta.good_ref;
  }
  if (!delta.bad_ref.empty()) {
    out["bad_ref"] = delta.bad_ref;
  }
  return out;
}

}  // namespace envbisect
