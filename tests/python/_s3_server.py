"""An S3-compatible server for the S3 store's tests: moto's standalone server
(PyPI moto[server]) on a free loopback port, holding a bucket with a copy of the
corpus, an IAM user whose key signs requests, then with authentication on so
that every request's SigV4 signature is checked."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from _http_servers import free_port, stop_process, wait_for_port

BUCKET = "corpus"


def require_moto():
    try:
        import boto3  # noqa: F401
        import moto  # noqa: F401
    except ImportError:
        if os.environ.get("ZARRGPU_REQUIRE_SERVERS") == "1":
            pytest.fail("moto[server] is required (ZARRGPU_REQUIRE_SERVERS=1): it is in requirements-dev.txt")
        pytest.skip("moto[server] is not installed (requirements-dev.txt lists it)")


class MotoServer:
    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.key = self.secret = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.port = free_port()
        log = self.workdir / "moto.log"
        env = dict(os.environ)
        for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
            env.pop(k, None)
        with open(log, "wb") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                         stdout=out, stderr=subprocess.STDOUT, env=env)
        wait_for_port(self.port, self.proc, log, timeout=60)

    def fill(self, corpus: Path, prefix: str) -> None:
        """Creates the user and the bucket, uploads `corpus` under `prefix`, then turns authentication on."""
        import boto3

        common = dict(endpoint_url=self.url, region_name="us-east-1", aws_access_key_id="setup",
                      aws_secret_access_key="setup")
        iam = boto3.client("iam", **common)
        iam.create_user(UserName="reader")
        iam.put_user_policy(UserName="reader", PolicyName="s3", PolicyDocument=(
            '{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}'))
        created = iam.create_access_key(UserName="reader")["AccessKey"]
        self.key, self.secret = created["AccessKeyId"], created["SecretAccessKey"]
        s3 = boto3.client("s3", **common)
        s3.create_bucket(Bucket=BUCKET)
        for f in sorted(corpus.rglob("*")):
            if f.is_file() and f.suffix != ".md":
                s3.put_object(Bucket=BUCKET, Key=f"{prefix}/{f.relative_to(corpus).as_posix()}", Body=f.read_bytes())
        # From here on every request must carry a valid signature of a known key.
        urllib.request.urlopen(urllib.request.Request(f"{self.url}/moto-api/reset-auth", data=b"0", method="POST",
                                                      headers={"Content-Type": "text/plain"}))

    def stop(self) -> None:
        stop_process(self.proc)
        self.proc = None
