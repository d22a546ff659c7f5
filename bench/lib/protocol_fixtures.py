#!/usr/bin/env python3
"""Helpers for bench/compare_protocols_jmeter213.sh: the files and messages its private
servers start with (the same as tests/ftp.rs and tests/mail.rs seed), free ports, and two
tiny servers.

usage: protocol_fixtures.py free-ports N
       protocol_fixtures.py seed-ftp SERVER_ROOT LOCAL_FOLDER
       protocol_fixtures.py seed-maildir MAILDIR        (INBOX: two messages; Archive: one)
       protocol_fixtures.py http PORT    (the pages listeners/save_responses.jmx asks for)
       protocol_fixtures.py silent PORT  (accepts connections, never answers)
"""
import http.server
import os
import shutil
import socket
import sys
import time

FIRST = (b"From: Alice <alice@example.com>\r\nTo: bob@example.com\r\n"
         b"Subject: First\r\nDate: Tue, 01 Dec 2026 10:00:00 +0000\r\nMessage-ID: <1@example.com>\r\n\r\n"
         b"Hello Bob.\r\n")
SECOND = (b"From: carol@example.com\r\nTo: bob@example.com, dave@example.com\r\n"
          b"Subject: =?UTF-8?Q?Caf=C3=A9?=\r\nDate: Tue, 01 Dec 2026 11:00:00 +0000\r\nMIME-Version: 1.0\r\n"
          b"Content-Type: multipart/mixed; boundary=\"XYZ\"\r\n\r\npreamble\r\n--XYZ\r\n"
          b"Content-Type: text/plain; charset=us-ascii\r\n\r\nSee attached.\r\n--XYZ\r\n"
          b"Content-Type: application/octet-stream; name=\"a.bin\"\r\nContent-Transfer-Encoding: base64\r\n"
          b"Content-Disposition: attachment; filename=\"a.bin\"\r\n\r\ngJD+/w==\r\n--XYZ--\r\n")
ARCHIVED = (b"From: archive@example.com\r\nTo: jmxr@example.com\r\n"
            b"Subject: Archived\r\nDate: Mon, 30 Nov 2026 09:00:00 +0000\r\n\r\nOld news.\r\n")


def free_ports(n):
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    print(" ".join(str(s.getsockname()[1]) for s in sockets))
    for s in sockets:
        s.close()


def empty(folder):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)


def seed_ftp(root, local):
    empty(root)
    empty(local)
    open(os.path.join(root, "text.txt"), "wb").write(b"a\r\nb\r\nc\n")
    open(os.path.join(root, "data.bin"), "wb").write(bytes(i * 7 % 256 for i in range(3000)))
    open(os.path.join(root, "empty.txt"), "wb").write(b"")
    open(os.path.join(local, "local.bin"), "wb").write(bytes(i * 13 % 256 for i in range(1234)))


def seed_maildir(maildir):
    empty(maildir)
    for folder, messages in ((maildir, [FIRST, SECOND]), (os.path.join(maildir, ".Archive"), [ARCHIVED])):
        for sub in ("cur", "new", "tmp"):
            os.makedirs(os.path.join(folder, sub), exist_ok=True)
        for i, message in enumerate(messages):
            name = "%d.M%dP1.jmxr" % (1_700_000_000 + i, i)
            open(os.path.join(folder, "new", name), "wb").write(message)


class Pages(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if self.path == "/page":
            self.reply(200, "OK", "text/html;charset=UTF-8", b"<html>page</html>")
        elif self.path == "/moved":
            self.send_response(302, "Found")
            self.send_header("Content-Type", "text/plain; charset=UTF-8")
            self.send_header("Location", "/final")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/final":
            self.reply(200, "OK", "text/plain; charset=UTF-8", b"final text")
        else:
            self.reply(200, "OK", "application/json", b'{"n":1}')

    def reply(self, code, reason, content_type, body):
        self.send_response(code, reason)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def silent(port):
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(16)
    while True:
        time.sleep(3600)


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "free-ports":
        free_ports(int(args[0]))
    elif command == "seed-ftp":
        seed_ftp(*args)
    elif command == "seed-maildir":
        seed_maildir(args[0])
    elif command == "http":
        http.server.ThreadingHTTPServer(("127.0.0.1", int(args[0])), Pages).serve_forever()
    elif command == "silent":
        silent(int(args[0]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
