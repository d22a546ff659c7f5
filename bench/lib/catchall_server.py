#!/usr/bin/env python3
"""A catch-all HTTP/1.1 server for side-by-side runs: it listens on 127.0.0.1 on every
port given, answers every request with the same small page, and logs each request exactly
as it arrived (request line, header lines, body) as one JSON line.

A connection whose first byte is a TLS handshake is served over TLS with the certificate
given (load tools trust any certificate), so one port list covers http and https.

A request whose body does not arrive (a Content-Length the client never fills) is logged
with what came before the read timed out, marked "incomplete", and answered anyway.

usage: catchall_server.py --ports 80,443,8080 --log requests.jsonl [--cert c.pem --key k.pem]
The server prints "ready" once every port listens, then runs until killed.
"""
import argparse
import base64
import json
import socket
import ssl
import sys
import threading
import time

HEAD_LIMIT = 1 << 20
BODY_WAIT = 2.0
IDLE_WAIT = 30.0
PAGE = b"<html><body>catch-all</body></html>"

log_lock = threading.Lock()
connection_numbers = iter(range(1, 1 << 62))


def log(out, record):
    line = json.dumps(record, sort_keys=True)
    with log_lock:
        out.write(line + "\n")
        out.flush()


def read_head(sock, buffered):
    """Bytes up to and including the blank line, and what followed; None at end."""
    data = buffered
    while b"\r\n\r\n" not in data:
        if len(data) > HEAD_LIMIT:
            return data, b""
        chunk = sock.recv(65536)
        if not chunk:
            return (data, b"") if data else None
        data += chunk
    end = data.index(b"\r\n\r\n") + 4
    return data[:end], data[end:]


def header_values(head, name):
    values = []
    for line in head.split(b"\r\n")[1:]:
        key, sep, value = line.partition(b":")
        if sep and key.strip().lower() == name:
            values.append(value.strip())
    return values


def read_exactly(sock, buffered, length):
    """(body, rest, complete) reading up to `length` bytes, waiting at most BODY_WAIT."""
    data = buffered
    sock.settimeout(BODY_WAIT)
    try:
        while len(data) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except (socket.timeout, ssl.SSLError):
        pass
    finally:
        sock.settimeout(IDLE_WAIT)
    return data[:length], data[length:], len(data) >= length


def read_chunked(sock, buffered):
    """(raw chunked body, rest, complete)."""
    data = buffered
    sock.settimeout(BODY_WAIT)
    try:
        while True:
            # The body ends with the zero-size chunk and the blank line after it.
            position = 0
            while True:
                line_end = data.find(b"\r\n", position)
                if line_end < 0:
                    break
                size = int(data[position:line_end].split(b";")[0] or b"0", 16)
                if size == 0:
                    trailer_end = data.find(b"\r\n", line_end + 2)
                    if trailer_end >= 0:
                        return data[: trailer_end + 2], data[trailer_end + 2 :], True
                    break
                position = line_end + 2 + size + 2
                if position > len(data):
                    break
            chunk = sock.recv(65536)
            if not chunk:
                return data, b"", False
            data += chunk
    except (socket.timeout, ssl.SSLError, ValueError):
        return data, b"", False
    finally:
        sock.settimeout(IDLE_WAIT)


def serve_connection(sock, port, tls_context, out):
    number = next(connection_numbers)
    tls = False
    try:
        sock.settimeout(IDLE_WAIT)
        first = sock.recv(1, socket.MSG_PEEK)
        if first[:1] == b"\x16" and tls_context is not None:
            sock = tls_context.wrap_socket(sock, server_side=True)
            sock.settimeout(IDLE_WAIT)
            tls = True
        buffered = b""
        sequence = 0
        while True:
            got = read_head(sock, buffered)
            if got is None:
                return
            head, buffered = got
            sequence += 1
            lengths = header_values(head, b"content-length")
            chunked = any(b"chunked" in v.lower() for v in header_values(head, b"transfer-encoding"))
            complete = True
            body = b""
            if chunked:
                body, buffered, complete = read_chunked(sock, buffered)
            elif lengths:
                try:
                    length = int(lengths[0])
                except ValueError:
                    length = 0
                body, buffered, complete = read_exactly(sock, buffered, length)
            log(out, {
                "port": port,
                "tls": tls,
                "connection": number,
                "sequence": sequence,
                "time": time.time(),
                "head": head.decode("latin-1"),
                "body_b64": base64.b64encode(body).decode("ascii"),
                "incomplete": not complete,
            })
            close = any(v.lower() == b"close" for v in header_values(head, b"connection"))
            reply = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=UTF-8\r\n"
                     b"Content-Length: " + str(len(PAGE)).encode() + b"\r\n"
                     + (b"Connection: close\r\n" if close or not complete else b"")
                     + b"\r\n" + PAGE)
            sock.sendall(reply)
            if close or not complete:
                return
    except (OSError, ssl.SSLError):
        return
    finally:
        try:
            sock.close()
        except OSError:
            pass


def listen(port, tls_context, out, ready):
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(256)
    ready.release()
    while True:
        client, _ = server.accept()
        threading.Thread(target=serve_connection, args=(client, port, tls_context, out),
                         daemon=True).start()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ports", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    args = parser.parse_args()
    ports = sorted({int(p) for p in args.ports.split(",") if p.strip()})
    tls_context = None
    if args.cert and args.key:
        tls_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls_context.load_cert_chain(args.cert, args.key)
    out = open(args.log, "a", encoding="utf-8")
    ready = threading.Semaphore(0)
    for port in ports:
        threading.Thread(target=listen, args=(port, tls_context, out, ready), daemon=True).start()
    for _ in ports:
        ready.acquire()
    print("ready", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    sys.exit(main())
