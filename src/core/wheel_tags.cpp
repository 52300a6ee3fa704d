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
  bool any_python = true;  // no python_version: every python and ABI tag is accepted
  int major = 3;
  int minor = 11;
  std::string machine = "x86_64";
  int glibc_major = 2;
  int glibc_minor = 36;
};

Target target_of(const MarkerEnvironment& environment) {
  Target target;
  auto version = environment.variables.find("python_version");
  if (version != environment.variables.end() && !version->second.empty()) {
    std::size_t dot = version->second.find('.');
    target.any_python = false;
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

std::string interpreter_of(const Target& target) {
  return "CPython " + std::to_string(target.major) + "." + std::to_string(target.minor);
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

// Return the ABI tag of the interpreter's own extension modules: a standard (not debug, not
// free-threaded) CPython build, whose "m" (pymalloc) flag was dropped in 3.8.
std::string native_abi(const Target& target) {
  return "cp" + std::to_string(target.major) + std::to_string(target.minor) +
         (target.major == 3 && target.minor < 8 ? "m" : "");
}

// Return where (python, abi) stands in pip's and uv's list of supported tags for the target, higher
// first, or -1 when neither lists it. Both list, for CPython X.Y (packaging.tags.sys_tags, uv's
// Tags::from_env), with P running over the platforms, newest manylinux first and linux_<machine> last:
//   cpXY-cpXY-P, cpXY-abi3-P, cpXY-none-P, cpX(Y-1)-abi3-P ... cpX2-abi3-P,
//   pyXY-none-P, pyX-none-P, pyX(Y-1)-none-P ... pyX0-none-P,
//   cpXY-none-any, pyXY-none-any, pyX-none-any, pyX(Y-1)-none-any ... pyX0-none-any.
// So the interpreter and ABI rank first and the platform only among equals; abi3 and cpXY ABIs
// never come with `any`.
long interpreter_rank(const std::string& python, const std::string& abi, bool any_platform, const Target& target) {
  std::string impl;
  int major = 0;
  int minor = 0;
  if (!parse_python_tag(python, impl, major, minor) || major != target.major || minor > target.minor) {
    return -1;
  }
  const long y = target.minor;
  const long base = any_platform ? 1000 : 2000;
  if (impl == "cp") {
    if (minor == target.minor && abi == "none") {
      return base + (any_platform ? 2 * y + 1 : 1000 + 2 * y - 1);
    }
    if (any_platform || minor < 0) {
      return -1;
    }
    if (minor == target.minor && abi == native_abi(target)) {
      return 4000;
    }
    // abi3 wheels name the oldest CPython they run on: cp38-abi3 runs on 3.8 and later.
    if (abi == "abi3" && target.major == 3 && minor >= 2) {
      return 3000 + 2 * minor;
    }
    return -1;
  }
  if (impl == "py" && abi == "none") {
    return base + (minor < 0 ? 2 * y - 1 : 2 * minor);
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

// Return how a platform tag ranks on the target: 0 for `any`, 1 for linux_<machine>, above that the
// manylinux tags by the glibc they need (newest first, as pip and uv order them); -1 when it cannot run
// there: another OS or machine, musllinux on a glibc system, or a manylinux tag needing a newer glibc
// than the target's or an older one than pip and uv list (2.5 on x86_64 and i686, 2.17 elsewhere).
long platform_rank(const std::string& platform, const Target& target) {
  if (platform == "any") {
    return 0;
  }
  if (platform == "linux_" + target.machine) {
    return 1;
  }
  int major = 0;
  int minor = 0;
  if (!manylinux_glibc(platform, target.machine, major, minor)) {
    return -1;
  }
  const bool old_arch = target.machine == "x86_64" || target.machine == "i686";
  const bool too_new = major > target.glibc_major || (major == target.glibc_major && minor > target.glibc_minor);
  const bool too_old = major < 2 || (major == 2 && minor < (old_arch ? 5 : 17));
  if (too_new || too_old) {
    return -1;
  }
  return 2 + major * 1000L + minor;
}

constexpr long k_platform_span = 1'000'000;  // above every platform_rank

}  // namespace

long wheel_tag_score(const WheelName& wheel, const MarkerEnvironment& environment) {
  const Target target = target_of(environment);
  long best = -1;
  for (const std::string& platform : split_dots(wheel.platform_tag)) {
    const long pl = platform_rank(platform, target);
    if (pl < 0) {
      continue;
    }
    if (target.any_python) {
      best = std::max(best, pl);
      continue;
    }
    for (const std::string& python : split_dots(wheel.python_tag)) {
      for (const std::string& abi : split_dots(wheel.abi_tag)) {
        const long rank = interpreter_rank(python, abi, platform == "any", target);
        if (rank >= 0) {
          best = std::max(best, rank * k_platform_span + pl);
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
  // Which part is wrong is told in the order a reader checks it: interpreter, platform, ABI.
  const std::vector<std::string> abis = split_dots(wheel.abi_tag);
  const bool has_abi3 = std::find(abis.begin(), abis.end(), "abi3") != abis.end();
  bool python_fits = false;
  for (const std::string& python : split_dots(wheel.python_tag)) {
    python_fits = python_fits || interpreter_rank(python, "none", false, target) >= 0 ||
                  (has_abi3 && interpreter_rank(python, "abi3", false, target) >= 0);
  }
  const bool abi_fits = std::any_of(abis.begin(), abis.end(), [&](const std::string& abi) {
    return abi == "none" || abi == "abi3" || abi == native_abi(target);
  });
  if (!target.any_python && !python_fits) {
    return "built for " + wheel.python_tag + ", the interpreter is " + interpreter_of(target);
  }
  bool platform_fits = false;
  std::string needs;
  for (const std::string& platform : split_dots(wheel.platform_tag)) {
    platform_fits = platform_fits || platform_rank(platform, target) >= 0;
    int major = 0;
    int minor = 0;
    if (platform.rfind("musllinux_", 0) == 0) {
      needs = " (musl libc, not glibc)";
    } else if (manylinux_glibc(platform, target.machine, major, minor) && needs.empty()) {
      needs = " (needs glibc " + std::to_string(major) + "." + std::to_string(minor) + ")";
    }
  }
  if (!platform_fits) {
    return "built for platform " + wheel.platform_tag + needs + ", the target is Linux " + target.machine +
           " with glibc " + std::to_string(target.glibc_major) + "." + std::to_string(target.glibc_minor);
  }
  if (!abi_fits) {
    // A debug ("d") or free-threaded ("t") build has its own ABI; a standard build cannot load it.
    std::string kind;
    for (const std::string& abi : abis) {
      if (abi.size() > 2 && abi.rfind("cp", 0) == 0 && abi != native_abi(target)) {
        const std::size_t digits_end = abi.find_first_not_of("0123456789", 2);
        const std::string flags = digits_end == std::string::npos ? "" : abi.substr(digits_end);
        kind = flags.find('t') != std::string::npos   ? " (a free-threaded CPython's ABI)"
               : flags.find('d') != std::string::npos ? " (a debug CPython's ABI)"
                                                      : kind;
      }
    }
    return "ABI " + wheel.abi_tag + kind + " does not fit a standard " + interpreter_of(target) + " (its ABI is " +
           native_abi(target) + ")";
  }
  return "pip and uv install no wheel tagged " + wheel.python_tag + "-" + wheel.abi_tag + "-" + wheel.platform_tag +
         " on " + interpreter_of(target) +
         (wheel.platform_tag == "any" ? " (only ABI none comes with platform any)" : std::string());
}

}  // namespace envbisect
