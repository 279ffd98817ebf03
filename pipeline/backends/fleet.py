"""The base URLs behind one panel member: which one takes the next request, and how fast each may be called.

A panel member may name several servers of the same model (a vLLM fleet without a router in front).
Each request goes to the least-loaded one (fewest requests in flight, ties in turn) or strictly in
turn; an optional per-server rate limit spaces the requests sent to each one.
Everything here runs on one event loop, so plain counters need no locks.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Sequence

ROUTINGS = ("least_loaded", "round_robin")


class Pacer:
    """At most `rate` requests per second (0: no limit), spaced evenly rather than in bursts."""

    def __init__(self, rate: float):
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self._next = 0.0

    async def wait(self) -> None:
        if not self.interval:
            return
        now = asyncio.get_running_loop().time()
        # Reserve the next free slot before sleeping, so concurrent callers queue behind each other.
        slot = max(now, self._next)
        self._next = slot + self.interval
        if slot > now:
            await asyncio.sleep(slot - now)


class Endpoint:
    def __init__(self, url: str, rate: float):
        self.url = url
        self.in_flight = 0
        self.pacer = Pacer(rate)


class Fleet:
    def __init__(self, urls: Sequence[str], routing: str = "least_loaded", rate: float = 0.0):
        if routing not in ROUTINGS:
            raise ValueError(f"routing must be one of {', '.join(ROUTINGS)}, got {routing!r}")
        self.endpoints = [Endpoint(u, rate) for u in urls]
        self.routing = routing
        self._turn = itertools.count()

    def pick(self) -> Endpoint:
        turn = next(self._turn)
        n = len(self.endpoints)
        if self.routing == "round_robin" or n == 1:
            return self.endpoints[turn % n]
        # Least loaded; scanning from a rotating start spreads ties instead of always favouring the first.
        order = [self.endpoints[(turn + i) % n] for i in range(n)]
        return min(order, key=lambda e: e.in_flight)

    @contextlib.asynccontextmanager
    async def use(self) -> AsyncIterator[Endpoint]:
        """Pick an endpoint, wait for its rate limit, and count the request as in flight there."""
        endpoint = self.pick()
        endpoint.in_flight += 1
        try:
            await endpoint.pacer.wait()
            yield endpoint
        finally:
            endpoint.in_flight -= 1
