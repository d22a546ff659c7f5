"""WebSocket echo server for jmxr's end-to-end tests, on Debian's python3-websockets.

Speaks the small command language of tests/support/ws_server.rs (the in-process
server), so the same plan runs against both:
  binary message         echoed
  "headers"              the upgrade's X-Test and Cookie headers, "X-Test: ..|Cookie: .."
  "fragments:a,b,c"      one text message sent as the frames "a", "b", "c"
  "ping-then:X"          a ping frame ("hb"), then the text X
  "noise-then:X"         the text "noise", then the text X
  "silence"              nothing
  "close:N"              a close frame with status N and reason "bye"
  any other text         echoed
The path /secure answers the upgrade with 401 unless an Authorization header is sent.

usage: ws_echo.py PORT_FILE [CERT KEY]   (writes the port it listens on to PORT_FILE)
"""
import asyncio
import http
import ssl
import sys

import websockets


async def handler(ws, path):
    headers = ws.request_headers
    async for message in ws:
        if isinstance(message, bytes):
            await ws.send(message)
        elif message == "headers":
            await ws.send("X-Test: %s|Cookie: %s" % (headers.get("X-Test", ""), headers.get("Cookie", "")))
        elif message.startswith("fragments:"):
            await ws.send(message[len("fragments:"):].split(","))
        elif message.startswith("ping-then:"):
            await ws.ping(b"hb")
            await ws.send(message[len("ping-then:"):])
        elif message.startswith("noise-then:"):
            await ws.send("noise")
            await ws.send(message[len("noise-then:"):])
        elif message == "silence":
            pass
        elif message.startswith("close:"):
            await ws.close(int(message[len("close:"):]), "bye")
        else:
            await ws.send(message)


async def process_request(path, request_headers):
    if path.startswith("/secure") and "Authorization" not in request_headers:
        return http.HTTPStatus.UNAUTHORIZED, [], b"no credentials\n"
    return None


async def main():
    context = None
    if len(sys.argv) > 3:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
    async with websockets.serve(handler, "127.0.0.1", 0, ssl=context,
                                process_request=process_request, ping_interval=None) as server:
        port = server.sockets[0].getsockname()[1]
        with open(sys.argv[1] + ".tmp", "w") as out:
            out.write(str(port))
        import os
        os.replace(sys.argv[1] + ".tmp", sys.argv[1])
        await asyncio.Future()


asyncio.run(main())
