#pragma once

#include <cstddef>
#include <string>

namespace envbisect {

// Return the whole content of the file at `path`. Throw Error naming the path when it cannot be read.
std::string read_file(const std::string& path);

// Return the whole content of the file at `path`, or "" when it cannot be read (a log a process may not
// have written).
std::string read_file_or_empty(const std::string& path);

// Return at most the last `max_bytes` of the regular file at `path`, read from its end (a log of any
// size costs `max_bytes` of memory), or "" when it cannot be read or is not a regular file.
std::string read_file_tail(const std::string& path, std::size_t max_bytes);

// Write `content` to `path` atomically (temp file in the same folder, fsync, rename).
void write_file_atomic(const std::string& path, const std::string& content);

// Create `path` and its parents when missing. Throw Error naming the path on failure.
void make_dirs(const std::string& path);

// Return `path` made absolute (lexically normalised), relative paths taken against `base`.
std::string absolute_path(const std::string& path, const std::string& base);

// Return `path` lexically normalised ("a/./b/../c" -> "a/c"), without a trailing slash (but "/").
// Pure: the file system is not consulted.
std::string clean_path(const std::string& path);

// Return the folder containing `path` ("." when it has none), made absolute.
std::string parent_dir(const std::string& path);

// Copy the tree at `from` to `to` (which must not exist), hard-linking files when `link` is yes and
// the filesystem allows it, copying otherwise. Throw Error naming the paths on failure.
enum class LinkFiles { yes, no };
void copy_tree(const std::string& from, const std::string& to, LinkFiles link);

// Remove `path` recursively if it exists; never throw.
void remove_tree(const std::string& path) noexcept;

// Return true when `path` exists.
bool path_exists(const std::string& path);

}  // namespace envbisect
