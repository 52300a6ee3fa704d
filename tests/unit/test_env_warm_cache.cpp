#include <catch2/catch.hpp>

#include <stdlib.h>
#include <sys/stat.h>

#include <string>

#include "env/warm_cache.hpp"
#include "util/fs.hpp"

using namespace envbisect;

namespace {

std::string temp_dir() {
  std::string pattern = "/tmp/warm-cache-test.XXXXXX";
  REQUIRE(::mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

void snapshot_at(const std::string& root) {
  make_dirs(root + "/ab/cd");
  write_file_atomic(root + "/ab/kernel.so", std::string(100000, 'k'));
  write_file_atomic(root + "/ab/cd/meta.json", "{}");
  REQUIRE(::symlink("kernel.so", (root + "/ab/link").c_str()) == 0);
  REQUIRE(::chmod((root + "/ab/kernel.so").c_str(), 0755) == 0);
}

}  // namespace

TEST_CASE("a warm cache is the snapshot's files, and writes to it never reach the snapshot", "[env][warm_cache]") {
  for (WarmCacheAllow allow : {WarmCacheAllow::copy_only, WarmCacheAllow::no_overlay, WarmCacheAllow::any}) {
    const std::string dir = temp_dir();
    snapshot_at(dir + "/snap");
    {
      WarmCache cache = WarmCache::prepare(dir + "/snap", dir + "/attempt", allow);
      if (allow != WarmCacheAllow::any) {
        CHECK(cache.method() != WarmCacheMethod::overlay);
      }
      if (allow == WarmCacheAllow::copy_only) {
        CHECK(cache.method() == WarmCacheMethod::copy);
      }
      const std::string view = dir + "/attempt";
      CHECK(read_file(view + "/ab/kernel.so") == std::string(100000, 'k'));
      CHECK(read_file(view + "/ab/cd/meta.json") == "{}");
      struct stat st {};
      REQUIRE(::lstat((view + "/ab/link").c_str(), &st) == 0);
      CHECK(S_ISLNK(st.st_mode));
      REQUIRE(::stat((view + "/ab/kernel.so").c_str(), &st) == 0);
      CHECK((st.st_mode & 0777) == 0755);
      // The attempt compiles new kernels and rewrites old ones: the snapshot keeps its own.
      write_file_atomic(view + "/ab/kernel.so", "rewritten");
      write_file_atomic(view + "/ab/new.so", "new");
      CHECK(read_file(dir + "/snap/ab/kernel.so") == std::string(100000, 'k'));
      CHECK_FALSE(path_exists(dir + "/snap/ab/new.so"));
    }
    // Released (an overlay unmounted): the attempt's folders can be removed.
    remove_tree(dir + "/attempt");
    remove_tree(dir + "/attempt.upper");
    remove_tree(dir + "/attempt.work");
    CHECK_FALSE(path_exists(dir + "/attempt"));
    remove_tree(dir);
  }
}

TEST_CASE("a copy of a tree holding only folders is made without any method's probe", "[env][warm_cache]") {
  const std::string dir = temp_dir();
  make_dirs(dir + "/snap/empty/inside");
  WarmCache cache = WarmCache::prepare(dir + "/snap", dir + "/attempt");
  CHECK(cache.method() == WarmCacheMethod::copy);
  CHECK(path_exists(dir + "/attempt/empty/inside"));
  remove_tree(dir);
}
