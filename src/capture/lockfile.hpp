#pragma once

#include <string>
#include <vector>

#include "core/marker.hpp"

namespace envbisect {

// The formats a state can be made from (docs/INPUTS.md).
enum class LockFormat { uv_lock, pylock, requirements };

// One exact build a lock names for the target interpreter.
struct LockedPackage {
  std::string name;     // PEP 503 normalised
  std::string version;  // as the lock writes it, local label included ("2.11.0+cu128")
  std::string wheel;    // the wheel file chosen for the target, "" when the lock names none
  std::string sha256;   // that wheel's sha256 (hex), "" when the lock gives none
};

// What a lock says for one target: its packages, sorted by name, and what was chosen or left out.
struct LockRead {
  std::vector<LockedPackage> packages;
  std::vector<std::string> notes;  // one line each: markers that left a package out, wheels chosen, ...
};

// Return the format of the lock file called `file_name`: uv.lock, pylock.toml / pylock.NAME.toml, or
// requirements (requirements.txt, constraints, `pip freeze` / `uv pip freeze` output: anything else).
LockFormat lock_format_of(const std::string& file_name);

// Read the exact builds `text` (a lock of `format`) names for `target`: markers are evaluated, the
// wheel that fits the interpreter and platform is chosen with its hash. `label` names the input in
// messages ("uv.lock at v1.4"). Throw Error (exit 2) naming the label and the place for malformed
// input, an entry without an exact version, or a package none of whose wheels fits the target.
LockRead read_lock(LockFormat format, const std::string& text, const std::string& label, const MarkerEnvironment& target);

}  // namespace envbisect
