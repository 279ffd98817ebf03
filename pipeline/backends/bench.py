"""Throughput of the HTTP backend: responses/s against a loopback OpenAI-compatible server whose every
reply takes a fixed time (a stand-in for a served model), at several numbers of requests in flight.

    python -m pipeline.backends.bench [--latency-s 0.2] [--in-flight 1 8 64 256] [--waves 10]

With L requests in flight and latency T the ideal is L / T responses/s; the JSON (default
reports/bench/http_backend.json) gives the measured rate and its ratio to the ideal. The server runs in a
process of its own (asyncio, keep-alive) so that its work does not share the client's interpreter.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import platform
import time

from pipeline import paths
from pipeline.backends.base import Request
from pipeline.backends.openai import OpenAIGenerator
from pipeline.io import write_json

OUT = str(paths.BENCH / "http_backend.json")


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, latency: float) -> None:
    """One keep-alive connection: read a request, wait `latency`, answer a fixed chat completion."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            body = json.loads(await reader.readexactly(length))
            await asyncio.sleep(latency)
            reply = json.dumps({
                "model": body["model"],
                "choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
                "usage": {"completion_tokens": 1},
            }).encode()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n%s" % (len(reply), reply))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


def serve(latency: float, port_queue: multiprocessing.Queue) -> None:
    async def main() -> None:
        server = await asyncio.start_server(
            lambda r, w: _handle(r, w, latency), "127.0.0.1", 0, backlog=4096
        )
        port_queue.put(server.sockets[0].getsockname()[1])
        async with server:
            await server.serve_forever()

    asyncio.run(main())


def measure(url: str, in_flight: int, waves: int, latency: float) -> dict:
    gen = OpenAIGenerator(f"{url}|bench-model", concurrency=in_flight, timeout_s=60.0, max_retries=0)
    requests = [Request(f"request {i}") for i in range(in_flight * waves)]
    started = time.perf_counter()
    cpu = time.process_time()
    gen.generate(requests)
    seconds = time.perf_counter() - started
    rate = len(requests) / seconds
    ideal = in_flight / latency
    return {
        "requests": len(requests),
        "seconds": round(seconds, 4),
        "client_cpu_seconds": round(time.process_time() - cpu, 4),
        "responses_per_s": round(rate, 2),
        "ideal_per_s": round(ideal, 2),
        "ratio_to_ideal": round(rate / ideal, 4),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--latency-s", type=float, default=0.2)
    ap.add_argument("--in-flight", type=int, nargs="+", default=[1, 8, 64, 256])
    ap.add_argument("--waves", type=int, default=10, help="requests sent = waves x in-flight")
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args(argv)

    ctx = multiprocessing.get_context("spawn")
    ports: multiprocessing.Queue = ctx.Queue()
    server = ctx.Process(target=serve, args=(args.latency_s, ports), daemon=True)
    server.start()
    try:
        url = f"http://127.0.0.1:{ports.get(timeout=60)}/v1"
        measure(url, 1, 1, args.latency_s)  # warm-up: imports and the first connection
        results = {str(n): measure(url, n, args.waves, args.latency_s) for n in args.in_flight}
    finally:
        server.terminate()
        server.join()
    report = {
        "latency_s": args.latency_s,
        "waves": args.waves,
        "cpus": os.cpu_count(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "in_flight": results,
    }
    write_json(args.out, report)
    for n, r in results.items():
        print(f"{n:>4} in flight: {r['responses_per_s']:8.1f} responses/s "
              f"({r['ratio_to_ideal']:.2f} x ideal {r['ideal_per_s']:.0f}/s)")
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()
