"""A stage on several processes: relaunch under a launcher, rank helpers, sharding and gathering.

With `<stage>.launch.num_processes` = 1 (the default) nothing here starts a process or touches
torch.distributed. With N > 1 the stage's main calls `relaunch_if_needed` first: outside a launcher (no
WORLD_SIZE / LOCAL_RANK in the environment) it runs the same module with the same arguments N times,
under `accelerate launch` (when CUDA is there, or a config file is given) or under torchrun on CPU
(gloo), waits, and returns True; the caller then returns. Under the launcher every rank runs main
itself, does its share, and rank 0 alone writes the outputs.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

LAUNCHER_ENV = ("WORLD_SIZE", "LOCAL_RANK")


# ------------------------------------------------------------------------------------------- ranks
def world_size() -> int:
    return int(os.environ.get("WORLD_SIZE", "1"))


def rank() -> int:
    return int(os.environ.get("RANK", "0"))


def local_rank() -> int:
    return int(os.environ.get("LOCAL_RANK", "0"))


def is_main() -> bool:
    """Whether this process writes the stage's outputs (rank 0, or the only process)."""
    return rank() == 0


def under_launcher() -> bool:
    return any(name in os.environ for name in LAUNCHER_ENV)


def bind_device() -> None:
    """Under a launcher on CUDA, make "cuda" mean this rank's own GPU (before any model is loaded, so
    that N ranks do not all load onto GPU 0)."""
    import torch

    if under_launcher() and torch.cuda.is_available():
        torch.cuda.set_device(local_rank() % torch.cuda.device_count())


def split_batch(batch_size: int, grad_accum: int, processes: int) -> tuple[int, int] | None:
    """(pairs per rank per micro-step, micro-steps per optimizer step) that keep the global batch
    batch_size x grad_accum of params on `processes` ranks, or None when no such split exists.

    With g = gcd(processes, batch_size): each rank takes batch_size / g pairs a micro-step and
    accumulates grad_accum * g / processes micro-steps. So when processes divides batch_size, the rank's
    batch is batch_size / processes and grad_accum is kept; otherwise processes / g must divide
    grad_accum (8 ranks, batch 4 x accum 4: 1 pair x 2 micro-steps each)."""
    g = math.gcd(processes, batch_size)
    if grad_accum % (processes // g):
        return None
    return batch_size // g, grad_accum * g // processes


def per_device(batch_size: int, grad_accum: int, processes: int) -> tuple[int, int]:
    """split_batch, or a ParamsError saying what would work."""
    split = split_batch(batch_size, grad_accum, processes)
    if split is None:
        from pipeline.params import ParamsError

        raise ParamsError(
            f"train.launch.num_processes: {processes} processes cannot share the global batch train.batch_size "
            f"x train.grad_accum = {batch_size} x {grad_accum} (allowed: a divisor of train.batch_size, or "
            f"p with p / gcd(p, batch_size) dividing train.grad_accum)")
    return split


# ---------------------------------------------------------------------------------------- relaunch
def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _config_sets_port(config_file: str) -> bool:
    import yaml

    data = yaml.safe_load(Path(config_file).read_text(encoding="utf-8")) or {}
    return data.get("main_process_port") is not None


def launch_command(module: str, argv: Sequence[str], num_processes: int, config_file: str | None,
                   cuda: bool, port: int) -> list[str]:
    """The command that runs `python -m module argv` on `num_processes` ranks."""
    if config_file is not None or cuda:
        cmd = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", str(num_processes)]
        if config_file is not None:
            cmd += ["--config_file", config_file]
        else:
            cmd += ["--multi_gpu", "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no"]
        if config_file is None or not _config_sets_port(config_file):
            cmd += ["--main_process_port", str(port)]
        return [*cmd, "-m", module, *argv]
    # accelerate's CPU launcher starts one process unless given an MPI hostfile. torchrun's command line
    # cannot take the train stage's --run (an ambiguous prefix of its --run-path), so the CPU ranks are
    # started by this module's own entry point, torchrun's launcher API (`elastic_launch`, below).
    return [sys.executable, "-m", "pipeline.distributed", str(num_processes), "-m", module, *argv]


def relaunch_if_needed(module: str, argv: Sequence[str] | None, launch: Any) -> bool:
    """Run `module` on launch.num_processes ranks if that is > 1 and this process is not one of them yet;
    True when it did (the caller returns: the ranks did the work). Exits with the ranks' status when one
    of them failed (each rank has printed its own message)."""
    n = launch.num_processes
    if n <= 1 or under_launcher():
        return False
    import torch

    if launch.config_file is not None and not Path(launch.config_file).is_file():
        from pipeline.params import ParamsError

        raise ParamsError(f"launch.config_file: {launch.config_file!r} is not a file (allowed: an accelerate "
                          "config YAML such as params/accelerate/ddp.yaml, or null)")
    argv = list(sys.argv[1:] if argv is None else argv)
    cmd = launch_command(module, argv, n, launch.config_file, torch.cuda.is_available(), _free_port())
    env = dict(os.environ)
    if not torch.cuda.is_available():
        # N ranks share the cores; without this each would start one thread per core.
        env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // n)))
    log.info("%s on %d processes: %s", module, n, " ".join(cmd))
    status = subprocess.run(cmd, env=env).returncode
    if status != 0:
        stage = module.rsplit(".", 1)[-1]
        sys.exit(f"{stage}: error: a rank of the {n}-process run failed (exit status {status}); its message is "
                 "above")
    return True


# --------------------------------------------------------------------------------- shard and gather
def shard(n: int, rank: int, world: int) -> list[int]:
    """Indices 0..n-1 of `rank`, strided (rank, rank + world, ...); every index on exactly one rank."""
    return list(range(rank, n, world))


def balanced_shards(costs: Sequence[float], world: int) -> list[list[int]]:
    """Units 0..len(costs)-1 spread over `world` ranks, largest first onto the least-loaded rank (ties by
    rank); each rank's list is in unit order. Deterministic: every rank computes the same split."""
    loads = [0.0] * world
    shards: list[list[int]] = [[] for _ in range(world)]
    for unit in sorted(range(len(costs)), key=lambda u: (-costs[u], u)):
        target = min(range(world), key=lambda r: (loads[r], r))
        loads[target] += costs[unit]
        shards[target].append(unit)
    return [sorted(s) for s in shards]


def unshard(parts: Sequence[Sequence[Any]], indices: Sequence[Sequence[int]], n: int) -> list[Any]:
    """Items back in index order: parts[r][j] is the item of index indices[r][j]; every index 0..n-1 must
    come exactly once."""
    out: list[Any] = [None] * n
    seen = [False] * n
    for part, idx in zip(parts, indices, strict=True):
        if len(part) != len(idx):
            raise ValueError(f"a rank returned {len(part)} items for {len(idx)} indices")
        for item, i in zip(part, idx, strict=True):
            if seen[i]:
                raise ValueError(f"index {i} came back twice")
            seen[i], out[i] = True, item
    missing = [i for i, s in enumerate(seen) if not s]
    if missing:
        raise ValueError(f"{len(missing)} indices never came back (first: {missing[0]})")
    return out


class ProcessGroup:
    """torch.distributed on gloo for the object exchange of a stage's ranks (CPU tensors, so it works
    beside CUDA too); a context manager that does nothing on one process."""

    def __enter__(self) -> ProcessGroup:
        import torch.distributed as dist

        self.owned = under_launcher() and world_size() > 1 and not dist.is_initialized()
        if self.owned:
            dist.init_process_group("gloo")
        return self

    def __exit__(self, *exc) -> None:
        if self.owned:
            import torch.distributed as dist

            dist.destroy_process_group()


def gather_to_main(obj: Any) -> list[Any] | None:
    """Every rank's `obj`, in rank order, on rank 0 (None on the others); [obj] on one process."""
    if world_size() == 1:
        return [obj]
    import torch.distributed as dist

    out: list[Any] | None = [None] * world_size() if is_main() else None
    dist.gather_object(obj, out, dst=0)
    return out


# ------------------------------------------------------------------------------- CPU launcher entry
def _launch_cpu(num_processes: int, args: Sequence[str]) -> int:
    """`python -m pipeline.distributed N -m <module> <args>`: N local ranks of `python <args>` through
    torchrun's launcher API (standalone rendezvous on a free port, no restarts); the exit status."""
    import uuid

    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.launcher.api import LaunchConfig, elastic_launch

    config = LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=num_processes, run_id=str(uuid.uuid4()),
                          rdzv_backend="c10d", rdzv_endpoint=f"127.0.0.1:{_free_port()}", max_restarts=0,
                          monitor_interval=0.2)
    try:
        elastic_launch(config, entrypoint=sys.executable)(*args)
    except ChildFailedError:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_launch_cpu(int(sys.argv[1]), sys.argv[2:]))
