#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/state.hpp"  // normalize_package_name
#include "core/version.hpp"

namespace envbisect {

// One version clause of a requirement ("==2.11.0", ">=1.0", "~=4.2", "!=3.*").
struct Specifier {
  std::string op;       // "==", "!=", ">=", "<=", ">", "<", "~=", "==="
  std::string version;  // as written, possibly ending in ".*" for == and !=
};

// A Requires-Dist line: name, version clauses (all must hold) and the raw environment marker.
struct Requirement {
  std::string name;                    // PEP 503 normalised
  std::vector<Specifier> specifiers;
  std::string marker;                  // text after ';', trimmed; "" when none
  std::string text;                    // the line as written
};

// The fields of a METADATA file that environments need.
struct DistMetadata {
  std::string name;                     // PEP 503 normalised
  std::string version;                  // as written
  std::vector<Requirement> requires_dist;
};

// Parse a Requires-Dist value ("a[x] (>=1,<2) ; python_version >= '3.8'"). Return nullopt when
// the name or a clause cannot be read.
std::optional<Requirement> parse_requirement(std::string_view text);

// Parse a METADATA (or PKG-INFO) text: its Name, Version and Requires-Dist headers; unreadable
// Requires-Dist lines are kept out and named in `unreadable` when given.
DistMetadata parse_metadata(std::string_view text, std::vector<std::string>* unreadable = nullptr);

// Return whether `version` satisfies every clause of `requirement` (PEP 440: `==` without a local
// label matches any local label, `==X.*` prefixes, `~=`, ordered comparisons on public versions).
// A clause whose version cannot be parsed counts as not satisfied.
bool satisfies(const Version& version, const Requirement& requirement);

}  // namespace envbisect
