"""DVC remotes: what one machine pushes, a second machine pulls and reproduces without a model call.

A real WebDAV server (wsgidav, anonymous, on loopback) is the team's remote. The first machine runs the
smoke pipeline and pushes; the second is a `git clone` of it that pulls and runs `dvc repro`. The
response caches (data/cache/{generate,judge,augment,irac/responses}) are DVC outputs that travel with
the rest, so no stage that calls a model runs again there; with an `openai:` panel member on a loopback
server that counts requests, the second machine's run sends it none.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import threading
from pathlib import Path

import pytest
import yaml
from conftest import make_project_copy, run
from test_endpoints_reliability import CANARY, FaultServer

# Stages whose work is model calls (or training): none of them may run on the machine that pulled.
CALLING_STAGES = {"generate", "judge", "augment", "pretrain", "score"}
GIT = ["git", "-c", "user.email=t@localhost", "-c", "user.name=t"]


class WebDavServer:
    """wsgidav's filesystem provider over `root`, anonymous read/write, on 127.0.0.1 (a free port), served
    by cheroot (wsgidav's own server: it reads the chunked uploads DVC sends)."""

    def __init__(self, root: Path):
        from cheroot import wsgi
        from wsgidav.wsgidav_app import WsgiDAVApp

        root.mkdir(parents=True, exist_ok=True)
        self.root = root
        app = WsgiDAVApp({
            "provider_mapping": {"/": str(root)},
            "simple_dc": {"user_mapping": {"*": True}},
            "http_authenticator": {"domain_controller": None},
            "verbose": 0,
            "logging": {"enable": False},
            "lock_storage": True,
        })
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.httpd = wsgi.Server(("127.0.0.1", self.port), app, numthreads=8)
        self.httpd.prepare()
        self.thread = threading.Thread(target=self.httpd.serve, daemon=True)

    def url(self, folder: str) -> str:
        """A remote in a new folder of the share (a team's admin makes it once)."""
        (self.root / folder).mkdir()
        return f"webdav://127.0.0.1:{self.port}/{folder}"

    def __enter__(self) -> WebDavServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.stop()


@pytest.fixture(scope="module")
def webdav(tmp_path_factory):
    with WebDavServer(tmp_path_factory.mktemp("webdav")) as server:
        yield server


def commit_all(repo: Path, message: str) -> None:
    run(["git", "add", "-A"], repo)
    run([*GIT, "commit", "-qm", message], repo)


def push_to(repo: Path, url: str) -> None:
    """Make `url` the default remote (committed, as a team does), commit the run and push it."""
    run(["dvc", "remote", "add", "-f", "-d", "team", url], repo)
    commit_all(repo, "run")
    run(["dvc", "push"], repo)


def second_machine(repo: Path, dest: Path, *targets: str) -> Path:
    """A fresh clone: git history only, no DVC cache, no outputs; then `dvc pull` from the team remote."""
    run(["git", "clone", "-q", str(repo), str(dest)], dest.parent)
    assert not (dest / ".dvc" / "cache").exists()
    run(["dvc", "pull", *targets], dest)
    return dest


def stages_run(repro_stdout: str) -> set[str]:
    return set(re.findall(r"Running stage '([^']+)'", repro_stdout))


def calling(stages: set[str]) -> set[str]:
    return {s for s in stages if s in CALLING_STAGES or s.startswith("train_")}


def stages_in_status(repo: Path, *targets: str) -> set[str]:
    """Stages `dvc status` reports as changed (its JSON: stage name -> changes)."""
    out = run(["dvc", "status", "--json", *targets], repo).stdout
    return set(json.loads(out or "{}"))


def test_a_successful_run_compacts_the_cache_to_its_own_calls_and_a_failed_one_keeps_everything(tmp_path):
    from pipeline.backends.base import Response
    from pipeline.backends.cache import ResponseCache, compacting

    with ResponseCache(tmp_path, "g") as cache:  # what earlier runs left, in arrival order
        for key in ("k3", "old", "k1"):
            cache.put(key, Response(f"text {key}", "stop", {}))
    shard = cache.path
    (tmp_path / f".{shard.name}.abc.tmp").write_text("torn")
    (tmp_path / "gone.jsonl").write_text("")
    before = shard.read_bytes()
    with pytest.raises(RuntimeError), compacting(tmp_path):
        ResponseCache(tmp_path, "g").get("k1")
        raise RuntimeError("killed")
    assert shard.read_bytes() == before  # a failed run leaves the cache to resume from
    with compacting(tmp_path):
        cache = ResponseCache(tmp_path, "g")
        assert cache.get("k3") and cache.get("k1") and cache.get("missing") is None
        cache.put("k2", Response("text k2", "stop", {}))
    keys = [json.loads(line)["key"] for line in shard.read_text().splitlines()]
    assert keys == ["k1", "k2", "k3"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [shard.name, "index.json"]
    assert json.loads((tmp_path / "index.json").read_text())["entries"] == {shard.name: 3}
    # The same calls in another order give the same bytes.
    other = tmp_path / "other"
    with compacting(other):
        with ResponseCache(other, "g") as cache:
            for key in ("k2", "k3", "k1"):
                cache.put(key, Response(f"text {key}", "stop", {}))
    assert (other / shard.name).read_bytes() == shard.read_bytes()
    # A run that called no cached model (the rule judge) leaves an index of none, not an empty folder
    # (which DVC warns about on every run).
    with compacting(tmp_path / "none"):
        pass
    assert json.loads((tmp_path / "none" / "index.json").read_text())["entries"] == {}


@pytest.mark.slow
def test_a_clone_pulls_and_reproduces_without_running_a_calling_stage(smoke_repo: Path, webdav, tmp_path):
    first = tmp_path / "first"
    # A copy of the shared smoke run (its git history and DVC cache), so the fixture stays as it was.
    shutil.copytree(smoke_repo, first, symlinks=True)
    for cache in ("generate", "judge", "augment", "irac/responses"):
        assert (first / "data/cache" / cache).is_dir(), cache
    assert list((first / "data/cache/generate").glob("*.jsonl"))
    push_to(first, webdav.url("smoke"))
    lock = yaml.safe_load((first / "dvc.lock").read_text())["stages"]
    tracked = {out["path"] for stage in lock.values() for out in stage.get("outs", []) if "md5" in out}
    assert {"data/cache/generate", "data/cache/judge", "data/cache/augment", "data/cache/irac/responses"} <= tracked

    clone = second_machine(first, tmp_path / "second")
    # Every response the first machine paid for is there, byte for byte.
    for shard in sorted((first / "data/cache/generate").glob("*.jsonl")):
        assert (clone / "data/cache/generate" / shard.name).read_bytes() == shard.read_bytes()
    # Right after the pull, nothing upstream of a model call or of training is out of date (only outputs
    # DVC never pushes, cache: false reports and embedding caches, are missing).
    assert not calling(stages_in_status(clone))
    repro = run(["dvc", "repro"], clone)
    assert not calling(stages_run(repro.stdout)), repro.stdout
    assert "Stage 'generate' didn't change, skipping" in repro.stdout
    assert stages_in_status(clone) == set()
    # The second machine's run recorded exactly what the first did.
    assert (clone / "dvc.lock").read_text() == (first / "dvc.lock").read_text()


@pytest.mark.slow
def test_an_openai_panel_member_gets_no_request_from_the_machine_that_pulled(webdav, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)  # the key FaultServer accepts
    first = make_project_copy(tmp_path / "first", tmp_path / "local-remote")
    with FaultServer() as server:
        params = yaml.safe_load((first / "params.yaml").read_text())
        params["generate"]["panel"] = ["offline:cautious", f"openai:{server.url}|served-model"]
        (first / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
        commit_all(first, "an openai panel member")
        run(["dvc", "repro", "generate"], first)
        paid = server.calls
        assert paid > 0
        assert list((first / "data/cache/generate").glob("openai*.jsonl"))
        push_to(first, webdav.url("openai"))

        clone = second_machine(first, tmp_path / "second", "--with-deps", "generate")
        assert stages_in_status(clone, "generate") == set()
        repro = run(["dvc", "repro", "generate"], clone)
        assert server.calls == paid, f"the clone sent {server.calls - paid} requests"
        assert "generate" not in stages_run(repro.stdout)
        # Even a forced rerun of the stage is answered from the pulled cache alone.
        forced = run(["dvc", "repro", "--force", "--single-item", "generate"], clone)
        assert server.calls == paid, forced.stdout
        assert "0 backend calls" in forced.stdout
        assert stages_in_status(clone, "generate") == set()
