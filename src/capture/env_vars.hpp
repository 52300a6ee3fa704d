#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/redact.hpp"  // k_redacted, the one redaction rule

namespace envbisect {

// Return the name prefixes of the variables a capture records (TORCH, CUDA, NCCL, PYTORCH, TRITON,
// OMP_, HF_, ...): the ones that change what a training job computes or how fast.
const std::vector<std::string>& captured_env_prefixes();

// Return true when a variable named `name` is recorded by a capture (it starts with a captured prefix).
bool is_captured_env_name(std::string_view name);

// Return true when `name` says it holds a secret, by the one rule of util/redact.hpp (is_secret_name):
// its value is never written anywhere.
bool is_secret_env_name(std::string_view name);

// Return the captured variables of `env` with secrets replaced as redact_env_value() says (a secret
// name's value by "<redacted>", a URL's password by "<redacted>", the user and host kept).
std::map<std::string, std::string> redact_env(const std::map<std::string, std::string>& env);

}  // namespace envbisect
