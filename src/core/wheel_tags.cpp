#include "core/wheel_tags.hpp"

#include <algorithm>
#include <vector>

namespace envbisect {

namespace {

std::vector<std::string> split_dots(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = text.find('.', start);
    parts.push_back(text.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) {
      return parts;
    }
    start = dot + 1;
  }
}

struct Target {
  int major = 3;
  int minor = 11;
  std::string machine = "x86_64";
  int glibc_major = 2;
  int glibc_minor = 36;
};

Target target_of(const MarkerEnvironment& environment) {
  Target target;
  auto version = environment.variables.find("python_version");
  if (version != environment.variables.end()) {
    std::size_t dot = version->second.find('.');
    target.major = std::stoi(version->second.substr(0, dot));
    target.minor = dot == std::string::npos ? 0 : std::stoi(version->second.substr(dot + 1));
  }
  auto machine = environment.variables.find("platform_machine");
  if (machine != environment.variables.end()) {
    target.machine = machine->second;
  }
  target.glibc_major = environment.glibc_major;
  target.glibc_minor = environment.glibc_minor;
  return target;
}

// Parse "cp312" / "py3" / "py312" into (implementation, major, minor); minor -1 when not given.
bool parse_python_tag(const std::string& tag, std::string& impl, int& major, int& minor) {
  if (tag.size() < 3) {
    return false;
  }
  impl = tag.substr(0, 2);
  std::string digits = tag.substr(2);
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  major = digits[0] - '0';
  minor = digits.size() > 1 ? std::stoi(digits.substr(1)) : -1;
  return true;
}

long python_score(const std::string& tag, const Target& target) {
  std::string impl;
  int major = 0;
  int minor = 0;
  if (!parse_python_tag(tag, impl, major, minor) || major != target.major) {
    return -1;
  }
  if (impl == "cp") {
    if (minor == target.minor) {
      return 3;
    }
    return -1;
  }
  if (impl == "py") {
    if (minor == -1) {
      return 1;
    }
    return minor <= target.minor ? 2 : -1;
  }
  return -1;
}

long abi_score(const std::string& abi, const std::string& python_tag, const Target& target) {
  if (abi == "none") {
    return 1;
  }
  if (abi == "abi3") {
    std::string impl;
    int major = 0;
    int minor = 0;
    // abi3 wheels name the oldest CPython they support: cp38-abi3 runs on 3.8 and later.
    return parse_python_tag(python_tag, impl, major, minor) && impl == "cp" && major == target.major &&
                   minor <= target.minor
               ? 2
               : -1;
  }
  std::string expected = "cp" + std::to_string(target.major) + std::to_string(target.minor);
  if (abi == expected || abi == expected + "m") {
    return 3;
  }
  return -1;
}

// Return the glibc a manylinux tag needs, or false when `platform` is no manylinux tag for `machine`.
bool manylinux_glibc(const std::string& platform, const std::string& machine, int& major, int& minor) {
  const std::string suffix = "_" + machine;
  if (platform.size() <= suffix.size() || platform.compare(platform.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return false;
  }
  const std::string head = platform.substr(0, platform.size() - suffix.size());
  if (head == "manylinux1") {
    major = 2, minor = 5;
    return true;
  }
  if (head == "manylinux2010") {
    major = 2, minor = 12;
    return true;
  }
  if (head == "manylinux2014") {
    major = 2, minor = 17;
    return true;
  }
  const std::string prefix = "manylinux_";
  if (head.rfind(prefix, 0) != 0) {
    return false;
  }
  std::string rest = head.substr(prefix.size());
  std::size_t underscore = rest.find('_');
  if (underscore == std::string::npos) {
    return false;
  }
  try {
    major = std::stoi(rest.substr(0, underscore));
    minor = std::stoi(rest.substr(underscore + 1));
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

long platform_score(const std::string& platform, const Target& target) {
  if (platform == "any") {
    return 1;
  }
  if (platform == "linux_" + target.machine) {
    return 2;
  }
  int major = 0;
  int minor = 0;
  if (manylinux_glibc(platform, target.machine, major, minor)) {
    if (major < target.glibc_major || (major == target.glibc_major && minor <= target.glibc_minor)) {
      return 1000 + major * 100 + minor;  // newer glibc builds first, as pip orders them
    }
  }
  return -1;
}

}  // namespace

long wheel_tag_score(const WheelName& wheel, const MarkerEnvironment& environment) {
  const Target target = target_of(environment);
  long best = -1;
  for (const std::string& python : split_dots(wheel.python_tag)) {
    for (const std::string& abi : split_dots(wheel.abi_tag)) {
      long ab = abi_score(abi, python, target);
      // abi3's python tag names the oldest CPython it runs on (cp38-abi3 runs on 3.12): abi_score checked it.
      long py = abi == "abi3" && ab >= 0 ? 2 : python_score(python, target);
      if (ab < 0 || py < 0) {
        continue;
      }
      for (const std::string& platform : split_dots(wheel.platform_tag)) {
        long pl = platform_score(platform, target);
        if (pl >= 0) {
          best = std::max(best, pl * 100 + ab * 10 + py);
        }
      }
    }
  }
  return best;
}

std::string wheel_misfit_reason(const WheelName& wheel, const MarkerEnvironment& environment) {
  if (wheel_tag_score(wheel, environment) >= 0) {
    return "";
  }
  const Target target = target_of(environment);
  const std::string interpreter = std::to_string(target.major) + "." + std::to_string(target.minor);
  bool python_fits = false;
  for (const std::string& python : split_dots(wheel.python_tag)) {
    python_fits = python_fits || python_score(python, target) >= 0;
    for (const std::string& abi : split_dots(wheel.abi_tag)) {
      python_fits = python_fits || (abi == "abi3" && abi_score(abi, python, target) >= 0);
    }
  }
  if (!python_fits) {
    return "built for " + wheel.python_tag + ", the interpreter is CPython " + interpreter;
  }
  bool platform_fits = false;
  for (const std::string& platform : split_dots(wheel.platform_tag)) {
    platform_fits = platform_fits || platform_score(platform, target) >= 0;
  }
  if (!platform_fits) {
    return "built for platform " + wheel.platform_tag + ", the target is Linux " + target.machine + " with glibc " +
           std::to_string(target.glibc_major) + "." + std::to_string(target.glibc_minor);
  }
  return "ABI " + wheel.abi_tag + " does not fit CPython " + interpreter;
}

}  // namespace envbisect
