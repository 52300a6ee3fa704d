// Preparing a warm compile cache for one attempt (env/warm_cache.hpp), side by side with `cp -al` of
// the same tree: a generated inductor-like cache (folders of two-letter prefixes, many small source
// and metadata files and fewer large kernel binaries) of `--mb` megabytes in `--files` files.
// Prints warm_cache_method, warm_cache_s, copy_s (the string-path copy alone), cp_al_s, cp_a_s,
// warm_cache_vs_cp_al and copy_vs_cp_a. Median of `--repeats` rounds, each round all four side by side.
// Usage: bench_warm_cache [--mb 2048] [--files 4000] [--repeats 3] [--dir DIR]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <stdlib.h>

#include "env/warm_cache.hpp"
#include "util/fs.hpp"

using namespace envbisect;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Write the cache: one file in eight is a kernel binary holding 80 % of the bytes, the rest small.
void generate(const std::string& root, long megabytes, int files) {
  const long total = megabytes << 20;
  const int big = std::max(1, files / 8);
  const long big_size = total * 8 / 10 / big;
  const long small_size = std::max<long>(1, total * 2 / 10 / std::max(1, files - big));
  std::string block(1 << 20, 'k');
  for (int i = 0; i < files; ++i) {
    char prefix[8];
    std::snprintf(prefix, sizeof prefix, "%02x", i % 251);
    const std::string dir = root + "/" + prefix;
    make_dirs(dir);
    const bool kernel = i % 8 == 0;
    std::ofstream out(dir + "/c" + std::to_string(i) + (kernel ? ".so" : ".py"), std::ios::binary);
    for (long left = kernel ? big_size : small_size; left > 0; left -= static_cast<long>(block.size())) {
      out.write(block.data(), std::min<long>(left, static_cast<long>(block.size())));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  long megabytes = 2048;
  int files = 4000, repeats = 3;
  std::string dir;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--mb") {
      megabytes = std::atol(argv[i + 1]);
    } else if (flag == "--files") {
      files = std::atoi(argv[i + 1]);
    } else if (flag == "--repeats") {
      repeats = std::atoi(argv[i + 1]);
    } else if (flag == "--dir") {
      dir = argv[i + 1];
    }
  }
  if (dir.empty()) {
    std::string pattern = "/tmp/warm-cache-bench.XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      return 1;
    }
    dir = pattern;
  }
  const std::string snapshot = dir + "/snapshot";
  generate(snapshot, megabytes, files);
  std::vector<double> warm, copy, cp_al, cp_a;
  std::string method;
  for (int r = 0; r < repeats; ++r) {
    const std::string round = dir + "/round" + std::to_string(r);
    make_dirs(round);
    auto start = std::chrono::steady_clock::now();
    {
      WarmCache cache = WarmCache::prepare(snapshot, round + "/warm");
      method = std::string(to_string(cache.method()));
      warm.push_back(seconds_since(start));  // what an attempt waits for before its benchmark starts
    }
    start = std::chrono::steady_clock::now();
    WarmCache::prepare(snapshot, round + "/copy", WarmCacheAllow::copy_only);
    copy.push_back(seconds_since(start));
    start = std::chrono::steady_clock::now();
    if (std::system(("cp -al '" + snapshot + "' '" + round + "/cp-al'").c_str()) != 0) {
      return 1;
    }
    cp_al.push_back(seconds_since(start));
    start = std::chrono::steady_clock::now();
    if (std::system(("cp -a '" + snapshot + "' '" + round + "/cp-a'").c_str()) != 0) {
      return 1;
    }
    cp_a.push_back(seconds_since(start));
    remove_tree(round);
  }
  remove_tree(dir);
  std::printf("warm_cache_method: %s\n", method.c_str());
  std::printf("warm_cache_inputs: %ld MB in %d files\n", megabytes, files);
  std::printf("warm_cache_s: %.4f\ncopy_s: %.4f\ncp_al_s: %.4f\ncp_a_s: %.4f\n", median(warm), median(copy),
              median(cp_al), median(cp_a));
  std::printf("warm_cache_vs_cp_al: %.3f\n", median(warm) / median(cp_al));
  std::printf("copy_vs_cp_a: %.3f\n", median(copy) / median(cp_a));
  return 0;
}
