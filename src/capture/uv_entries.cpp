#include "capture/uv_entries.hpp"

#include <optional>
#include <set>
#include <utility>

#include "core/state.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace envbisect::lock_parts {

std::string source_text(const toml::table* source) {
  if (source == nullptr) {
    return "";
  }
  std::string text;
  for (const auto& [key, value] : *source) {
    text += std::string(key.str()) + "=" + value.value_or(std::string()) + ";";
  }
  return text;
}

std::vector<std::string> string_array(const toml::array* array) {
  std::vector<std::string> values;
  if (array != nullptr) {
    for (const toml::node& node : *array) {
      if (std::optional<std::string> value = node.value<std::string>()) {
        values.push_back(*value);
      }
    }
  }
  return values;
}

// Return the lock's [[package]] entries, each with its normalised name, version, source and place.
std::vector<UvEntry> uv_entries(const toml::table& lock, const std::string& label) {
  const toml::array* packages = lock["package"].as_array();
  if (packages == nullptr) {
    fail(label, "/package", "no [[package]] entries (is this a uv.lock?)");
  }
  std::vector<UvEntry> entries;
  entries.reserve(packages->size());
  for (std::size_t i = 0; i < packages->size(); ++i) {
    const std::string where = "/package/" + std::to_string(i);
    const toml::table* table = (*packages)[i].as_table();
    if (table == nullptr) {
      fail(label, where, "expected a table");
    }
    UvEntry entry{table, normalize_package_name(get_string((*table)["name"])), get_string((*table)["version"]), where, "", ""};
    if (entry.name.empty()) {
      fail(label, where + "/name", "missing");
    }
    if (const toml::table* source = (*table)["source"].as_table()) {
      for (const char* kind : {"registry", "url", "git", "editable", "virtual", "directory", "path"}) {
        if (source->contains(kind)) {
          entry.source_kind = kind;
          entry.source_value = get_string((*source)[kind]);
          break;
        }
      }
    }
    entries.push_back(entry);
  }
  return entries;
}

bool is_local(const UvEntry& entry) {
  return entry.source_kind == "editable" || entry.source_kind == "virtual" || entry.source_kind == "directory" ||
         (entry.source_kind == "path" && file_name_of(entry.source_value).find(".whl") == std::string::npos &&
          file_name_of(entry.source_value).find(".tar") == std::string::npos &&
          file_name_of(entry.source_value).find(".zip") == std::string::npos);
}

std::vector<std::string> default_groups(const LockOptions& options, const std::string& folder,
                                        const std::vector<std::string>& all, const std::string& label,
                                        std::vector<std::string>& notes) {
  const std::string path = folder == "." || folder.empty() ? "pyproject.toml" : folder + "/pyproject.toml";
  std::optional<std::string> text = options.read_beside ? options.read_beside(path) : std::nullopt;
  if (!text) {
    notes.push_back("no " + path + " beside the lock: its default-groups taken as uv's default, [\"dev\"]");
    return {"dev"};
  }
  toml::table pyproject;
  try {
    pyproject = toml::parse(*text, path);
  } catch (const toml::parse_error& error) {
    fail(label + " (" + path + ")", "line " + std::to_string(error.source().begin.line), "malformed TOML: " +
                                                                                          std::string(error.description()));
  }
  toml::node_view<const toml::node> field = std::as_const(pyproject)["tool"]["uv"]["default-groups"];
  if (!field) {
    return {"dev"};
  }
  if (field.value<std::string>() == std::optional<std::string>("all")) {
    return all;
  }
  if (!field.is_array()) {
    fail(label + " (" + path + ")", "/tool/uv/default-groups", "expected a list of group names or \"all\"");
  }
  std::vector<std::string> groups;
  for (const std::string& group : string_array(field.as_array())) {
    groups.push_back(normalize_package_name(group));
  }
  return groups;
}

// Split a uv git source ("https://github.com/o/r?rev=main#0123abcd…", "…?subdirectory=pkg#…") into a repo.
LockedRepo git_repo(const UvEntry& entry, const std::string& label) {
  LockedRepo repo;
  repo.name = entry.name;
  repo.kind = "git";
  const std::string& source = entry.source_value;
  std::size_t hash = source.rfind('#');
  std::size_t query = source.find('?');
  if (hash == std::string::npos) {
    fail(label, entry.where + "/source/git", entry.name + ": '" + source + "' names no commit (uv writes URL#COMMIT)");
  }
  repo.commit = source.substr(hash + 1);
  repo.url = source.substr(0, std::min(query, hash));
  if (query != std::string::npos && query < hash) {
    const std::string params = source.substr(query + 1, hash - query - 1);
    std::size_t at = params.find("subdirectory=");
    if (at != std::string::npos && (at == 0 || params[at - 1] == '&')) {
      repo.subdirectory = percent_decode(params.substr(at + 13, params.find('&', at) - (at + 13)));
    }
  }
  return repo;
}

// Return every sha256 the lock lists for `entry` (wheels, sdist), sorted and unique.
std::vector<std::string> entry_hashes(const UvEntry& entry, const std::string& label) {
  std::set<std::string> hashes;
  if (const toml::array* wheels = (*entry.table)["wheels"].as_array()) {
    for (std::size_t k = 0; k < wheels->size(); ++k) {
      if (const toml::table* wheel = (*wheels)[k].as_table()) {
        std::string hex = sha256_of(get_string((*wheel)["hash"]), label, entry.where + "/wheels/" + std::to_string(k) + "/hash");
        if (!hex.empty()) {
          hashes.insert(hex);
        }
      }
    }
  }
  if (const toml::table* sdist = (*entry.table)["sdist"].as_table()) {
    std::string hex = sha256_of(get_string((*sdist)["hash"]), label, entry.where + "/sdist/hash");
    if (!hex.empty()) {
      hashes.insert(hex);
    }
  }
  return {hashes.begin(), hashes.end()};
}

// Return the wheels `entry` offers: each one's file name (from its url, path or filename) and sha256.
std::vector<OfferedWheel> uv_wheels(const UvEntry& entry, const std::string& label) {
  std::vector<OfferedWheel> wheels;
  if (const toml::array* offered = (*entry.table)["wheels"].as_array()) {
    for (std::size_t k = 0; k < offered->size(); ++k) {
      const toml::table* wheel = (*offered)[k].as_table();
      const std::string at = entry.where + "/wheels/" + std::to_string(k);
      if (wheel == nullptr) {
        fail(label, at, "expected a table");
      }
      std::string url = get_string((*wheel)["url"]);
      if (url.empty()) {
        url = get_string((*wheel)["path"]);
      }
      if (url.empty()) {
        url = get_string((*wheel)["filename"]);
      }
      wheels.push_back({file_name_of(url), sha256_of(get_string((*wheel)["hash"]), label, at + "/hash")});
    }
  }
  return wheels;
}

}  // namespace envbisect::lock_parts
