#include <catch2/catch.hpp>

#include <vector>

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

TEST_CASE("each secret-name rule catches its names and leaves its near misses", "[util][redact]") {
  // One row per rule: the names it must catch, then names that look alike and must stay visible.
  struct Rule {
    const char* rule;
    std::vector<const char*> secret;
    std::vector<const char*> harmless;
  };
  const std::vector<Rule> rules = {
      {"word PW (short password)", {"GIT_ASKPASS_PW", "DB_PW", "pw", "adminPw"}, {"PWM_CHANNEL", "POWER"}},
      {"words PSWD, PWORD", {"SMTP_PSWD", "APP_PWORD"}, {"PSWITCH"}},
      {"word PASS", {"DB_PASS", "FTP_PASS"}, {"BYPASS_CACHE", "COMPASS_HOME", "PASSTHROUGH"}},
      {"word PASSWORD(S), PASSWD", {"DB_PASSWORD", "ADMIN_PASSWORDS", "ROOT_PASSWD"}, {}},
      {"word SSHPASS", {"SSHPASS"}, {}},
      {"word TOKEN and -TOKEN endings", {"HF_TOKEN", "ACCESSTOKEN", "GH_APITOKEN", "refreshToken"},
       {"MAX_TOKENS", "TOKENIZERS_PARALLELISM"}},
      {"word PAT (personal access token)", {"GH_PAT", "AZURE_DEVOPS_PAT"}, {"PATH", "PATCH_LEVEL", "PYTHONPATH"}},
      {"word KEY and secret -KEY endings", {"WANDB_API_KEY", "AWSSECRETKEY", "S3_ACCESSKEY", "SSH_PRIVKEY", "JWT_AUTHKEY"},
       {"KEYBOARD", "MONKEY_PATCH", "HOTKEY", "KEYMAP"}},
      {"word SECRET(S) and -SECRET endings", {"MY_SECRET", "CLIENTSECRET", "APP_SECRETS", "OAUTHSECRET"}, {"SECRETARY"}},
      {"words CREDENTIAL(S), CREDS", {"GOOGLE_APPLICATION_CREDENTIALS", "AWSCREDENTIALS", "DB_CREDS"}, {"CREDIT_LIMIT"}},
      {"word AUTH, AUTHORIZATION", {"NPM_AUTH", "HTTP_AUTHORIZATION"}, {"GIT_AUTHOR_NAME", "AUTHOR"}},
      {"session, cookie, signing words", {"JSESSIONID", "SESSION_COOKIE", "URL_SIG", "SENTRY_DSN", "MFA_OTP", "BEARER"},
       {"SESSIONS_DIR_SIZE"}},
      {"prefix AWS_", {"AWS_REGION", "aws_profile"}, {"LAWS_DIR"}},
  };
  for (const Rule& rule : rules) {
    for (const char* name : rule.secret) {
      CAPTURE(rule.rule, name);
      CHECK(is_secret_name(name));
      CHECK(redact_env_value(name, "hunter2") == "<redacted>");
    }
    for (const char* name : rule.harmless) {
      CAPTURE(rule.rule, name);
      CHECK_FALSE(is_secret_name(name));
      CHECK(redact_env_value(name, "hunter2") == "hunter2");
    }
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

namespace {

struct Case {
  const char* name;
  const char* value;
  const char* shown;  // what every output (terminal, journal, reports, a captured state) may show
};

}  // namespace

TEST_CASE("one rule for names and values: secrets go, URLs keep their host, harmless names stay", "[util][redact]") {
  const std::string token = "ghp_R4nd0mT0k3nV4lu3xxxxxxxxxxxxxxxx01";
  const std::vector<Case> cases = {
      // Secret names: the whole value goes.
      {"DB_PASS", "hunter2", "<redacted>"},
      {"MYSQL_PWD", "pw", "<redacted>"},
      {"SESSION_ID", "abc123", "<redacted>"},
      {"JSESSIONID", "0F1E2D", "<redacted>"},
      {"HTTP_COOKIE", "sid=1; theme=dark", "<redacted>"},
      {"HF_SESSION_COOKIE", "x", "<redacted>"},
      {"GPG_PASSPHRASE", "correct horse", "<redacted>"},
      {"SSH_PRIVATE_KEY", "-----BEGIN KEY-----", "<redacted>"},
      {"SENTRY_DSN", "https://abc@o1.ingest.sentry.io/5", "<redacted>"},
      {"NPM_CONFIG__AUTH", "dXNlcjpwYXNz", "<redacted>"},
      {"GOOGLE_APPLICATION_CREDENTIALS", "/etc/gcp.json", "<redacted>"},
      {"PGPASSWORD", "pw", "<redacted>"},
      {"api_key", "abc", "<redacted>"},
      {"apiKey", "abc", "<redacted>"},
      {"X_AUTH_TOKEN", "abc", "<redacted>"},
      {"AWS_REGION", "eu-west-1", "<redacted>"},
      // A webhook URL is a credential as a whole: the host stays.
      {"SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/T000/B000/XXXX", "https://hooks.slack.com/<redacted>"},
      {"DISCORD_WEBHOOK", "https://u:p@discord.com/api/webhooks/1/abc", "https://discord.com/<redacted>"},
      // Any other URL loses its password, a token user, and secret query parameters; user, host, path stay.
      {"DATABASE_URL", "postgres://app:s3cret@db.internal:5432/prod", "postgres://app:<redacted>@db.internal:5432/prod"},
      {"HTTPS_PROXY", "http://user:pa55@proxy.corp:3128", "http://user:<redacted>@proxy.corp:3128"},
      {"PIP_INDEX_URL", "https://__token__:pypi-AgEIcHlw@pypi.example/simple", "https://__token__:<redacted>@pypi.example/simple"},
      {"REDIS_URL", "redis://:onlypass@cache:6379/0", "redis://:<redacted>@cache:6379/0"},
      {"BLOB_URL", "https://a.blob.core.windows.net/c/f?sv=2020&sig=abcDEF", "https://a.blob.core.windows.net/c/f?sv=2020&sig=<redacted>"},
      {"CALLBACK_URL", "https://api.example.com/hook?token=abc123&x=1#top", "https://api.example.com/hook?token=<redacted>&x=1#top"},
      {"REPO_URL", "https://ghp_R4nd0mT0k3nV4lu3xxxxxxxxxxxxxxxx01@github.com/o/r.git", "https://<redacted>@github.com/o/r.git"},
      {"GIT_URL", "ssh://git@github.com/o/r.git", "ssh://git@github.com/o/r.git"},
      {"MLFLOW_TRACKING_URI", "http://mlflow:5000", "http://mlflow:5000"},
      // A token under a harmless name goes by its value.
      {"EXTRA_HEADER", "Bearer hf_abcdefghijklmnopqrstuvwxyz012345", "<redacted>"},
      {"SOME_VALUE", token.c_str(), "<redacted>"},
      // Harmless names that merely contain a secret word's letters stay as they are.
      {"KEYBOARD", "us", "us"},
      {"MONKEY_PATCH", "1", "1"},
      {"GIT_AUTHOR_NAME", "Ann", "Ann"},
      {"TOKENIZERS_PARALLELISM", "false", "false"},
      {"MAX_TOKENS", "512", "512"},
      {"PWD", "/home/u", "/home/u"},
      {"OLDPWD", "/tmp", "/tmp"},
      {"BYPASS_CACHE", "1", "1"},
      {"COMPASS_HEADING", "north", "north"},
      {"NCCL_DEBUG", "INFO", "INFO"},
      {"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True", "expandable_segments:True"},
      {"TORCH_HOME", "/data/torch", "/data/torch"},
  };
  REQUIRE(cases.size() >= 30);
  for (const Case& c : cases) {
    CAPTURE(c.name, c.value);
    CHECK(redact_env_value(c.name, c.value) == c.shown);
    // The journal and the reports apply the same rule to env and data, values and deltas alike.
    const nlohmann::json record = {{"env", {{c.name, c.value}}},
                                   {"data", {{c.name, c.value}}},
                                   {"deltas", {{{"dimension", "data"}, {"name", c.name}, {"good", c.value}, {"bad", nullptr}}}}};
    const nlohmann::json out = redact_json(record);
    CHECK(out["env"][c.name] == c.shown);
    CHECK(out["data"][c.name] == c.shown);
    CHECK(out["deltas"][0]["good"] == c.shown);
  }
}

TEST_CASE("secret flags in an argv lose their values, other flags keep theirs", "[util][redact]") {
  using envbisect::is_secret_flag;
  using envbisect::redact_argv;
  for (const char* flag : {"--api-key", "--token", "--password", "--hf-token", "-token", "--db-pass", "--session-cookie"}) {
    CAPTURE(flag);
    CHECK(is_secret_flag(flag));
  }
  for (const char* flag : {"--no-auth", "--max-tokens", "--keyboard", "--steps", "--password=x", "-p", "--", "api-key"}) {
    CAPTURE(flag);
    CHECK_FALSE(is_secret_flag(flag));
  }
  const std::vector<std::string> argv = {"python", "bench.py", "--api-key", "abc123", "--password=hunter2", "--token",
                                         "t0k", "--no-auth", "bench", "--db", "postgres://u:pw@h/db", "--steps", "3"};
  const std::vector<std::string> expected = {"python", "bench.py", "--api-key", "<redacted>", "--password=<redacted>",
                                             "--token", "<redacted>", "--no-auth", "bench", "--db",
                                             "postgres://u:<redacted>@h/db", "--steps", "3"};
  CHECK(redact_argv(argv) == expected);
  // As a journal array and as the text of a logged command line.
  CHECK(redact_json(nlohmann::json(argv)) == nlohmann::json(expected));
  CHECK(redact_text("python bench.py --api-key abc123 --steps 3") == "python bench.py --api-key <redacted> --steps 3");
  CHECK(redact_text("run --password 'two words' --x 1") == "run --password <redacted> --x 1");
  CHECK(redact_text("connecting to postgres://app:s3cret@db:5432/x failed") ==
        "connecting to postgres://app:<redacted>@db:5432/x failed");
}
