"""aioquic peer: a small HTTP/3 server and client on aioquic, driven by
`cargo xtask interop` (see interop/peers/README.md). Our own code, modelled
on how aioquic's examples use its API.

    python peer.py server --listen 127.0.0.1:0 --cert C --key K --root DIR [--cc reno|cubic]
    python peer.py client --ca CA.pem --out FILE [--cc reno|cubic] URL

The server serves files under --root and /bytes/N (byte i = i mod 251, as
our h3-server does) and prints `listening on ADDR` once bound. The client
fetches one URL, saves the body with --out and prints
`GET URL -> STATUS, N bytes in T s, goodput G Mbit/s`; exit status 0 for
2xx, 3 otherwise, 1 on errors.
"""

import argparse
import asyncio
import os
import sys
import time
from urllib.parse import urlparse

from aioquic.asyncio import QuicConnectionProtocol, connect, serve
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import ProtocolNegotiated, QuicEvent

CHUNK = 64 * 1024
MAX_BYTES = 1 << 32


def pattern(offset: int, size: int) -> bytes:
    """Bytes offset..offset+size of the /bytes/N body (byte i = i mod 251)."""
    period = bytes(range(251))
    start = offset % 251
    reps = (start + size) // 251 + 1
    return (period * reps)[start : start + size]


class ServerProtocol(QuicConnectionProtocol):
    root = "."

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._h3 = None

    def quic_event_received(self, event: QuicEvent) -> None:
        if isinstance(event, ProtocolNegotiated) and event.alpn_protocol in H3_ALPN:
            self._h3 = H3Connection(self._quic)
        if self._h3 is None:
            return
        for ev in self._h3.handle_event(event):
            if isinstance(ev, HeadersReceived):
                self._respond(ev.stream_id, dict(ev.headers))

    def _send(self, stream_id: int, status: int, body: bytes) -> None:
        self._h3.send_headers(
            stream_id,
            [(b":status", str(status).encode()), (b"content-length", str(len(body)).encode())],
        )
        self._h3.send_data(stream_id, body, end_stream=True)
        self.transmit()

    def _respond(self, stream_id: int, headers: dict) -> None:
        method = headers.get(b":method", b"")
        path = headers.get(b":path", b"/").decode("utf-8", "replace").split("?")[0]
        if method != b"GET":
            return self._send(stream_id, 405, b"only GET\n")
        if path.startswith("/bytes/"):
            try:
                n = int(path[len("/bytes/") :])
            except ValueError:
                n = -1
            if not 0 <= n <= MAX_BYTES:
                return self._send(stream_id, 400, b"bad length\n")
            return self._send(stream_id, 200, pattern(0, n))
        # A file under the root: no `..`, no NUL, no symlink out of it.
        root = os.path.realpath(self.root)
        rel = path.lstrip("/") or "index.html"
        if "\0" in rel or ".." in rel.split("/"):
            return self._send(stream_id, 400, b"bad path\n")
        full = os.path.realpath(os.path.join(root, rel))
        if not full.startswith(root + os.sep) or not os.path.isfile(full):
            return self._send(stream_id, 404, b"not found\n")
        with open(full, "rb") as f:
            self._send(stream_id, 200, f.read())


class ClientProtocol(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._h3 = H3Connection(self._quic)
        self._waiters = {}

    async def get(self, url: str, sink) -> tuple:
        u = urlparse(url)
        stream_id = self._quic.get_next_available_stream_id()
        done = self._loop.create_future()
        self._waiters[stream_id] = {"done": done, "status": None, "bytes": 0, "sink": sink}
        self._h3.send_headers(
            stream_id,
            [
                (b":method", b"GET"),
                (b":scheme", b"https"),
                (b":authority", u.netloc.encode()),
                (b":path", (u.path or "/").encode()),
                (b"user-agent", b"quiche-vegas-interop-aioquic"),
            ],
            end_stream=True,
        )
        self.transmit()
        await done
        w = self._waiters.pop(stream_id)
        return w["status"], w["bytes"]

    def quic_event_received(self, event: QuicEvent) -> None:
        for ev in self._h3.handle_event(event):
            w = self._waiters.get(getattr(ev, "stream_id", None))
            if w is None:
                continue
            if isinstance(ev, HeadersReceived):
                w["status"] = int(dict(ev.headers).get(b":status", b"0"))
            elif isinstance(ev, DataReceived):
                w["bytes"] += len(ev.data)
                if w["sink"] is not None:
                    w["sink"].write(ev.data)
            if getattr(ev, "stream_ended", False) and not w["done"].done():
                w["done"].set_result(None)


async def run_server(args) -> None:
    cfg = QuicConfiguration(
        is_client=False,
        alpn_protocols=H3_ALPN,
        congestion_control_algorithm=args.cc,
        max_datagram_frame_size=None,
        idle_timeout=30.0,
    )
    cfg.load_cert_chain(args.cert, args.key)
    ServerProtocol.root = args.root
    host, port = args.listen.rsplit(":", 1)
    server = await serve(host, int(port), configuration=cfg, create_protocol=ServerProtocol)
    addr = server._transport.get_extra_info("sockname")
    print(f"listening on {addr[0]}:{addr[1]}", flush=True)
    await asyncio.sleep(args.max_seconds)
    server.close()


async def run_client(args) -> int:
    u = urlparse(args.url)
    cfg = QuicConfiguration(
        is_client=True,
        alpn_protocols=H3_ALPN,
        congestion_control_algorithm=args.cc,
        server_name=u.hostname,
        idle_timeout=30.0,
    )
    if args.ca:
        cfg.load_verify_locations(args.ca)
    sink = open(args.out, "wb") if args.out else None
    try:
        start = time.monotonic()
        async with connect(
            u.hostname, u.port or 443, configuration=cfg, create_protocol=ClientProtocol
        ) as client:
            status, n = await client.get(args.url, sink)
            secs = max(time.monotonic() - start, 1e-9)
            print(
                f"GET {args.url} -> {status}, {n} bytes in {secs:.3f} s, "
                f"goodput {n * 8 / secs / 1e6:.2f} Mbit/s",
                flush=True,
            )
            client.close()
    finally:
        if sink is not None:
            sink.close()
    return 0 if status is not None and 200 <= status < 300 else 3


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("server")
    s.add_argument("--listen", default="127.0.0.1:0")
    s.add_argument("--cert", default="examples/certs/chain.pem")
    s.add_argument("--key", default="examples/certs/key.pem")
    s.add_argument("--root", default=".")
    s.add_argument("--cc", default="reno", choices=["reno", "cubic"])
    s.add_argument("--max-seconds", type=float, default=600.0)
    c = sub.add_parser("client")
    c.add_argument("url")
    c.add_argument("--ca")
    c.add_argument("--out")
    c.add_argument("--cc", default="reno", choices=["reno", "cubic"])
    c.add_argument("--timeout-s", type=float, default=120.0)
    args = p.parse_args()
    try:
        if args.cmd == "server":
            asyncio.run(run_server(args))
            return 0
        return asyncio.run(asyncio.wait_for(run_client(args), args.timeout_s))
    except (asyncio.TimeoutError, TimeoutError):
        print("aioquic peer: error: timed out", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    except Exception as e:  # noqa: BLE001 - one line for the xtask
        print(f"aioquic peer: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
