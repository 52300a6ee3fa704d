// bench_integrity: what the store-integrity check costs per attempt. Before each attempt uses an
// environment, envbisect compares the identity (inode, size, mtime, mode) of all its files with the
// one recorded at build time (environment_changes). This times that check on an environment of
// FILES files (default 20,000, about a torch install) against two baselines measured in the same
// process: a bare stat walk of the same tree (the floor of any per-file check) and spawning `true`
// through the runner (the smallest cost an attempt already has). Prints `key: value` lines.
//   bench_integrity [--smoke] [FILES] [REPS]      (--smoke or ENVBISECT_BENCH_SMOKE=1: 500 files, 3 reps)
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "env/store.hpp"
#include "exec/runner.hpp"
#include "util/error.hpp"

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Count the entries below `fd` with fstatat, as the check does, building nothing.
std::size_t stat_walk(int fd) {
  DIR* d = ::fdopendir(fd);
  std::size_t n = 0;
  while (const dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) {
      continue;
    }
    struct stat st {};
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
      ++n;
      if (S_ISDIR(st.st_mode)) {
        n += stat_walk(::openat(::dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      }
    }
  }
  ::closedir(d);
  return n;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  try {
    bool smoke = std::getenv("ENVBISECT_BENCH_SMOKE") != nullptr;
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i) {
      if (std::string(argv[i]) == "--smoke") {
        smoke = true;
      } else {
        args.emplace_back(argv[i]);
      }
    }
    // Figures from an unoptimised build are not the product's (bench/lib.sh says the same for run.sh).
    const std::string build_type = ENVBISECT_BUILD_TYPE;
    std::cout << "build_type: " << (build_type.empty() ? "none" : build_type) << "\n";
    const bool optimised = build_type == "Release" || build_type == "RelWithDebInfo" || build_type == "MinSizeRel";
    if (!optimised && !smoke && std::getenv("BENCH_ALLOW_DEBUG") == nullptr) {
      std::cerr << "bench_integrity: a " << (build_type.empty() ? "type-less" : build_type)
                << " build (no optimisation): build RelWithDebInfo or set BENCH_ALLOW_DEBUG=1\n";
      return 2;
    }
    const std::size_t files = args.size() > 0 ? std::stoul(args[0]) : smoke ? 500 : 20000;
    const int reps = args.size() > 1 ? std::stoi(args[1]) : smoke ? 3 : 21;

    // An environment shaped like a big install: 100 files a folder, two levels, a bin/ with links.
    const std::filesystem::path env = std::filesystem::temp_directory_path() /
                                      ("envbisect-bench-integrity-" + std::to_string(::getpid()));
    const auto start_fill = now_ms();
    for (std::size_t i = 0; i < files; ++i) {
      const std::filesystem::path dir = env / "lib/python3.11/site-packages" / ("pkg" + std::to_string(i / 1000)) /
                                        ("sub" + std::to_string(i / 100 % 10));
      if (i % 100 == 0) {
        std::filesystem::create_directories(dir);
      }
      std::ofstream(dir / ("m" + std::to_string(i) + ".py")) << "x = " << i << "\n";
    }
    std::filesystem::create_directories(env / "bin");
    std::filesystem::create_symlink("/usr/bin/python3", env / "bin/python3");
    const double fill_ms = now_ms() - start_fill;
    envbisect::record_environment_identity(env.string());

    envbisect::LocalRunner runner;
    envbisect::ProcessSpec spawn;
    spawn.argv = {"true"};
    spawn.env = envbisect::allowed_parent_env();
    std::vector<double> check;
    std::vector<double> walk;
    std::vector<double> spawn_true;
    bool intact = true;
    for (int r = 0; r < reps; ++r) {
      double t = now_ms();
      intact = intact && envbisect::environment_changes(env.string()).empty();
      check.push_back(now_ms() - t);
      t = now_ms();
      stat_walk(::open(env.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      walk.push_back(now_ms() - t);
      t = now_ms();
      runner.run(spawn);
      spawn_true.push_back(now_ms() - t);
    }
    std::filesystem::remove_all(env);
    std::cout << "mode: " << (smoke ? "smoke" : "full") << "\n"
              << "files: " << files << "\n"
              << "reps: " << reps << "\n"
              << "fill_ms: " << fill_ms << "\n"
              << "check_ms: " << median(check) << "\n"
              << "stat_walk_ms: " << median(walk) << "\n"
              << "spawn_true_ms: " << median(spawn_true) << "\n"
              << "check_vs_stat_walk: " << median(check) / median(walk) << "\n"
              << "check_vs_spawn_true: " << median(check) / median(spawn_true) << "\n"
              << "intact: " << (intact ? "yes" : "no") << "\n";
    return intact ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "bench_integrity: " << e.what() << "\n";
    return 4;
  }
}
