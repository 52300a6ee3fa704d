#pragma once

#include <string>

namespace envbisect {

// Limits on every request to a package index, so that a stalled, trickling or hostile server ends in
// an error, and Ctrl-C ends any transfer within a second.
struct HttpLimits {
  long connect_timeout_s = 30;  // to open the connection
  long page_timeout_s = 60;     // the whole transfer of an index page, connection included
  long download_timeout_s = 3600;  // the whole transfer of one downloaded file, connection included
  long stall_timeout_s = 60;    // a page or download slower than min_bytes_per_s over this long is given up
  long min_bytes_per_s = 1024;  // the rate below which a transfer counts as stalled
  long max_redirects = 10;
  long max_page_bytes = 64L << 20;                          // a project page larger than this is refused
  unsigned long long max_download_bytes = 8ULL << 30;       // a file larger than this is refused (8 GiB)
};

// A page fetched from an index.
struct HttpPage {
  long status = 0;           // the HTTP status of the last response (after redirects)
  std::string content_type;  // of the last response
  std::string url;           // the URL the page came from after redirects (the base for its links)
  std::string body;
};

// Fetch `url` (http or https; credentials from the URL or ~/.netrc) asking for the PEP 691 JSON form
// first, then HTML. Return the page whatever its status. Throw Error (bad_input) naming the URL
// (credentials redacted) when it cannot be fetched: connection refused, past page_timeout_s in all,
// stalled, redirect loop, a page past the size limit; Error (interrupted) on SIGINT/SIGTERM.
HttpPage http_get_page(const std::string& url, const HttpLimits& limits);

// Download `url` into the new file `temp_path` and return the sha256 of its bytes. Throw Error
// (bad_input) naming the URL (credentials redacted) when the download fails, stalls, takes longer than
// download_timeout_s in all (however fast it trickles), passes max_download_bytes or the status is not
// 200, Error (interrupted) on SIGINT/SIGTERM; the caller removes temp_path.
std::string http_download(const std::string& url, const std::string& temp_path, const HttpLimits& limits);

}  // namespace envbisect
