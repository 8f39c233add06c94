// HttpStore and HttpClient against a small HTTP/1.1 server in this test (range
// requests as RFC 9110 section 14 describes them), which counts requests and can
// ignore ranges or never answer. The corpus over nginx and the fault proxy are
// tests/python/test_http_store.py.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "store/http_store.hpp"
#include "zarrgpu/error.hpp"

namespace zarrgpu::store {
namespace {

using namespace std::chrono_literals;

class TinyServer {
 public:
  std::map<std::string, std::string> values;  // "/k" -> bytes
  std::atomic<bool> ignore_range{false};
  std::atomic<bool> never_answer{false};

  TinyServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    socklen_t n = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &n);
    port_ = ntohs(a.sin_port);
    ::listen(fd_, 64);
    thread_ = std::thread([this] { accept_loop(); });
  }
  ~TinyServer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
    for (auto& t : connections_) t.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::string> log() {
    std::lock_guard lk(mutex_);
    return log_;
  }

 private:
  void accept_loop() {
    while (!stop_) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      connections_.emplace_back([this, c] { serve(c); });
    }
  }
  void serve(int c) {
    std::string buf;
    char tmp[4096];
    while (!stop_) {
      std::size_t end;
      while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
        const ssize_t n = ::recv(c, tmp, sizeof tmp, 0);
        if (n <= 0) {
          ::close(c);
          return;
        }
        buf.append(tmp, n);
      }
      const std::string head = buf.substr(0, end);
      buf.erase(0, end + 4);
      if (never_answer) {
        while (!stop_ && ::recv(c, tmp, sizeof tmp, MSG_DONTWAIT) != 0) std::this_thread::sleep_for(10ms);
        ::close(c);
        return;
      }
      const bool is_head = head.starts_with("HEAD ");
      const auto sp1 = head.find(' '), sp2 = head.find(' ', sp1 + 1);
      const std::string path = head.substr(sp1 + 1, sp2 - sp1 - 1);
      std::string range;
      if (const auto r = head.find("Range: bytes="); r != std::string::npos) {
        range = head.substr(r + 13, head.find("\r\n", r) - r - 13);
      }
      {
        std::lock_guard lk(mutex_);
        log_.push_back(std::string(is_head ? "HEAD " : "GET ") + path + (range.empty() ? "" : " " + range));
      }
      std::string status = "200 OK", extra, body;
      auto it = values.find(path);
      if (it == values.end()) {
        status = "404 Not Found";
      } else {
        const std::string& v = it->second;
        body = v;
        if (!range.empty() && !ignore_range) {
          const auto dash = range.find('-');
          std::uint64_t a, b;
          if (dash == 0) {
            const std::uint64_t n = std::stoull(range.substr(1));
            a = n >= v.size() ? 0 : v.size() - n;
            b = v.size() - 1;
          } else {
            a = std::stoull(range.substr(0, dash));
            b = dash + 1 < range.size() ? std::min<std::uint64_t>(std::stoull(range.substr(dash + 1)), v.size() - 1)
                                        : v.size() - 1;
          }
          if (a >= v.size()) {
            status = "416 Range Not Satisfiable";
            extra = "Content-Range: bytes */" + std::to_string(v.size()) + "\r\n";
            body.clear();
          } else {
            status = "206 Partial Content";
            extra = "Content-Range: bytes " + std::to_string(a) + "-" + std::to_string(b) + "/" +
                    std::to_string(v.size()) + "\r\n";
            body = v.substr(a, b - a + 1);
          }
        }
        extra += "ETag: \"v1\"\r\n";
      }
      std::string answer = "HTTP/1.1 " + status + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + extra +
                           "\r\n" + (is_head ? "" : body);
      if (::send(c, answer.data(), answer.size(), MSG_NOSIGNAL) < 0) break;
    }
    ::close(c);
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::vector<std::thread> connections_;
  std::mutex mutex_;
  std::vector<std::string> log_;
};

std::string text(const Bytes& b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

HttpSettings quick() {
  HttpSettings s;
  s.timeout = 300ms;
  s.connect_timeout = 300ms;
  s.retries = 1;
  s.backoff = 5ms;
  return s;
}

std::string digits(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += static_cast<char>('0' + i % 10);
  return s;
}

TEST(HttpStore, RangesOfAKeyAndMissingKeys) {
  TinyServer server;
  server.values["/data.zarr/c/0"] = digits(100);
  auto store = open_http_store(server.url() + "/data.zarr/", quick());
  const std::vector<ReadInto> reqs{{{"c/0", ByteRange::of(10, 5)}, {}},
                                   {{"c/0", ByteRange::suffix(3)}, {}},
                                   {{"c/0", ByteRange::all()}, {}},
                                   {{"c/0", ByteRange{95, ByteRange::npos, 0}}, {}},
                                   {{"c/1", ByteRange::all()}, {}}};
  const auto res = store->read(reqs);
  EXPECT_EQ(text(res[0].data), "01234");
  EXPECT_EQ(text(res[1].data), "789");
  EXPECT_EQ(text(res[2].data), digits(100));
  EXPECT_EQ(text(res[3].data), "56789");
  EXPECT_FALSE(res[4].found);
  EXPECT_EQ(store->size("c/0"), 100u);
  EXPECT_FALSE(store->exists("c/1"));
  EXPECT_EQ(store->describe(), server.url() + "/data.zarr");
}

TEST(HttpStore, NearbyRangesOfOneKeyAreOneRequest) {
  TinyServer server;
  server.values["/s/c"] = digits(1000);
  HttpSettings s = quick();
  s.coalesce_gap = 100;
  auto store = open_http_store(server.url() + "/s", s);
  std::vector<std::byte> into(4);
  const std::vector<ReadInto> reqs{{{"c", ByteRange::of(0, 10)}, {}},
                                   {{"c", ByteRange::of(50, 4)}, std::span(into)},
                                   {{"c", ByteRange::of(900, 10)}, {}}};
  const auto res = store->read(reqs);
  EXPECT_EQ(text(res[0].data), "0123456789");
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(into.data()), 4), "0123");
  EXPECT_EQ(res[1].size, 4u);
  EXPECT_EQ(text(res[2].data), "0123456789");
  auto log = server.log();
  std::sort(log.begin(), log.end());
  EXPECT_EQ(log, (std::vector<std::string>{"GET /s/c 0-53", "GET /s/c 900-909"}));
  // What the read report counts: the requests sent and the body bytes received.
  EXPECT_EQ(store->kind(), "http");
  EXPECT_EQ(store->activity().requests, 2u);
  EXPECT_EQ(store->activity().retries, 0u);
  EXPECT_EQ(store->activity().bytes_fetched, 54u + 10u);
}

TEST(HttpStore, AWholeValueIsOneRequestAndOneOverTheLimitIsNotRead) {
  TinyServer server;
  server.values["/s/c"] = digits(100);
  server.values["/s/empty"] = "";
  auto store = open_http_store(server.url() + "/s", quick());
  Bytes buffer;
  EXPECT_EQ(store->read_whole_bounded("c", 100, buffer), 100u);
  EXPECT_EQ(text(buffer), digits(100));
  EXPECT_EQ(store->read_whole_bounded("c", 99, buffer), 100u);  // too big: its size, no bytes owed
  EXPECT_EQ(store->read_whole_bounded("c", ByteRange::npos, buffer), 100u);
  EXPECT_EQ(text(buffer), digits(100));
  EXPECT_EQ(store->read_whole_bounded("empty", 10, buffer), 0u);
  EXPECT_EQ(buffer.size(), 0u);
  EXPECT_EQ(store->read_whole_bounded("none", 10, buffer), std::nullopt);
  EXPECT_EQ(server.log(), (std::vector<std::string>{"GET /s/c 0-100", "GET /s/c 0-99", "GET /s/c", "GET /s/empty 0-10",
                                                    "GET /s/none 0-10"}));
  server.ignore_range = true;  // the whole value comes: the client keeps limit + 1 bytes
  EXPECT_EQ(store->read_whole_bounded("c", 10, buffer), 100u);
  EXPECT_EQ(store->read_whole_bounded("c", 200, buffer), 100u);
  EXPECT_EQ(text(buffer), digits(100));
}

TEST(HttpStore, RangesPastTheEndAreErrorsAsForEveryStore) {
  TinyServer server;
  server.values["/s/c"] = digits(10);
  auto store = open_http_store(server.url() + "/s", quick());
  for (const ByteRange r : {ByteRange::of(5, 10), ByteRange::of(20, 1), ByteRange::suffix(11)}) {
    const ReadInto req{{"c", r}, {}};
    try {
      store->read(std::span(&req, 1));
      ADD_FAILURE() << "no error for offset " << r.offset;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::io) << e.what();
      EXPECT_EQ(e.context().chunk_key, "c");
    }
  }
  // Reading from the end onwards is an empty read, as for a file.
  const ReadInto at_end{{"c", ByteRange{10, ByteRange::npos, 0}}, {}};
  EXPECT_EQ(store->read(std::span(&at_end, 1)).at(0).size, 0u);
}

TEST(HttpStore, AServerThatIgnoresRangesStillGivesTheRightBytes) {
  TinyServer server;
  server.ignore_range = true;
  server.values["/s/c"] = digits(5000);
  auto store = open_http_store(server.url() + "/s", quick());
  const std::vector<ReadInto> reqs{{{"c", ByteRange::of(12, 3)}, {}}, {{"c", ByteRange::suffix(2)}, {}}};
  const auto res = store->read(reqs);
  EXPECT_EQ(text(res[0].data), "234");
  EXPECT_EQ(text(res[1].data), "89");
}

TEST(HttpStore, OpenedValueReadsRangesOfThatVersion) {
  TinyServer server;
  server.values["/s/shard"] = digits(64);
  auto store = open_http_store(server.url() + "/s", quick());
  auto value = store->open_value("shard");
  ASSERT_TRUE(value);
  EXPECT_EQ(value->size(), 64u);
  std::vector<std::byte> buf(3);
  value->read(61, buf);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(buf.data()), 3), "123");
  EXPECT_THROW(value->read(62, buf), Error);
  EXPECT_EQ(store->open_value("none"), nullptr);
}

TEST(HttpStore, ListingWritingAndQueriesAreRefusedClearly) {
  auto store = open_http_store("https://example.invalid/x.zarr", quick());
  try {
    store->list("");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported);
    EXPECT_NE(std::string(e.what()).find("consolidated"), std::string::npos) << e.what();
  }
  EXPECT_THROW(store->write("a", {}), Error);
  EXPECT_THROW(open_http_store("https://h/x.zarr?token=1", quick()), Error);
  EXPECT_EQ(store->url_of("a b/c%"), "https://example.invalid/x.zarr/a%20b/c%25");
}

TEST(HttpClient, UrlsInMessagesLoseCredentialsAndQueries) {
  EXPECT_EQ(redact_url("https://user:pw@host:9000/a/b?X-Amz-Signature=1#f"), "https://host:9000/a/b");
  EXPECT_EQ(redact_url("http://host/a@b"), "http://host/a@b");
}

TEST(HttpClient, ARequestThatGetsNoAnswerTimesOutAndNamesTheUrl) {
  TinyServer server;
  server.never_answer = true;
  HttpClient client(quick(), "test");
  const HttpRequest req{server.url() + "/k", "", false, "k", {}, 0};
  const auto start = std::chrono::steady_clock::now();
  try {
    client.perform(std::span(&req, 1));
    ADD_FAILURE();
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.kind(), ErrorKind::io);
    EXPECT_NE(msg.find(server.url() + "/k"), std::string::npos) << msg;
    EXPECT_NE(msg.find("timed out"), std::string::npos) << msg;
    EXPECT_NE(msg.find("after 2 attempts"), std::string::npos) << msg;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(HttpClient, CancelEndsTheBatchesInFlight) {
  TinyServer server;
  server.never_answer = true;
  HttpSettings s;
  s.timeout = 60s;
  HttpClient client(s, "test");
  std::vector<HttpRequest> reqs;
  for (int i = 0; i < 4; ++i) reqs.push_back({server.url() + "/k" + std::to_string(i), "", false, "k", {}, 0});
  std::thread canceller([&] {
    std::this_thread::sleep_for(300ms);
    client.cancel();
  });
  const auto start = std::chrono::steady_clock::now();
  try {
    client.perform(reqs);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cancelled"), std::string::npos) << e.what();
  }
  canceller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  // The client works again afterwards.
  server.never_answer = false;
  server.values["/k"] = "ok";
  const HttpRequest again{server.url() + "/k", "", false, "k", {}, 0};
  EXPECT_EQ(text(client.perform(std::span(&again, 1)).at(0).body), "ok");
}

TEST(HttpClient, RefusedConnectionsAreRetriedThenReported) {
  int port = 0;
  {
    TinyServer gone;  // a port that nothing listens on once it closes
    port = std::stoi(gone.url().substr(gone.url().rfind(':') + 1));
  }
  HttpSettings s = quick();
  s.retries = 2;
  HttpClient client(s, "test");
  const HttpRequest req{"http://127.0.0.1:" + std::to_string(port) + "/k", "", false, "k", {}, 0};
  try {
    client.perform(std::span(&req, 1));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("after 3 attempts"), std::string::npos) << e.what();
  }
  EXPECT_EQ(client.activity().requests, 3u);
  EXPECT_EQ(client.activity().retries, 2u);
  EXPECT_EQ(client.activity().bytes_fetched, 0u);
}

}  // namespace
}  // namespace zarrgpu::store
