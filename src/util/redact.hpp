#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace envbisect {

// What a secret is replaced by, everywhere envbisect writes.
inline constexpr std::string_view k_redacted = "<redacted>";

// Return whether a name (an environment variable, a `data` field, a command-line flag without its
// dashes, a URL query parameter) says its value is a secret. The name is split into words at "_", "-",
// "." and lower-to-upper case changes ("wandbApiKey" -> WANDB API KEY); it is a secret when a word is
// one of TOKEN, SECRET(S), PASSWORD, PASSWD, PASS, PWD, PASSPHRASE, KEY, APIKEY, PRIVATE, CREDENTIAL(S),
// CREDS, AUTH, AUTHORIZATION, COOKIE(S), SESSION, SESSIONID, DSN, BEARER, JWT, WEBHOOK, SIGNATURE, SIG,
// PASSCODE, OTP, or ends in TOKEN,
// SECRET, PASSWORD, PASSWD, APIKEY, PASSPHRASE, COOKIE or SESSIONID ("PGPASSWORD", "JSESSIONID"), or
// the name starts with AWS_. Whole words only: KEYBOARD, MONKEY, AUTHOR, BYPASS, PASSTHROUGH, COMPASS,
// TOKENIZERS_PARALLELISM and MAX_TOKENS are not secrets; nor are PWD and OLDPWD alone (the shell's
// working directory).
bool is_secret_name(std::string_view name);

// Return whether a command-line argument is a flag whose value (the next argument) is a secret:
// "-" or "--" then a secret name, no "=" ("--api-key", "--token", "--password"); "--no-auth" is not.
bool is_secret_flag(std::string_view arg);

// Return `value` with the credentials inside every URL in it replaced by "<redacted>": the password of
// "scheme://user:password@host" (the user and host stay), a token-looking user of "scheme://TOKEN@host",
// and the value of every query parameter with a secret name ("?token=...", "&sig=..." is kept).
std::string redact_url_credentials(std::string_view value);

// Return whether a value looks like a credential whatever its name: a known token prefix (hf_, ghp_,
// github_pat_, sk-, xoxb-, glpat-, AKIA...), a JWT, or 24+ characters of random-looking text (upper
// and lower case letters and 3+ digits). Hex digests, paths and words are not tokens.
bool looks_like_token(std::string_view value);

// Return what may be shown of the value of a variable or `data` field called `name`: "<redacted>" when
// the name is a secret name or the value looks like a token; for a WEBHOOK name whose value is a URL,
// the scheme and host followed by "/<redacted>"; otherwise the value with its URL credentials redacted.
// The one rule shared by run (output, journal, reports) and capture.
std::string redact_env_value(std::string_view name, std::string_view value);

// Return the argv with secrets replaced by "<redacted>": the argument after a secret flag
// ("--api-key VALUE"), the value of "--password=VALUE" and NAME=value with a secret NAME, token-looking
// arguments and URL credentials. The flags themselves and every other argument are kept.
std::vector<std::string> redact_argv(const std::vector<std::string>& argv);

// Return `text` with every token-looking word, the value of every NAME=value whose NAME is a secret
// name, the word after a secret flag ("--token VALUE") and URL credentials replaced by "<redacted>"
// (for log excerpts and argv strings).
std::string redact_text(std::string_view text);

// Return a copy of `doc` with secrets replaced by "<redacted>": members of any object named "env" or
// "data" as redact_env_value says, the "good"/"bad" values of env and data deltas likewise, in arrays
// of strings the argument after a secret flag, and in every other string NAME=value with a secret NAME,
// URL credentials and the unmistakable tokens (known prefixes, JWTs) only: a random-looking checksum
// or id there may be compared by a resumed run. Keys, numbers and shape are kept.
nlohmann::json redact_json(const nlohmann::json& doc);

}  // namespace envbisect
