"""Fetch pinned source distributions from PyPI into a cache outside the repository.

The ecosystem check, the inference evaluation and the benchmark all run on real packages
we did not write. None of their code is committed: each script names packages as
``name==version`` with the sdist's sha256, and this module downloads and unpacks them into
``$UNSENTINEL_SDIST_CACHE`` (default ``~/.cache/unsentinel/sdists``).

    from sdists import Pin, fetch
    tree = fetch(Pin("mcp-clickhouse", "0.1.0", "db089b89..."))   # -> unpacked directory

It uses PyPI's JSON simple API (PEP 691) and nothing but the standard library.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tarfile
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

INDEX = "https://pypi.org/simple/{name}/"
ACCEPT = "application/vnd.pypi.simple.v1+json"


@dataclass(frozen=True)
class Pin:
    """One sdist: ``name==version``, and the sha256 that the download must have."""

    name: str
    version: str
    sha256: str

    def __str__(self) -> str:
        return f"{self.name}=={self.version}"


def cache_dir() -> Path:
    default = Path.home() / ".cache" / "unsentinel" / "sdists"
    return Path(os.environ.get("UNSENTINEL_SDIST_CACHE", default))


def fetch(pin: Pin) -> Path:
    """The unpacked sdist of ``pin`` (downloaded and verified on first use)."""
    target = cache_dir() / f"{normalized(pin.name)}-{pin.version}"
    if (target / ".complete").exists():
        return target
    archive = download(pin)
    unpack(archive, target)
    (target / ".complete").write_text(pin.sha256)
    return target


def sdist_url(name: str, version: str) -> tuple[str, str]:
    """(url, sha256) of the sdist of ``name==version``, read from the index."""
    request = urllib.request.Request(
        INDEX.format(name=normalized(name)), headers={"Accept": ACCEPT}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        files = json.load(response)["files"]
    for entry in files:
        filename = entry["filename"]
        if is_sdist(filename) and sdist_version(filename, name) == version:
            return entry["url"], entry["hashes"]["sha256"]
    raise LookupError(f"no sdist of {name}=={version} on the index")


def download(pin: Pin) -> Path:
    url, listed = sdist_url(pin.name, pin.version)
    if listed != pin.sha256:
        raise ValueError(f"{pin}: the index lists sha256 {listed}, the pin says {pin.sha256}")
    archives = cache_dir() / "archives"
    archives.mkdir(parents=True, exist_ok=True)
    archive = archives / url.rsplit("/", 1)[-1]
    if not archive.exists() or sha256_of(archive) != pin.sha256:
        with urllib.request.urlopen(url, timeout=120) as response:
            payload = response.read()
        if hashlib.sha256(payload).hexdigest() != pin.sha256:
            raise ValueError(f"{pin}: the download does not match its sha256")
        archive.write_bytes(payload)
    return archive


def unpack(archive: Path, target: Path) -> None:
    """Unpack into ``target``, dropping the archive's single top-level folder."""
    staging = Path(tempfile.mkdtemp(dir=archive.parent))
    try:
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as bundle:
                bundle.extractall(staging)
        else:
            with tarfile.open(archive) as bundle:
                bundle.extractall(staging, filter="data")
        entries = list(staging.iterdir())
        root = entries[0] if len(entries) == 1 and entries[0].is_dir() else staging
        shutil.rmtree(target, ignore_errors=True)
        shutil.move(str(root), str(target))
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def normalized(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def is_sdist(filename: str) -> bool:
    return filename.endswith((".tar.gz", ".zip", ".tar.bz2"))


def sdist_version(filename: str, name: str) -> str:
    stem = filename.removesuffix(".tar.gz").removesuffix(".zip").removesuffix(".tar.bz2")
    prefix = normalized(name)
    if normalized(stem).startswith(prefix + "-"):
        return stem[len(prefix) + 1 :]
    return ""


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def latest_pin(name: str) -> Pin:
    """A pin for the newest sdist of ``name`` (for choosing pins; never used by a run)."""
    request = urllib.request.Request(
        INDEX.format(name=normalized(name)), headers={"Accept": ACCEPT}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        files = json.load(response)["files"]
    sdists = [entry for entry in files if is_sdist(entry["filename"]) and not entry.get("yanked")]
    if not sdists:
        raise LookupError(f"{name} has no sdist on the index")
    newest = max(sdists, key=lambda entry: entry.get("upload-time", ""))
    version = sdist_version(newest["filename"], name)
    return Pin(name, version, newest["hashes"]["sha256"])


if __name__ == "__main__":
    import sys

    for requested in sys.argv[1:]:
        pin = latest_pin(requested)
        print(f'Pin("{pin.name}", "{pin.version}", "{pin.sha256}"),')
