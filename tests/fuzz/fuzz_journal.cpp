// Fuzz target: the journal reader and the redaction that every record and log excerpt goes through.
// Any bytes in journal.jsonl give records or an Error naming a line; every record returned is a JSON
// object, and redacting it keeps its shape and is idempotent. The bytes are parsed in memory, so
// nothing touches the disk.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "store/journal.hpp"
#include "util/error.hpp"
#include "util/redact.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The same bytes as a log excerpt: redaction never grows a clean text and is idempotent.
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string redacted = envbisect::redact_text(text);
  if (envbisect::redact_text(redacted) != redacted) {
    std::abort();
  }
  try {
    const envbisect::JournalContents contents = envbisect::parse_journal(text, "journal.jsonl");
    for (const auto& record : contents.records) {
      if (!record.is_object()) {
        std::abort();
      }
      const nlohmann::json clean = envbisect::redact_json(record);
      if (!clean.is_object() || clean.size() != record.size() || envbisect::redact_json(clean) != clean) {
        std::abort();
      }
    }
  } catch (const envbisect::Error&) {
  }
  return 0;
}
