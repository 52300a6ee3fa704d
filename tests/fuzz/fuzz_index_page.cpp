// Fuzz target: the package index page parsers, which read what a network server sends (PEP 503 HTML
// and --find-links pages, PEP 691 JSON). The first byte picks the parser, the rest is the body. Any
// bytes give files or an Error naming the page; every file has an absolute URL (RFC 3986: a scheme;
// "https:x.whl" is one, if a useless one) without a fragment, a sha256 that is empty or 64 lower-case
// hex digits, and a page name without the page URL's credentials.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "env/index_page.hpp"
#include "util/error.hpp"

namespace {

// Return whether `url` starts with a scheme: a letter, then letters, digits, '+', '-' or '.', then ':'.
bool has_scheme(const std::string& url) {
  const std::size_t colon = url.find(':');
  if (colon == std::string::npos || colon == 0 || !std::isalpha(static_cast<unsigned char>(url[0]))) {
    return false;
  }
  for (std::size_t i = 1; i < colon; ++i) {
    const unsigned char c = static_cast<unsigned char>(url[i]);
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

bool is_lower_hex(const std::string& text) {
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const bool json = data[0] % 2 == 1;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string page = "https://user:secret@index.example/simple/pkg/";
  try {
    const std::vector<envbisect::IndexFile> files =
        json ? envbisect::parse_simple_json(body, page, "https://index.example/simple/pkg/")
             : envbisect::parse_simple_html(body, page, "https://index.example/simple/pkg/");
    for (const envbisect::IndexFile& file : files) {
      if (file.url.find('#') != std::string::npos || !has_scheme(file.url)) {
        std::abort();  // a fragment kept, or a URL left relative
      }
      if (!file.sha256.empty() && (file.sha256.size() != 64 || !is_lower_hex(file.sha256))) {
        std::abort();
      }
      if (file.page.find("secret") != std::string::npos) {
        std::abort();  // the page's credentials reached a message
      }
    }
  } catch (const envbisect::Error&) {
  }
  return 0;
}
