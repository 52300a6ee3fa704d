#pragma once

#include <string>
#include <string_view>

namespace envbisect {

// How a warm cache snapshot was made private to one attempt.
enum class WarmCacheMethod {
  reflink,  // every file cloned (FICLONE): no data copied, on filesystems that share extents
  overlay,  // an overlay mount: the snapshot the read-only lower layer, the attempt's writes above it
  copy,     // a copy, walked by string paths (no canonicalisation per entry)
};

// Return "reflink", "overlay" or "copy".
std::string_view to_string(WarmCacheMethod method);

// Which methods prepare_warm_cache() may try (tests and benchmarks pin one).
enum class WarmCacheAllow { any, copy_only, no_overlay };

// One attempt's private, writable view of a warm cache snapshot at `to`. The snapshot never changes:
// the attempt writes into its clone, its copy, or the overlay's upper layer. Destroying the handle (or
// release()) unmounts an overlay; the files at `to` are then the caller's to remove.
class WarmCache {
public:
  WarmCache() = default;
  WarmCache(WarmCache&& other) noexcept;
  WarmCache& operator=(WarmCache&& other) noexcept;
  WarmCache(const WarmCache&) = delete;
  WarmCache& operator=(const WarmCache&) = delete;
  ~WarmCache();

  // Make `to` (which must not exist; its parent must) the attempt's view of `snapshot`: a reflink clone
  // where the filesystem has it, else an overlay mount where this process may mount one, else a copy.
  // Throw Error naming the path when none can be made.
  static WarmCache prepare(const std::string& snapshot, const std::string& to,
                           WarmCacheAllow allow = WarmCacheAllow::any);

  // Return how it was made.
  WarmCacheMethod method() const { return m_method; }

  // Unmount an overlay now (lazily, if busy); nothing for a clone or copy. Never throws.
  void release() noexcept;

private:
  WarmCacheMethod m_method = WarmCacheMethod::copy;
  std::string m_mount;  // the overlay's mount point while mounted, else empty
};

}  // namespace envbisect
