// Fuzz target: the journal reader and the redaction that every record and log excerpt goes through.
// Any bytes in journal.jsonl give records or an Error naming a line; every record returned is a JSON
// object, and redacting it keeps its shape and is idempotent. The bytes live in a memfd, so nothing
// touches the disk.
#include <sys/mman.h>
#include <unistd.h>

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
  const int fd = ::memfd_create("journal.jsonl", MFD_CLOEXEC);
  if (fd < 0) {
    return 0;
  }
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n <= 0) {
      ::close(fd);
      return 0;
    }
    done += static_cast<std::size_t>(n);
  }
  try {
    const envbisect::JournalContents contents = envbisect::read_journal("/proc/self/fd/" + std::to_string(fd));
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
  ::close(fd);
  return 0;
}
