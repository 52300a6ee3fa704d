#!/usr/bin/env python3
"""A package index on 127.0.0.1 for the CLI tests: static files from ROOT, plus misbehaviours.

    index_server.py ROOT PORT_FILE [LOG_FILE]

Listens on a free port (written to PORT_FILE once listening) and serves:
  /json/<project>/   ROOT/json/<project>/index.json as PEP 691 JSON when the Accept header asks for
                     it (HTML otherwise is refused with 406, so a client that does not negotiate fails)
  /loop/...          a redirect to itself, forever
  /slow/...          nothing for 60 seconds
  /garbage/...       200 text/html whose body is not a page
  /trickle/...       200 text/html announcing 100 kB, sent one byte every 0.4 s (2.5 bytes/s)
  /deep/<project>/   200 PEP 691 JSON nested 2,000,000 levels deep (2 MB)
  /stall/<file>      200 announcing 10 MB, sending 64 kB, then nothing for 60 seconds
  /trickle-file/<f>  200 announcing 10 MB, sent 1,500 bytes a second (just above a 1 KiB/s stall rule:
                     two hours in all)
  anything else      the file under ROOT (404 when absent; a folder serves its index.html)
Each request's path and Authorization header presence go to LOG_FILE (one line each).
"""
import http.server
import os
import sys
import time

ROOT, PORT_FILE = sys.argv[1], sys.argv[2]
LOG = sys.argv[3] if len(sys.argv) > 3 else os.devnull
JSON_TYPE = "application/vnd.pypi.simple.v1+json"


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=ROOT, **kwargs)

    def log_message(self, *args):
        pass

    def do_GET(self):
        with open(LOG, "a") as log:
            log.write(f"GET {self.path} auth={'Authorization' in self.headers}\n")
        if self.path.startswith("/loop/"):
            self.send_response(302)
            self.send_header("Location", self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path.startswith("/slow/"):
            time.sleep(60)
        elif self.path.startswith("/trickle/"):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            for _ in range(100000):
                self.wfile.write(b"<")
                self.wfile.flush()
                time.sleep(0.4)
        elif self.path.startswith("/deep/"):
            body = b'{"meta": {"api-version": "1.0"}, "files": ' + b"[" * 2_000_000
            self.send_response(200)
            self.send_header("Content-Type", JSON_TYPE)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path.startswith("/stall/"):
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(10 << 20))
            self.end_headers()
            self.wfile.write(b"z" * 65536)
            self.wfile.flush()
            time.sleep(60)
        elif self.path.startswith("/trickle-file/"):
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(10 << 20))
            self.end_headers()
            try:
                for _ in range(600):
                    self.wfile.write(b"z" * 1500)
                    self.wfile.flush()
                    time.sleep(1)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up, as it should
        elif self.path.startswith("/garbage/"):
            body = b"\x89PNG\r\n\x1a\n this is not a package index"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path.startswith("/json/") and self.path.endswith("/"):
            path = os.path.join(ROOT, self.path.lstrip("/"), "index.json")
            if JSON_TYPE not in self.headers.get("Accept", ""):
                self.send_error(406)
            elif not os.path.exists(path):
                self.send_error(404)
            else:
                body = open(path, "rb").read()
                self.send_response(200)
                self.send_header("Content-Type", JSON_TYPE)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
        else:
            super().do_GET()


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(PORT_FILE + ".tmp", PORT_FILE)
server.serve_forever()
