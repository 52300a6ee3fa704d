#pragma once

#include <cstddef>
#include <string>

namespace envbisect {

// How `link_tree` placed the files.
struct LinkTreeStats {
  std::size_t files = 0;
  std::size_t linked = 0;  // hard links
  std::size_t copied = 0;  // copies, where hard links cannot be made (another filesystem, no permission)
  std::size_t dirs = 0;
};

// Whether `link_tree` hard-links files or always copies them.
enum class TreeMode { link, copy };

// Recreate the tree at `from` under `to` (created; may exist), directories made fresh, symlinks
// copied as links, regular files hard-linked (TreeMode::link; a copy where the filesystem refuses)
// or copied. Uses directory file descriptors (openat/linkat) so it costs about what `cp -al` does.
// Throw Error (environment) naming the paths on failure.
LinkTreeStats link_tree(const std::string& from, const std::string& to, TreeMode mode);

// Copy one regular file (sendfile/copy_file_range), keeping its permission bits; what `to` was (a
// file, a hard link, a symlink) is replaced, never written through. Throw Error
// (environment) naming the paths on failure.
void copy_regular_file(const std::string& from, const std::string& to);

}  // namespace envbisect
