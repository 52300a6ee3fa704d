#include "capture/env_vars.hpp"

#include <algorithm>
#include <cctype>

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

bool is_secret_env_name(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  static const char* const k_markers[] = {"TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"};
  return std::any_of(std::begin(k_markers), std::end(k_markers),
                     [&](const char* marker) { return upper.find(marker) != std::string::npos; });
}

std::map<std::string, std::string> redact_env(const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : env) {
    if (is_captured_env_name(name)) {
      out.emplace(name, is_secret_env_name(name) ? std::string(k_redacted) : value);
    }
  }
  return out;
}

}  // namespace envbisect
