#pragma once

#include <optional>
#include <set>
#include <string>

namespace envbisect {

// What an input says about the requirements of the packages installed beside an installer package.
enum class NeedsKnown { yes, no };

// Return why the installer's own package `name` (PEP 503: pip, setuptools, wheel, distribute) is left
// out of a state, or nullopt when it stays (every other package stays). It is left out when the input
// states what every installed package requires (`needs` yes: a capture reads each Requires-Dist) and
// `needed` (the names they require) lacks it; where the input does not say (a `pip freeze`), it stays.
std::optional<std::string> installer_package_left_out(const std::string& name, NeedsKnown needs,
                                                      const std::set<std::string>& needed);

// Return the note for an installer package kept because the input does not say what needs it
// (`source` names the input), or nullopt when `name` is no installer package.
std::optional<std::string> installer_package_kept_note(const std::string& name, const std::string& source);

}  // namespace envbisect
