#include "core/wheel_name.hpp"

#include <algorithm>
#include <set>

#include "core/state.hpp"

namespace envbisect {

namespace {

constexpr std::string_view k_wheel_suffix = ".whl";

bool is_alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Return whether every character is a letter, digit, "_" or "." (the characters of a field that
// cannot hold the "-" field separator) and the field is not empty.
bool is_field(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return is_alnum(c) || c == '_' || c == '.';
  });
}

// What is wrong with a file name as a wheel name.
enum class Problem { none, not_a_wheel, malformed, bad_version };

// Split and check a wheel file name into `out`; the version is checked last, so that a caller can
// tell a bad version (out.name and out.version_text filled) from a malformed name.
Problem parse_fields(std::string_view file_name, WheelName& out) {
  if (file_name.size() <= k_wheel_suffix.size() || !file_name.ends_with(k_wheel_suffix)) {
    return Problem::not_a_wheel;
  }
  if (file_name.find('/') != std::string_view::npos) {
    return Problem::malformed;
  }
  std::string_view stem = file_name.substr(0, file_name.size() - k_wheel_suffix.size());
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    const std::size_t dash = stem.find('-', start);
    fields.push_back(stem.substr(start, dash == std::string_view::npos ? std::string_view::npos : dash - start));
    if (dash == std::string_view::npos) {
      break;
    }
    start = dash + 1;
  }
  if (fields.size() != 5 && fields.size() != 6) {
    return Problem::malformed;
  }
  // The name may not start or end with a separator (PEP 508 names); "-" cannot occur in it here.
  const std::string_view name = fields[0];
  if (!is_field(name) || !is_alnum(name.front()) || !is_alnum(name.back())) {
    return Problem::malformed;
  }
  // The version is checked below; the field itself must at least be non-empty.
  if (fields[1].empty()) {
    return Problem::malformed;
  }
  const bool has_build = fields.size() == 6;
  if (has_build && (!is_field(fields[2]) || fields[2].front() < '0' || fields[2].front() > '9')) {
    return Problem::malformed;
  }
  const std::size_t tags = has_build ? 3 : 2;
  if (!is_field(fields[tags]) || !is_field(fields[tags + 1]) || !is_field(fields[tags + 2])) {
    return Problem::malformed;
  }
  out.name = normalize_package_name(std::string(name));
  out.version_text = std::string(fields[1]);
  out.build = has_build ? std::string(fields[2]) : std::string();
  out.python_tag = std::string(fields[tags]);
  out.abi_tag = std::string(fields[tags + 1]);
  out.platform_tag = std::string(fields[tags + 2]);
  // At this point the shape is a wheel's; only the version can still be wrong.
  std::optional<Version> version = Version::parse(out.version_text);
  if (!version) {
    return Problem::bad_version;
  }
  out.version = *version;
  return Problem::none;
}

}  // namespace

std::optional<WheelName> parse_wheel_name(std::string_view file_name) {
  WheelName wheel;
  if (parse_fields(file_name, wheel) != Problem::none) {
    return std::nullopt;
  }
  return wheel;
}

WheelVersions list_wheel_versions(std::string_view name, const std::vector<std::string>& paths) {
  const std::string wanted = normalize_package_name(std::string(name));
  WheelVersions result;
  std::set<std::string> seen;  // normalised texts: "1.0" and "1.0.0" are equal but both listed
  for (const std::string& path : paths) {
    const std::size_t slash = path.rfind('/');
    const std::string_view file_name =
        slash == std::string::npos ? std::string_view(path) : std::string_view(path).substr(slash + 1);
    WheelName wheel;
    switch (parse_fields(file_name, wheel)) {
      case Problem::not_a_wheel:
        continue;
      case Problem::malformed:
        result.invalid.push_back({path, "invalid wheel file name"});
        continue;
      case Problem::bad_version:
        if (wheel.name == wanted) {
          result.invalid.push_back({path, "invalid version '" + wheel.version_text + "'"});
        }
        continue;
      case Problem::none:
        break;
    }
    if (wheel.name == wanted && seen.insert(wheel.version.to_string()).second) {
      result.versions.push_back(wheel.version);
    }
  }
  // Equal versions ("1.0", "1.0.0") keep a stable order by their text.
  std::sort(result.versions.begin(), result.versions.end(), [](const Version& a, const Version& b) {
    if (const auto order = a <=> b; order != 0) {
      return order < 0;
    }
    return a.to_string() < b.to_string();
  });
  return result;
}

}  // namespace envbisect
