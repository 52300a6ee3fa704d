#include "capture/lock_parts.hpp"

#include <algorithm>
#include <optional>

#include "core/version.hpp"
#include "core/wheel_name.hpp"
#include "core/wheel_tags.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace envbisect::lock_parts {

void fail(const std::string& label, const std::string& where, const std::string& what) {
  throw Error(label + ": " + where + ": " + what, ExitCode::bad_input);
}

bool marker_holds(const std::string& marker, const MarkerEnvironment& target, const std::string& label,
                  const std::string& where) {
  try {
    return evaluate_marker(marker, target);
  } catch (const Error& error) {
    fail(label, where, error.what());
  }
}

std::string file_name_of(const std::string& url) {
  std::string path = url.substr(0, url.find_first_of("?#"));
  std::size_t slash = path.find_last_of('/');
  return percent_decode(slash == std::string::npos ? path : path.substr(slash + 1));
}

namespace {

bool is_hex64(const std::string& text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// Return a Python version ("3.12") for which one of `wheels` fits on the target's machine, "" if none.
std::string python_some_wheel_fits(const std::vector<OfferedWheel>& wheels, const MarkerEnvironment& target) {
  for (int minor = 8; minor <= 14; ++minor) {
    const std::string python = "3." + std::to_string(minor);
    MarkerEnvironment other = linux_marker_environment(python, target.variables.at("platform_machine"));
    other.glibc_major = target.glibc_major;
    other.glibc_minor = target.glibc_minor;
    for (const OfferedWheel& wheel : wheels) {
      std::optional<WheelName> name = parse_wheel_name(wheel.file);
      if (name && wheel_tag_score(*name, other) >= 0) {
        return python;
      }
    }
  }
  return "";
}

}  // namespace

std::string sha256_of(const std::string& hash, const std::string& label, const std::string& where) {
  const std::string prefix = "sha256:";
  if (hash.rfind(prefix, 0) != 0) {
    return "";
  }
  const std::string hex = ascii_lower(hash.substr(prefix.size()));
  if (!is_hex64(hex)) {
    fail(label, where, "expected sha256:<64 hex digits>, got '" + hash + "'");
  }
  return hex;
}

void check_version(const std::string& version, const std::string& label, const std::string& where) {
  if (!Version::parse(version)) {
    fail(label, where, "'" + version + "' is not a PEP 440 version");
  }
}

std::string get_string(const toml::node_view<const toml::node>& node) {
  std::optional<std::string> value = node.value<std::string>();
  return value ? *value : std::string();
}

Sdist sdist_in(const toml::table& package) { return package.contains("sdist") ? Sdist::offered : Sdist::none; }

void choose_wheel(LockedPackage& package, const std::vector<OfferedWheel>& wheels, Sdist sdist,
                  const MarkerEnvironment& target, const std::string& label, const std::string& where,
                  std::vector<std::string>& notes) {
  long best = -1;
  std::string why;
  for (const OfferedWheel& wheel : wheels) {
    std::optional<WheelName> name = parse_wheel_name(wheel.file);
    if (!name) {
      fail(label, where, "'" + wheel.file + "' is not a wheel file name");
    }
    long score = wheel_tag_score(*name, target);
    if (score > best) {
      best = score;
      package.wheel = wheel.file;
      package.sha256 = wheel.sha256;
    } else if (score < 0) {
      why += "\n  " + wheel.file + ": " + wheel_misfit_reason(*name, target);
    }
  }
  if (best >= 0 && wheels.size() > 1) {
    notes.push_back(package.name + " " + package.version + ": chose " + package.wheel + " of " +
                    std::to_string(wheels.size()) + " wheels");
  }
  if (wheels.empty() && sdist == Sdist::offered) {
    notes.push_back(package.name + " " + package.version + ": sdist only (no wheel in the lock): pinned by version, built at install");
    return;
  }
  if (best < 0 && !wheels.empty()) {
    if (sdist == Sdist::offered) {
      notes.push_back(package.name + " " + package.version + ": no wheel fits the target, only the sdist (pinned by version, built at install)");
      return;
    }
    const std::string fits = python_some_wheel_fits(wheels, target);
    fail(label, where, "no wheel of " + package.name + " " + package.version + " fits CPython " +
                           target.variables.at("python_version") + " on Linux " +
                           target.variables.at("platform_machine") + ":" + why +
                           (fits.empty() ? "" : "\nhint: --python " + fits));
  }
}

}  // namespace envbisect::lock_parts
