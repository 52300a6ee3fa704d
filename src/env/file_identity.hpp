#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace envbisect {

// Whether __pycache__ folders count: in an environment Python writes them (skip); in a store entry
// they are the bytecode compiled at unpack time, as fixed as the sources (include).
enum class Pycache { skip, include };

// Return one line per folder, file and link below `dir`, sorted by relative path: its kind and, for
// files and links, inode, size, mtime (ns) and mode. Not ctime: a file shared by hard links gets a
// new ctime whenever another environment links it or gc unlinks it. __pycache__ folders (unless
// `pycache` includes them) and the top-level names in `skip` are left out. A stat walk: it costs
// about what `find DIR -printf` costs. Throw Error (environment) when `dir` cannot be read.
std::string file_identity(const std::string& dir, const std::set<std::string>& skip = {},
                          Pycache pycache = Pycache::skip);

// Whether bytecode Python adds to an environment counts as a change. Python writes a .pyc only where
// none is valid (a module the store compiled none for, another optimisation level): new files below a
// __pycache__ folder are its own. A .pyc already there, compiled at unpack time and hard-linked from
// the store, is never rewritten by Python (unchecked-hash), so a change to one or its removal is a
// change like any other: a benchmark writing into it would change every environment linking it.
enum class NewBytecode { counts, allowed };

// Return the relative paths whose identity line differs between `recorded` and `now` (both from
// file_identity): changed, added or removed, at most `max` of them, sorted; empty when equal.
// `new_bytecode`: whether paths added below a __pycache__ folder count.
std::vector<std::string> identity_changes(const std::string& recorded, const std::string& now, std::size_t max = 20,
                                          NewBytecode new_bytecode = NewBytecode::counts);

}  // namespace envbisect
