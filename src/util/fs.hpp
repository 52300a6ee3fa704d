#pragma once

#include <cstddef>
#include <cstdint>
#include <sys/types.h>
#include <string>
#include <vector>

namespace envbisect {

// Return the whole content of the file at `path`. Throw Error naming the path when it cannot be read.
std::string read_file(const std::string& path);

// The largest input file (state, recipe, lock file, matrix spec) envbisect reads: far past any real
// one, far below memory.
inline constexpr std::uint64_t k_max_input_bytes = 64ULL << 20;

// Return the content of the input file at `path`. Throw Error (bad_input) naming the path when it is
// missing, not a regular file (a directory, fifo, device such as /dev/zero, socket) or larger than
// `max_bytes`; a fifo is refused without being opened for reading.
std::string read_input_file(const std::string& path, std::uint64_t max_bytes = k_max_input_bytes);

// Return the whole content of the file at `path`, or "" when it cannot be read (a log a process may not
// have written).
std::string read_file_or_empty(const std::string& path);

// Return at most the last `max_bytes` of the regular file at `path`, read from its end (a log of any
// size costs `max_bytes` of memory), or "" when it cannot be read or is not a regular file.
std::string read_file_tail(const std::string& path, std::size_t max_bytes);

// Whether write_file_atomic flushes the new file's data to disk (fsync) before renaming it into place:
// no for files that are cheap to make again and written by the thousand (a venv's scripts and RECORDs).
enum class Flush { yes, no };

// Write `content` to `path` atomically: a new file beside it (a name of its own per process and call,
// opened without following links) with permission bits `mode` (made exact past the umask when an
// execute bit is set), flushed unless `flush` says no, then renamed over `path`, so what stood at
// `path` (a symlink, a hard link into the store) is replaced, never written through. Throw Error
// naming the path, bad_input when a folder stands at `path`, environment for any other failure;
// nothing is left behind.
void write_file_atomic(const std::string& path, const std::string& content, mode_t mode = 0644,
                       Flush flush = Flush::yes);

// Create `path` and its parents when missing. Throw Error naming the path on failure.
void make_dirs(const std::string& path);

// Return `path` made absolute (lexically normalised), relative paths taken against `base`.
std::string absolute_path(const std::string& path, const std::string& base);

// Return `path` lexically normalised ("a/./b/../c" -> "a/c"), without a trailing slash (but "/").
// Pure: the file system is not consulted.
std::string clean_path(const std::string& path);

// Return the folder containing `path` ("." when it has none), made absolute.
std::string parent_dir(const std::string& path);

// Whether copy_tree hard-links regular files, clones them (a reflink: shared extents, copy on write),
// or copies them; the first two where the file system allows.
enum class LinkFiles { yes, clone, no };

// Recreate the tree at `from` under `to` (created with its parents; may exist): directories made
// fresh, symlinks copied as links, regular files hard-linked (LinkFiles::yes) or cloned
// (LinkFiles::clone) -- each copied from the first file the file system refuses on -- or copied.
// Paths are joined as strings, one lstat at most per entry, so a large tree costs about what
// `cp -al` does. Return whether every regular file was linked or cloned (true for LinkFiles::no only
// when there were none). Throw Error (environment) naming the path on failure, and for a file that is
// not regular when copied.
bool copy_tree(const std::string& from, const std::string& to, LinkFiles link);

// Copy the regular file `from` to `to` (copy_file_range, else read/write) with its permission bits;
// what `to` was (a file, a hard link, a symlink) is replaced, never written through. Throw Error
// (environment) naming the paths on failure or when `from` is not a regular file (a fifo is never
// waited on).
void copy_regular_file(const std::string& from, const std::string& to);

// Whether copy_regular_file may clone the file's extents (FICLONE) before it copies bytes.
enum class TryClone { yes, no };

// As copy_regular_file; with TryClone::yes a clone is tried first. Return whether the file was cloned.
bool copy_regular_file(const std::string& from, const std::string& to, TryClone clone);

// Return the names in `dir` (no "." or ".."), sorted; nothing when it cannot be read.
std::vector<std::string> list_dir(const std::string& dir);

// Remove `path` recursively if it exists; never throw.
void remove_tree(const std::string& path) noexcept;

// Return true when `path` exists.
bool path_exists(const std::string& path);

}  // namespace envbisect
