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

// Return the relative paths whose identity line differs between `recorded` and `now` (both from
// file_identity): changed, added or removed, at most `max` of them, sorted; empty when equal.
std::vector<std::string> identity_changes(const std::string& recorded, const std::string& now, std::size_t max = 20);

}  // namespace envbisect
