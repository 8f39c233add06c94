"""storage_options (fsspec's name) of remote stores: S3's region, endpoint_url, profile,
key, secret, token, anon; GCS's region, endpoint_url, key, secret, anon. Kept for the URL, and the URLs below it, for the rest of the
process, so that every later open of that store (a member, a reopen) signs the same way."""

from __future__ import annotations

from typing import Any

from . import _zarrgpu


def apply_storage_options(url: str, options: dict[str, Any] | None) -> None:
    if options:
        _zarrgpu.set_store_options(url, {str(k): (str(v).lower() if isinstance(v, bool) else str(v))
                                         for k, v in options.items()})
