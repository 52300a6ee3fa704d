#include "env/index_http.hpp"

#include <curl/curl.h>

#include <cstdio>
#include <memory>
#include <mutex>

#include "env/index_page.hpp"
#include "exec/runner.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/redact.hpp"

namespace envbisect {

namespace {

// libcurl's global state is set up once per process, before any handle.
void init_curl() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct CurlDeleter {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
using CurlHandle = std::unique_ptr<CURL, CurlDeleter>;

struct HeaderListDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

int stop_when_interrupted(void* /*user*/, curl_off_t /*dltotal*/, curl_off_t /*dlnow*/, curl_off_t /*ultotal*/,
                          curl_off_t /*ulnow*/) {
  return interrupt_requested() ? 1 : 0;  // non-zero: CURLE_ABORTED_BY_CALLBACK
}

// Throw the error of a transfer that ended with `code`: interrupted, or `what` failed because `why`.
[[noreturn]] void throw_failure(const std::string& url, const std::string& what, CURLcode code, const std::string& why) {
  if (code == CURLE_ABORTED_BY_CALLBACK) {
    throw Error(display_url(url) + ": " + what + " interrupted", ExitCode::interrupted);
  }
  throw Error(display_url(url) + ": " + what + ": " + why, ExitCode::bad_input);
}

// Return a handle with the options every index request shares: protocols, limits, netrc, no signals.
CurlHandle make_handle(const std::string& url, const HttpLimits& limits, char* error_buffer) {
  init_curl();
  CurlHandle handle(curl_easy_init());
  if (!handle) {
    throw Error("cannot start an HTTP client (libcurl)", ExitCode::environment);
  }
  CURL* h = handle.get();
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(h, CURLOPT_MAXREDIRS, limits.max_redirects);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, limits.connect_timeout_s);
  // The stall rule: below min_bytes_per_s for stall_timeout_s seconds (a page trickled at 2.5 bytes/s
  // passes "1 byte/s" forever).
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, limits.min_bytes_per_s);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, limits.stall_timeout_s);
  // Called at least once a second, also while no byte arrives: Ctrl-C and TERM end the transfer.
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, stop_when_interrupted);
  // Credentials may come from ~/.netrc; they go only to the host they name (no UNRESTRICTED_AUTH).
  curl_easy_setopt(h, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_OPTIONAL));
  curl_easy_setopt(h, CURLOPT_USERAGENT, "envbisect");
  return handle;
}

// Return the one-line reason a transfer failed, with every URL in it redacted.
std::string failure(CURLcode code, const char* error_buffer) {
  const std::string detail = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
  return redact_text(code == CURLE_OPERATION_TIMEDOUT ? "timed out (" + detail + ")" : detail);
}

size_t append_body(char* data, size_t size, size_t count, void* user) {
  auto* page = static_cast<std::pair<std::string*, long>*>(user);
  if (page->first->size() + size * count > static_cast<std::size_t>(page->second)) {
    return 0;  // past the limit: the transfer ends with a write error
  }
  page->first->append(data, size * count);
  return size * count;
}

struct DownloadSink {
  std::FILE* file;
  Sha256* digest;
  unsigned long long written = 0;
  unsigned long long limit = 0;
  bool too_large = false;
};

size_t write_file(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<DownloadSink*>(user);
  if (size * count > sink->limit - sink->written) {
    sink->too_large = true;  // a server that sent no Content-Length (or lied) is stopped here
    return 0;
  }
  sink->written += size * count;
  const size_t n = std::fwrite(data, size, count, sink->file);
  sink->digest->update(std::string_view(data, n * size));
  return n * size;
}

}  // namespace

HttpPage http_get_page(const std::string& url, const HttpLimits& limits) {
  char error_buffer[CURL_ERROR_SIZE] = {0};
  CurlHandle handle = make_handle(url, limits, error_buffer);
  CURL* h = handle.get();
  // PEP 691 content negotiation: JSON preferred, HTML accepted (plain text/html from static servers).
  std::unique_ptr<curl_slist, HeaderListDeleter> headers(curl_slist_append(
      nullptr,
      "Accept: application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01"));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  // Project pages of big projects run to megabytes (every torch wheel ever built): compressed when offered.
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
  HttpPage page;
  std::pair<std::string*, long> sink{&page.body, limits.max_page_bytes};
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  // A page has a whole-transfer deadline: no trickle keeps it open past it.
  curl_easy_setopt(h, CURLOPT_TIMEOUT, limits.page_timeout_s);
  const CURLcode code = curl_easy_perform(h);
  if (code != CURLE_OK) {
    const std::string why = code == CURLE_WRITE_ERROR ? "page larger than " + std::to_string(limits.max_page_bytes) + " bytes"
                                                      : failure(code, error_buffer);
    throw_failure(url, "cannot fetch the index page", code, why);
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &page.status);
  const char* type = nullptr;
  curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &type);
  page.content_type = type != nullptr ? type : "";
  // The links of a redirected page are relative to where it ended.
  const char* effective = nullptr;
  curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &effective);
  page.url = effective != nullptr ? effective : url;
  return page;
}

std::string http_download(const std::string& url, const std::string& temp_path, const HttpLimits& limits) {
  char error_buffer[CURL_ERROR_SIZE] = {0};
  CurlHandle handle = make_handle(url, limits, error_buffer);
  CURL* h = handle.get();
  std::FILE* file = std::fopen(temp_path.c_str(), "wbx");
  if (file == nullptr) {
    throw Error(temp_path + ": cannot create the download file", ExitCode::environment);
  }
  Sha256 digest;
  DownloadSink sink{file, &digest, 0, limits.max_download_bytes, false};
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_file);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(h, CURLOPT_FAILONERROR, 1L);
  // Refused up front when the server announces a larger size; write_file stops any other.
  curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(limits.max_download_bytes));
  // A whole-transfer deadline: the stall rule alone lets a server trickling just above
  // min_bytes_per_s hold a download (and the run) for days.
  curl_easy_setopt(h, CURLOPT_TIMEOUT, limits.download_timeout_s);
  const CURLcode code = curl_easy_perform(h);
  const bool closed = std::fclose(file) == 0;
  if (code != CURLE_OK) {
    const bool too_large = sink.too_large || code == CURLE_FILESIZE_EXCEEDED;
    double took = 0;
    curl_easy_getinfo(h, CURLINFO_TOTAL_TIME, &took);
    // libcurl's clock and its total time differ by milliseconds ("after 3000 ms", 2.9997 s): a margin.
    const bool too_long =
        code == CURLE_OPERATION_TIMEDOUT && took + 0.5 >= static_cast<double>(limits.download_timeout_s);
    throw_failure(url, "download failed", code,
                  too_large  ? "larger than " + std::to_string(limits.max_download_bytes) +
                                   " bytes (the download limit; raise it with --max-download-gib)"
                  : too_long ? failure(code, error_buffer) + ": not done in " + std::to_string(limits.download_timeout_s) +
                                   " s (the whole-download limit; raise it with --download-timeout)"
                             : failure(code, error_buffer));
  }
  if (!closed) {
    throw Error(temp_path + ": cannot write the download file", ExitCode::environment);
  }
  return digest.hex_digest();
}

}  // namespace envbisect
