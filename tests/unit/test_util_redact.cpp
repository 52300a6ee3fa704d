#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "util/redact.hpp"

using envbisect::is_secret_name;
using envbisect::looks_like_token;
using envbisect::redact_env_value;
using envbisect::redact_json;
using envbisect::redact_text;

TEST_CASE("secret names are recognised by their words, not by substrings", "[util][redact]") {
  for (const char* name : {"HF_TOKEN", "WANDB_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_REGION", "GITHUB_TOKEN", "DB_PASSWORD",
                           "MY_SECRET", "CLIENT_SECRET", "GOOGLE_APPLICATION_CREDENTIALS", "NPM_AUTH", "apiKey",
                           "OPENAI_APIKEY", "HUGGINGFACEHUB_API_TOKEN", "PGPASSWORD", "SSH_PASSPHRASE"}) {
    CAPTURE(name);
    CHECK(is_secret_name(name));
  }
  for (const char* name : {"KEYBOARD", "MONKEY_PATCH", "GIT_AUTHOR_NAME", "TOKENIZERS_PARALLELISM", "PATH", "NCCL_DEBUG",
                           "FLAG_A", "PYTHONHASHSEED", "KEYMAP", "CUDA_VISIBLE_DEVICES"}) {
    CAPTURE(name);
    CHECK_FALSE(is_secret_name(name));
  }
}

TEST_CASE("token-looking values are recognised, hashes, paths and words are not", "[util][redact]") {
  for (const char* value : {"hf_abcdefghijklmnopqrstuvwxyz012345", "ghp_0123456789abcdefghijABCDEFGHIJ0123",
                            "sk-proj0123456789abcdefghijklmn", "AKIAIOSFODNN7EXAMPLE", "xoxb-1234567890-abcdef",
                            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.dGVzdHNpZ25hdHVyZQ", "Zx9Kq2Lm7Np4Rt8Vw3Yb6Cd1"}) {
    CAPTURE(value);
    CHECK(looks_like_token(value));
  }
  for (const char* value : {"0123456789abcdef0123456789abcdef01234567", "/tmp/envbisect-cli.AbC123/run", "WARN", "old",
                            "fauxtransformers-5.8.1-py3-none-any.whl", "hf_short", "2.11.0+cu128",
                            "TORCHINDUCTOR_CACHE_DIR", "ThisIsJustALongCamelCaseWord"}) {
    CAPTURE(value);
    CHECK_FALSE(looks_like_token(value));
  }
}

TEST_CASE("env values are redacted by name or by value", "[util][redact]") {
  CHECK(redact_env_value("HF_TOKEN", "x") == "<redacted>");
  CHECK(redact_env_value("KEYBOARD", "us") == "us");
  CHECK(redact_env_value("EXTRA_HEADER", "Bearer hf_abcdefghijklmnopqrstuvwxyz012345") == "<redacted>");
  CHECK(redact_env_value("FLAG_A", "new") == "new");
}

TEST_CASE("free text keeps its words and loses its tokens", "[util][redact]") {
  CHECK(redact_text("login with hf_abcdefghijklmnopqrstuvwxyz012345.") == "login with <redacted>.");
  CHECK(redact_text("env: HF_TOKEN=hunter2 NCCL_DEBUG=WARN") == "env: HF_TOKEN=<redacted> NCCL_DEBUG=WARN");
  CHECK(redact_text("/home/u/.cache/hf_abcdefghijklmnopqrstuvwxyz012345/x") == "/home/u/.cache/<redacted>/x");
  CHECK(redact_text("step 3: loss 0.125, 21500 tok/s") == "step 3: loss 0.125, 21500 tok/s");
  CHECK(redact_text("") == "");
}

TEST_CASE("JSON records lose env secrets and keep their shape", "[util][redact]") {
  const nlohmann::json record = {
      {"type", "start"},
      {"candidate", "0123456789abcdef"},
      {"deltas", {{{"dimension", "env"}, {"name", "WANDB_API_KEY"}, {"good", "aaa"}, {"bad", "bbb"}},
                  {{"dimension", "env"}, {"name", "FLAG_A"}, {"good", "old"}, {"bad", "new"}},
                  {{"dimension", "env"}, {"name", "HF_TOKEN"}, {"good", nullptr}, {"bad", "x"}}}},
      {"env", {{"AWS_SECRET_ACCESS_KEY", "s"}, {"KEYBOARD", "us"}, {"N", 3}}},
      {"argv", {"python", "--token", "hf_abcdefghijklmnopqrstuvwxyz012345"}},
      {"runs", 3}};
  const nlohmann::json out = redact_json(record);
  CHECK(out["deltas"][0]["good"] == "<redacted>");
  CHECK(out["deltas"][0]["bad"] == "<redacted>");
  CHECK(out["deltas"][1]["bad"] == "new");
  CHECK(out["deltas"][2]["good"].is_null());
  CHECK(out["deltas"][2]["bad"] == "<redacted>");
  CHECK(out["env"]["AWS_SECRET_ACCESS_KEY"] == "<redacted>");
  CHECK(out["env"]["KEYBOARD"] == "us");
  CHECK(out["env"]["N"] == 3);
  CHECK(out["argv"][2] == "<redacted>");
  CHECK(out["candidate"] == "0123456789abcdef");
  CHECK(out["runs"] == 3);
  CHECK(out.size() == record.size());
}

TEST_CASE("JSON fields keep random-looking checksums that a resumed run compares", "[util][redact]") {
  const std::string checksum = "Zx9Kq2Lm7Np4Rt8Vw3Yb6Cd1";
  REQUIRE(looks_like_token(checksum));
  const nlohmann::json record = {{"type", "attempt"}, {"checksum", checksum}, {"env", {{"SEED_TEXT", checksum}}}};
  const nlohmann::json out = redact_json(record);
  CHECK(out["checksum"] == checksum);
  CHECK(out["env"]["SEED_TEXT"] == "<redacted>");  // an environment value: any token-looking value goes
  CHECK(redact_text("checksum " + checksum) == "checksum <redacted>");  // log text: likewise
}
