#include "capture/env_vars.hpp"

#include <catch2/catch.hpp>

using namespace envbisect;

TEST_CASE("captured variables are the ones that change what or how fast a job computes", "[capture][env]") {
  for (const char* name : {"TORCHINDUCTOR_CACHE_DIR", "PYTORCH_CUDA_ALLOC_CONF", "CUDA_VISIBLE_DEVICES",
                           "NCCL_DEBUG", "TRITON_CACHE_DIR", "OMP_NUM_THREADS", "HF_HOME", "CUBLAS_WORKSPACE_CONFIG"}) {
    INFO(name);
    CHECK(is_captured_env_name(name));
  }
  for (const char* name : {"PATH", "HOME", "PYTHONPATH", "OMPX", "HFX", "LANG", "torch_lower"}) {
    INFO(name);
    CHECK_FALSE(is_captured_env_name(name));
  }
}

TEST_CASE("secret-looking names are redacted, others kept, uncaptured ones dropped", "[capture][env]") {
  CHECK(is_secret_env_name("HF_TOKEN"));
  CHECK(is_secret_env_name("hf_api_key"));
  CHECK(is_secret_env_name("NCCL_SECRET"));
  CHECK(is_secret_env_name("TORCH_PASSWORD_FILE"));
  CHECK_FALSE(is_secret_env_name("NCCL_DEBUG"));
  const std::map<std::string, std::string> env = {
      {"HF_TOKEN", "hf_abc"}, {"NCCL_DEBUG", "WARN"}, {"PATH", "/bin"}, {"OMP_NUM_THREADS", "4"}};
  const std::map<std::string, std::string> expected = {
      {"HF_TOKEN", std::string(k_redacted)}, {"NCCL_DEBUG", "WARN"}, {"OMP_NUM_THREADS", "4"}};
  CHECK(redact_env(env) == expected);
}
