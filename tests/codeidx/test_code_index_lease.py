"""Indexers sharing an ``s3://`` index take turns through a lease object in the bucket,
tested against a real S3-compatible server (moto's, on 127.0.0.1): requests are signed as
AWS signs them, one lease holder at a time, a dead holder's lease is taken over after its
ttl and the old holder then stops writing, and two indexer processes started at the same
moment lose and duplicate nothing."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from test_code_commit_conflicts import assert_each_file_once, run_unlocked_indexers
from test_code_index_concurrent import INDEXER  # the same fake-embedder indexer process

from paicli_tui.core.code.index_lease import IndexLease, IndexLeaseError, LeaseTarget
from paicli_tui.core.code.indexer import _IndexLock
from paicli_tui.core.code.s3_requests import S3Client, sha256_hex, signature_v4

EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_signature_matches_the_aws_documented_example() -> None:
    """AWS's "GET Object" example of Signature Version 4 for S3 (examplebucket, test.txt)."""
    signed, signature = signature_v4(
        method="GET", path="/test.txt", query="", payload_hash=EMPTY, region="us-east-1",
        headers={"host": "examplebucket.s3.amazonaws.com", "range": "bytes=0-9",
                 "x-amz-content-sha256": EMPTY, "x-amz-date": "20130524T000000Z"},
        secret_key="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        when=dt.datetime(2013, 5, 24, tzinfo=dt.UTC))
    assert signed == "host;range;x-amz-content-sha256;x-amz-date"
    assert signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"


def test_signature_of_a_conditional_put_matches_botocore(monkeypatch) -> None:
    auth = pytest.importorskip("botocore.auth")
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    moment = dt.datetime(2026, 12, 1, 13, 0, 0)

    class Frozen(dt.datetime):
        @classmethod
        def utcnow(cls):  # type: ignore[override]
            return moment

        @classmethod
        def now(cls, tz=None):  # type: ignore[override]
            return moment.replace(tzinfo=tz)

    monkeypatch.setattr(auth.datetime, "datetime", Frozen)
    body = b'{"owner": "ci:42"}'
    headers = {"if-none-match": "*", "content-type": "application/json",
               "x-amz-content-sha256": sha256_hex(body)}
    request = AWSRequest(method="PUT", url="http://127.0.0.1:9000/team/idx/billing%20svc.lock",
                         data=body, headers=dict(headers))
    auth.S3SigV4Auth(Credentials("AKID", "SECRET/KEY"), "s3", "eu-west-1").add_auth(request)
    signed, signature = signature_v4(
        method="PUT", path="/team/idx/billing%20svc.lock", query="", region="eu-west-1",
        headers={**headers, "host": "127.0.0.1:9000", "x-amz-date": "20261201T130000Z"},
        payload_hash=sha256_hex(body), secret_key="SECRET/KEY",
        when=moment.replace(tzinfo=dt.UTC))
    assert request.headers["Authorization"].endswith(
        f"SignedHeaders={signed}, Signature={signature}")


@pytest.mark.parametrize(("uri", "bucket", "key"), [
    ("s3://team/indexes/billing", "team", "indexes/billing.lock"),
    ("s3://team/indexes/billing/", "team", "indexes/billing.lock"),
    ("s3a://team/x", "team", "x.lock"),
])
def test_the_lease_lives_beside_the_index(uri: str, bucket: str, key: str) -> None:
    assert LeaseTarget.for_index(uri) == LeaseTarget(bucket, key)


def test_other_locations_have_no_lease(tmp_path: Path) -> None:
    assert LeaseTarget.for_index("gs://team/idx") is None
    assert LeaseTarget.for_index("/srv/index") is None
    assert _IndexLock("gs://team/idx").kind == "none"
    assert _IndexLock("/srv/index").kind == "file"
    assert "gs:// indexes have no lock" in _IndexLock("gs://team/idx").note
    keys = {"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b"}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in keys.items():
            patch.setenv(name, value)
        assert _IndexLock("s3://team/idx").kind == "lease"
        patch.delenv("AWS_SECRET_ACCESS_KEY")
        patch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "absent"))
        unlocked = _IndexLock("s3://team/idx")  # no keys anywhere (metadata service off)
        assert (unlocked.kind, unlocked.lease) == ("none", None)
        assert "needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY" in unlocked.note
    with pytest.raises(IndexLeaseError, match="a bucket and a path"):
        LeaseTarget.for_index("s3://team")


@pytest.fixture(scope="module")
def s3_server() -> dict[str, str]:
    """A local S3-compatible server; the AWS_* variables that point clients at it."""
    server_module = pytest.importorskip("moto.server", reason="moto[server] is a test dependency")
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing-secret",
           "AWS_REGION": "us-east-1", "AWS_ENDPOINT": f"http://{host}:{port}",
           "AWS_ALLOW_HTTP": "true", "AWS_EC2_METADATA_DISABLED": "true"}
    server.stop()


@pytest.fixture
def bucket(s3_server: dict[str, str]) -> str:
    name = f"team-{uuid.uuid4().hex[:10]}"
    client = S3Client(name, s3_server)
    response = client.request("PUT", "")  # CreateBucket (path style: PUT /bucket/)
    assert response.status_code == 200, response.text
    client.close()
    return name


def _lease(bucket: str, env: dict[str, str], **kw) -> IndexLease:
    return IndexLease(LeaseTarget(bucket, "indexes/proj.lock"), env, **kw)


def test_one_holder_at_a_time(bucket: str, s3_server: dict[str, str]) -> None:
    first = _lease(bucket, s3_server)
    first.acquire()
    waits: list[str] = []
    second = _lease(bucket, s3_server, timeout_s=1.0, poll_s=0.2, on_wait=waits.append)
    with pytest.raises(IndexLeaseError, match=f"another indexer \\({first.owner}\\)"):
        second.acquire()
    assert waits == [first.owner]  # told once whom it waits for
    first.release()
    third_waits: list[str] = []
    third = _lease(bucket, s3_server, timeout_s=5.0, on_wait=third_waits.append)
    with third:
        assert third_waits == []  # free at once after the release: nobody waited for
        assert third.took_over == ""
        assert S3Client(bucket, s3_server).get("indexes/proj.lock") is not None
    assert S3Client(bucket, s3_server).get("indexes/proj.lock") is None  # released


def test_a_dead_holders_lease_is_taken_over_and_the_holder_stops(bucket: str,
                                                                 s3_server) -> None:
    """The holder stalls (its keeper stops, as when the process is frozen or cut off) past
    the ttl: a waiter takes the lease over; the old holder's next renewal is refused and
    its next write step raises."""
    frozen = _lease(bucket, s3_server, ttl_s=2.0)
    frozen.acquire()
    # from the holder's last write (counted from the waiter's start, a busy machine's slow
    # start of the waiter was taken off the 2 s and the waiter seemed not to wait)
    written = time.monotonic()
    frozen._stop.set()  # the keeper thread ends: no more renewals
    frozen._keeper.join(5)
    waiter = _lease(bucket, s3_server, ttl_s=2.0, timeout_s=30, poll_s=0.3)
    waiter.acquire()
    assert 1.0 <= time.monotonic() - written < 10
    assert waiter.took_over == frozen.owner
    assert frozen.renew() is False
    with pytest.raises(IndexLeaseError, match="was lost .*another indexer took it over"):
        frozen.check()
    frozen.release()  # a lost lease is not deleted: it belongs to the waiter now
    assert S3Client(bucket, s3_server).get("indexes/proj.lock") is not None
    waiter.check()
    waiter.release()


def test_a_live_holder_keeps_its_lease_past_the_ttl(bucket: str, s3_server) -> None:
    holder = _lease(bucket, s3_server, ttl_s=2.0)
    holder.acquire()
    other = _lease(bucket, s3_server, ttl_s=2.0, timeout_s=4.5, poll_s=0.3)
    with pytest.raises(IndexLeaseError, match="another indexer"):
        other.acquire()  # 4.5 s > 2 x ttl: renewals kept it fresh
    holder.check()
    holder.release()


def test_waiters_on_a_stale_lease_take_turns(bucket: str, s3_server) -> None:
    """Four waiters at a stale lease: each gets it in turn, never two at once."""
    dead = _lease(bucket, s3_server, ttl_s=1.5)
    dead.acquire()
    dead._stop.set()
    holding: list[str] = []
    overlaps: list[tuple[str, ...]] = []
    guard = threading.Lock()

    def run() -> None:
        lease = _lease(bucket, s3_server, ttl_s=1.5, timeout_s=60, poll_s=0.2)
        with lease:
            with guard:
                holding.append(lease.owner)
                if len(holding) > 1:
                    overlaps.append(tuple(holding))
            time.sleep(0.4)
            with guard:
                holding.remove(lease.owner)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(t.is_alive() for t in threads)
    assert overlaps == []


def test_no_credentials_is_a_clear_error(bucket: str, s3_server, tmp_path: Path) -> None:
    env = {k: v for k, v in s3_server.items() if not k.startswith("AWS_SECRET")}
    env["AWS_SHARED_CREDENTIALS_FILE"] = str(tmp_path / "absent")
    with pytest.raises(IndexLeaseError, match="needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"):
        _lease(bucket, env).acquire()


def _aws_files(tmp_path: Path, credentials: str, config: str = "") -> dict[str, str]:
    (tmp_path / "credentials").write_text(credentials)
    (tmp_path / "config").write_text(config)
    return {"AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "credentials"),
            "AWS_CONFIG_FILE": str(tmp_path / "config"), "HOME": str(tmp_path),
            "AWS_EC2_METADATA_DISABLED": "true"}


@pytest.mark.parametrize(("profile", "expected_key", "expected_region"), [
    (None, "default-id", "eu-west-1"),        # no AWS_PROFILE: the default profile
    ("team", "team-id", "ap-southeast-1"),    # config names it "profile team"
    ("nobody", "", "us-east-1"),              # an unknown profile: no keys, default region
])
def test_keys_and_region_come_from_the_profile_files(tmp_path: Path, profile: str | None,
                                                     expected_key: str,
                                                     expected_region: str) -> None:
    env = _aws_files(tmp_path,
                     "[default]\naws_access_key_id = default-id\n"
                     "aws_secret_access_key = default-secret\n"
                     "[team]\naws_access_key_id = team-id\naws_secret_access_key = team-secret\n"
                     "aws_session_token = team-token\n",
                     "[default]\nregion = eu-west-1\n[profile team]\nregion = ap-southeast-1\n")
    if profile:
        env["AWS_PROFILE"] = profile
    client = S3Client("b", env)
    assert (client.access_key, client.region) == (expected_key, expected_region)
    assert client.has_credentials is bool(expected_key)


def test_environment_keys_win_over_the_profile_and_a_broken_file_is_no_keys(
        tmp_path: Path) -> None:
    env = _aws_files(tmp_path, "[default]\naws_access_key_id = file-id\n"
                               "aws_secret_access_key = file-secret\n")
    assert S3Client("b", {**env, "AWS_ACCESS_KEY_ID": "env-id",
                          "AWS_SECRET_ACCESS_KEY": "env-secret"}).access_key == "env-id"
    (tmp_path / "credentials").write_bytes(b"[default\n\xff\xfe not ini")
    assert not S3Client("b", env).has_credentials


def test_a_lease_with_profile_keys_only(bucket: str, s3_server, tmp_path: Path) -> None:
    """A team whose keys live in ~/.aws/credentials (no AWS_* keys exported) still gets the
    lease: two holders take turns against the local S3-compatible server."""
    env = {k: v for k, v in s3_server.items()
           if k not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}
    env.update(_aws_files(tmp_path, "[ci]\naws_access_key_id = testing\n"
                                    "aws_secret_access_key = testing-secret\n"))
    env["AWS_PROFILE"] = "ci"
    first = _lease(bucket, env)
    first.acquire()
    second = _lease(bucket, env, timeout_s=0.6, poll_s=0.2)
    with pytest.raises(IndexLeaseError, match="another indexer"):
        second.acquire()
    first.release()
    second.acquire()
    second.release()


def test_a_lease_with_instance_role_credentials(bucket: str, s3_server, tmp_path: Path,
                                                monkeypatch) -> None:
    """No keys in the environment or a profile, an EC2 instance role behind IMDSv2 (a fake
    one on 127.0.0.1): the indexer takes the lease with the role's temporary keys (and its
    session token), asks the metadata service once for the whole lease, and takes turns."""
    from test_code_aws_credentials import SECRET, FakeMetadata

    imds = FakeMetadata()
    try:
        env = {k: v for k, v in s3_server.items()
               if k not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                            "AWS_EC2_METADATA_DISABLED")}
        env.update({k: v for k, v in _aws_files(tmp_path, "").items()
                    if k != "AWS_EC2_METADATA_DISABLED"})
        env["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url
        first = _lease(bucket, env, ttl_s=2.0)
        first.acquire()
        assert first.client.credentials.get().source == "instance role ci-indexer"
        second = _lease(bucket, env, timeout_s=0.6, poll_s=0.2)
        with pytest.raises(IndexLeaseError, match="another indexer") as caught:
            second.acquire()
        assert SECRET not in str(caught.value)
        time.sleep(1.2)  # the keeper renews with the cached keys
        assert first.renew()
        first.release()
        assert S3Client(bucket, {**s3_server}).get("indexes/proj.lock") is None
        assert sum(r[0] == "PUT" for r in imds.requests) == 2  # one token per process-client
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_EC2_METADATA_DISABLED"):
            monkeypatch.delenv(name, raising=False)
        assert _IndexLock(f"s3://{bucket}/indexes/proj").kind == "lease"
    finally:
        imds.close()


def test_an_unreachable_store_is_a_clear_error_without_the_key(s3_server) -> None:
    env = {**s3_server, "AWS_ENDPOINT": "http://127.0.0.1:9"}  # nothing listens there
    with pytest.raises(IndexLeaseError, match="could not take the index lease") as caught:
        _lease("team", env).acquire()
    assert "testing-secret" not in str(caught.value)




@pytest.mark.slow
def test_two_indexer_processes_on_one_s3_index_lose_nothing(tmp_path: Path, paicli_home: Path,
                                                            bucket: str, s3_server,
                                                            monkeypatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for i in range(60):
        (project / f"m{i}.py").write_text(f"def f{i}(x):\n    '''Step {i}.'''\n    "
                                          f"return x + {i}\n")
    uri = f"s3://{bucket}/indexes/proj"
    (paicli_home / "config.toml").write_text(f'index_uri = "{uri}"\n')
    go = tmp_path / "go"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAICLI_", "AWS_"))}
    env.update(s3_server)
    runs = [subprocess.Popen([sys.executable, "-c", INDEXER, str(project), str(go),
                              str(paicli_home)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env) for _ in range(2)]
    time.sleep(1.5)
    go.touch()
    outputs = [r.communicate(timeout=600) for r in runs]
    assert all(r.returncode == 0 for r in runs), [o[1][-2000:] for o in outputs]
    results = sorted(o[0].split() for o in outputs)
    assert results == [["0", "60", "lease"], ["60", "60", "lease"]]  # one waited, then had
    # nothing to do
    from paicli_tui.core.code.lance_store import open_index

    for key, value in s3_server.items():
        monkeypatch.setenv(key, value)  # this process reads the index too
    tables = open_index(uri)
    rows = tables.chunks.to_arrow().to_pylist()
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)) == 60
    assert {r["path"] for r in rows} == {f"m{i}.py" for i in range(60)}
    assert S3Client(bucket, s3_server).get("indexes/proj.lock") is None  # given back


@pytest.mark.slow
def test_two_unlocked_indexers_on_one_s3_index_retry_their_conflicts(
        tmp_path: Path, paicli_home: Path, bucket: str, s3_server, monkeypatch) -> None:
    """The lease OFF (as for S3 credentials the lease cannot read, or gs:// and az://):
    before the commit-conflict retry one of the two died on a lance commit conflict; now
    both exit 0 and every file's chunks are in the index exactly once, found by a search."""
    project = tmp_path / "project"
    project.mkdir()
    for i in range(30):
        (project / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
    uri = f"s3://{bucket}/indexes/unlocked"
    (paicli_home / "config.toml").write_text(f'index_uri = "{uri}"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAICLI_", "AWS_"))}
    env.update(s3_server)
    summaries = run_unlocked_indexers(project, paicli_home, tmp_path / "go", env)
    assert [s["lock"] for s in summaries] == ["none", "none"]
    assert all(s["chunks_total"] == 30 for s in summaries)
    for key, value in s3_server.items():
        monkeypatch.setenv(key, value)  # this process reads the index too
    from paicli_tui.config import load_settings

    assert_each_file_once(uri, load_settings({}, {"PAICLI_HOME": str(paicli_home)}),
                          project, 30)
    assert S3Client(bucket, s3_server).get("indexes/unlocked.lock") is None  # no lease taken
    print("commit conflicts retried:", [s["commit_conflicts_retried"] for s in summaries])


@pytest.mark.slow
def test_the_index_command_on_an_s3_index(tmp_path: Path, paicli_home: Path, bucket: str,
                                          s3_server) -> None:
    """`paicli-tui index` on an s3:// index: indexes under the lease, reports it in --json,
    gives it back, and a search finds the function."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "refunds.py").write_text("def issue_refund(order):\n    '''Refund an order.'''\n"
                                        "    return order.total\n")
    (paicli_home / "config.toml").write_text(f'index_uri = "s3://{bucket}/idx/refunds"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAICLI_", "AWS_"))}
    env.update(s3_server, PAICLI_HOME=str(paicli_home))
    cli = [sys.executable, "-m", "paicli_tui"]
    done = subprocess.run([*cli, "index", "--json", "--embedder", "use"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    import json

    summary = json.loads(done.stdout)
    assert (summary["lock"], summary["lock_note"], summary["files_indexed"]) == ("lease", "", 1)
    assert S3Client(bucket, s3_server).get("idx/refunds.lock") is None
    found = subprocess.run([*cli, "search", "--mode", "text", "refund"], cwd=project, env=env,
                           capture_output=True, text=True, timeout=600)
    assert found.returncode == 0, found.stderr[-2000:]
    assert "issue_refund" in found.stdout
