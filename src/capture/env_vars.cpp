#include "capture/env_vars.hpp"

#include <algorithm>

#include "util/redact.hpp"
#include "util/strings.hpp"

namespace envbisect {

const std::vector<std::string>& captured_env_prefixes() {
  // Grouped by who reads them: PyTorch and its compiler, CUDA libraries, threading runtimes, HF.
  static const std::vector<std::string> k_prefixes = {
      "TORCH", "PYTORCH", "TRITON", "CUDA", "CUBLAS", "CUDNN", "NCCL", "NVIDIA_", "OMP_", "MKL_", "KMP_",
      "HF_", "TRANSFORMERS_", "TOKENIZERS_", "XLA_"};
  return k_prefixes;
}

bool is_captured_env_name(std::string_view name) {
  const std::vector<std::string>& prefixes = captured_env_prefixes();
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& prefix) { return starts_with(name, prefix); });
}

bool is_secret_env_name(std::string_view name) { return is_secret_name(name); }

std::map<std::string, std::string> redact_env(const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : env) {
    if (is_captured_env_name(name)) {
      // The rule run uses for its output, journal and reports (util/redact.hpp).
      out.emplace(name, redact_env_value(name, value));
    }
  }
  return out;
}

}  // namespace envbisect
