#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace envbisect {

// Return the name prefixes of the variables a capture records (TORCH, CUDA, NCCL, PYTORCH, TRITON,
// OMP_, HF_, ...): the ones that change what a training job computes or how fast.
const std::vector<std::string>& captured_env_prefixes();

// Return true when a variable named `name` is recorded by a capture (it starts with a captured prefix).
bool is_captured_env_name(std::string_view name);

// Return true when `name` looks like it holds a secret (contains TOKEN, KEY, SECRET, PASSWORD, PASSWD,
// CREDENTIAL or AUTH, compared case-insensitively): its value is never written anywhere.
bool is_secret_env_name(std::string_view name);

// The text written instead of a secret variable's value.
inline constexpr std::string_view k_redacted = "<redacted>";

// Return the captured variables of `env` with secret values replaced by k_redacted.
std::map<std::string, std::string> redact_env(const std::map<std::string, std::string>& env);

}  // namespace envbisect
