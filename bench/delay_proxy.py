"""A TCP proxy that delays everything a client sends by a fixed time before passing it on: a database on
another host, for the benchmarks (each statement's round trip gets `--delay-ms` longer). The bytes and
their order are kept; the answers come back at once.

    python bench/delay_proxy.py --listen 54321 --to 127.0.0.1:5432 --delay-ms 2
"""

import argparse
import asyncio
import contextlib
import time


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
    """Copy reader to writer, each chunk `delay` seconds after it arrived (in order: a later chunk never
    overtakes, and chunks that arrived together leave together)."""
    queue: asyncio.Queue = asyncio.Queue()

    async def send() -> None:
        while True:
            due, chunk = await queue.get()
            if chunk is None:
                break
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(chunk)
            await writer.drain()
        writer.close()

    sender = asyncio.create_task(send())
    try:
        while chunk := await reader.read(65536):
            queue.put_nowait((time.monotonic() + delay, chunk))
    except ConnectionError:
        pass
    queue.put_nowait((0.0, None))
    with contextlib.suppress(ConnectionError):
        await sender


async def serve(listen: int, host: str, port: int, delay: float) -> None:
    async def connection(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(host, port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(
            pipe(client_reader, server_writer, delay), pipe(server_reader, client_writer, 0.0), return_exceptions=True
        )

    server = await asyncio.start_server(connection, "127.0.0.1", listen)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--to", required=True, help="host:port")
    parser.add_argument("--delay-ms", type=float, default=2.0)
    args = parser.parse_args()
    host, port = args.to.rsplit(":", 1)
    try:
        import uvloop

        uvloop.install()  # the same event loop as the workers': the proxy's own cost stays small
    except ImportError:
        pass
    asyncio.run(serve(args.listen, host, int(port), args.delay_ms / 1000))


if __name__ == "__main__":
    main()
