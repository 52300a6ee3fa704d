// bench_materialize: the timed parts of bench/materialize/run.sh, with the real src/env code.
//   bench_materialize materialize STORE PYTHON WHEELS REQS ENV_PREFIX REPS [no-bytecode]
//     materializes REQS (a file of NAME==VERSION lines) REPS times into ENV_PREFIX.1..REPS and prints
//     one line per rep: "materialize <seconds> <ok>" (the first rep also probes the interpreter);
//     no-bytecode: new store entries get no compiled .pyc (to measure what compiling costs and saves).
//   bench_materialize copy-tree FROM TO
//     prints "copy_tree <seconds>" for one real copy of the tree FROM into TO (copy_tree, LinkFiles::no):
//     the fallback env/warm_cache.cpp takes for an attempt's warm cache where neither a reflink nor an
//     overlay is available (bench/scale's warm_cache_vs_cp_al times the path a run takes).
#include <chrono>
#include <fstream>
#include <iostream>
#include <string>

#include "util/fs.hpp"
#include "env/materialize.hpp"
#include "exec/runner.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "materialize" && (argc == 8 || (argc == 9 && std::string(argv[8]) == "no-bytecode"))) {
      envbisect::LocalRunner runner;
      envbisect::StoreOptions options;
      options.store_dir = argv[2];
      options.bytecode = argc == 9 ? envbisect::Bytecode::none : envbisect::Bytecode::compile;
      envbisect::VenvRequest request;
      request.python = argv[3];
      request.wheel_dirs = {argv[4]};
      std::ifstream reqs(argv[5]);
      for (std::string line; std::getline(reqs, line);) {
        const std::size_t eq = line.find("==");
        if (eq != std::string::npos) {
          request.packages[line.substr(0, eq)] = line.substr(eq + 2);
        }
      }
      const int reps = std::stoi(argv[7]);
      for (int i = 1; i <= reps; ++i) {
        request.env_dir = std::string(argv[6]) + "." + std::to_string(i);
        request.log_dir = request.env_dir + ".logs";
        const auto start = std::chrono::steady_clock::now();
        const envbisect::VenvResult result = envbisect::materialize_venv(runner, request, options);
        const double took = seconds_since(start);
        std::cout << "materialize " << took << " " << (result.ok ? "ok" : "failed") << std::endl;
        if (!result.ok) {
          std::cerr << result.reason << "\n";
          return 1;
        }
      }
      return 0;
    }
    if (mode == "copy-tree" && argc == 4) {
      const auto start = std::chrono::steady_clock::now();
      envbisect::copy_tree(argv[2], argv[3], envbisect::LinkFiles::no);
      std::cout << "copy_tree " << seconds_since(start) << std::endl;
      return 0;
    }
    std::cerr << "usage: bench_materialize materialize STORE PYTHON WHEELS REQS ENV_PREFIX REPS [no-bytecode] | "
                 "copy-tree FROM TO\n";
    return 2;
  } catch (const envbisect::Error& e) {
    std::cerr << "bench_materialize: error: " << e.what() << "\n";
    return 4;
  }
}
