// Transfers from a real HTTP server on 127.0.0.1 (a thread of this test) that misbehaves: a page
// trickled a few bytes a second must end at the page deadline, a file larger than the limit must stop
// at the limit and leave no partial file, and a killed envbisect's partial files are swept.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "env/index_http.hpp"
#include "env/index_source.hpp"
#include "test_support.hpp"
#include "util/error.hpp"

using namespace envbisect;
namespace fs = std::filesystem;

namespace {

// One connection at a time on a free port of 127.0.0.1; `serve` writes the response to the client's
// socket. Stops (and joins) when destroyed.
class TinyServer {
public:
  template <typename Serve>
  explicit TinyServer(Serve serve) {
    m_listen = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    REQUIRE(::bind(m_listen, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(m_listen, 4) == 0);
    REQUIRE(::getsockname(m_listen, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    m_port = ntohs(address.sin_port);
    m_thread = std::thread([this, serve] {
      while (!m_stop.load()) {
        const int client = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) {
          return;
        }
        char request[4096];
        (void)::recv(client, request, sizeof request, 0);  // one read holds a client's small GET
        serve(client, m_stop);
        ::close(client);
      }
    });
  }
  ~TinyServer() {
    m_stop.store(true);
    ::shutdown(m_listen, SHUT_RDWR);
    ::close(m_listen);
    m_thread.join();
  }
  TinyServer(const TinyServer&) = delete;
  TinyServer& operator=(const TinyServer&) = delete;

  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(m_port) + path; }

private:
  int m_listen = -1;
  int m_port = 0;
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
};

bool send_text(int client, const std::string& text) {
  return ::send(client, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("a page trickled at 2.5 bytes/s ends at the page deadline", "[index][http]") {
  TinyServer server([](int client, std::atomic<bool>& stop) {
    send_text(client, "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n");
    // One byte every 0.4 s: above the old "1 byte/s" stall rule forever.
    for (int i = 0; i < 100 && !stop.load(); ++i) {
      if (!send_text(client, "<")) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(400));
    }
  });
  HttpLimits limits;
  limits.page_timeout_s = 2;
  limits.stall_timeout_s = 30;  // the deadline, not the stall rule, must end this one
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(http_get_page(server.url("/simple/a/"), limits), Catch::Contains("timed out"));
  const double took = seconds_since(start);
  CHECK(took >= 1.5);
  CHECK(took < 5.0);
}

TEST_CASE("a transfer under the minimum rate is given up after the stall window", "[index][http]") {
  TinyServer server([](int client, std::atomic<bool>& stop) {
    send_text(client, "HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n");
    for (int i = 0; i < 100 && !stop.load(); ++i) {
      if (!send_text(client, "xx")) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(400));
    }
  });
  const test::TempDir dir("http");
  HttpLimits limits;
  limits.stall_timeout_s = 2;  // 5 bytes/s is below 1 KiB/s: stalled
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(http_download(server.url("/f/a.whl"), (dir.path / "a.tmp").string(), limits),
                    Catch::Contains("download failed"));
  CHECK(seconds_since(start) < 6.0);
}

TEST_CASE("a download past the size limit stops there and leaves no partial file", "[index][http]") {
  // No Content-Length (HTTP/1.0, the body ends when the connection closes): only counting can stop it.
  TinyServer server([](int client, std::atomic<bool>& stop) {
    send_text(client, "HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n");
    const std::string block(16384, 'z');
    for (int i = 0; i < 64 && !stop.load(); ++i) {
      if (!send_text(client, block)) {
        return;
      }
    }
  });
  const test::TempDir dir("http");
  HttpLimits limits;
  limits.max_download_bytes = 20000;
  IndexFile file;
  file.filename = "a-1.0-py3-none-any.whl";
  file.url = server.url("/f/a-1.0-py3-none-any.whl");
  const std::string downloads = (dir.path / "downloads").string();
  CHECK_THROWS_WITH(download_index_file(file, "", downloads, limits),
                    Catch::Contains("larger than 20000 bytes") && Catch::Contains("--max-download-gib"));
  // Nothing is left: no partial file, no empty folder.
  std::size_t left = 0;
  for (const auto& entry : fs::recursive_directory_iterator(downloads)) {
    left += entry.is_regular_file() ? 1 : 0;
  }
  CHECK(left == 0);
}

TEST_CASE("partial downloads of writers that no longer run are swept", "[index][http]") {
  const test::TempDir dir("http");
  const fs::path folder = dir.path / "sha256-abc";
  fs::create_directories(folder);
  // 999999999 is past any pid_max: that writer is gone. Ours still runs; a finished file is not partial.
  const fs::path dead = folder / ".a-1.0-py3-none-any.whl.tmp999999999-0";
  const fs::path live = folder / (".b-1.0-py3-none-any.whl.tmp" + std::to_string(::getpid()) + "-3");
  const fs::path done = folder / "c-1.0-py3-none-any.whl";
  for (const fs::path& path : {dead, live, done}) {
    std::ofstream(path) << "bytes";
  }
  CHECK(sweep_partial_downloads(dir.path.string()) == 1);
  CHECK_FALSE(fs::exists(dead));
  CHECK(fs::exists(live));
  CHECK(fs::exists(done));
}

TEST_CASE("a download trickled just above the minimum rate ends at the whole-download deadline", "[index][http]") {
  TinyServer server([](int client, std::atomic<bool>& stop) {
    send_text(client, "HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n");
    // 400 bytes/s for up to 15 s: four times the minimum rate below, so the stall rule never fires.
    const std::string chunk(200, 'z');
    for (int i = 0; i < 30 && !stop.load(); ++i) {
      if (!send_text(client, chunk)) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  });
  const test::TempDir dir("http");
  HttpLimits limits;
  limits.min_bytes_per_s = 100;
  limits.stall_timeout_s = 1;
  limits.download_timeout_s = 2;
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(http_download(server.url("/f/a.whl"), (dir.path / "a.tmp").string(), limits),
                    Catch::Contains("not done in 2 s") && Catch::Contains("--download-timeout"));
  const double took = seconds_since(start);
  CHECK(took >= 1.5);
  CHECK(took < 5.0);
}
