#pragma once

#include <string>

namespace envbisect {

// Return the count and the noun, plural unless the count is 1: counted(1, "repo") is "1 repo",
// counted(3, "repo") "3 repos"; `plural` for nouns that do not take an "s".
inline std::string counted(long long count, const std::string& noun, const std::string& plural = "") {
  return std::to_string(count) + " " + (count == 1 ? noun : plural.empty() ? noun + "s" : plural);
}

// Return an error message followed by its fix on a line of its own, as the CLI prints it under the
// error ("hint: add --python 3.12", as uv writes hints); the message alone when no fix is known.
inline std::string with_hint(const std::string& message, const std::string& hint) {
  return hint.empty() ? message : message + "\nhint: " + hint;
}

}  // namespace envbisect
