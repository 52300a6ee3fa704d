#include "core/installer_packages.hpp"

namespace envbisect {

namespace {

// The installer's tooling: `pip freeze` leaves these out, and `run` builds venvs with its own installer.
bool is_installer_package(const std::string& name) {
  return name == "pip" || name == "setuptools" || name == "wheel" || name == "distribute";
}

}  // namespace

std::optional<std::string> installer_package_left_out(const std::string& name, NeedsKnown needs,
                                                      const std::set<std::string>& needed) {
  if (!is_installer_package(name) || needs == NeedsKnown::no || needed.count(name) != 0) {
    return std::nullopt;
  }
  return "the installer's own package, nothing installed needs it";
}

std::optional<std::string> installer_package_kept_note(const std::string& name, const std::string& source) {
  if (!is_installer_package(name)) {
    return std::nullopt;
  }
  return name + ": the installer's own package, kept: " + source +
         " does not say whether something installed needs it (a capture of the venv would say)";
}

}  // namespace envbisect
