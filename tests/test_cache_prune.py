"""The cache folder does not grow without end: after a build, least recently used entries go down to the
limit (``--cache-limit``), never one the build used or wrote; a hit marks its entry as used."""

from __future__ import annotations

import os
import time
from pathlib import Path

from sigreport.execute.cache import Cache


def filled(tmp_path: Path, n: int = 6, size: int = 1000) -> tuple[Cache, list[str]]:
    cache = Cache.open(tmp_path / "c", "v")
    keys = [f"{i:02d}" + "a" * 62 for i in range(n)]
    for i, key in enumerate(keys):  # entry i last used n - i hours ago: key 0 is the oldest
        cache.put(key, b"x" * size)
        os.utime(cache._path(key), (time.time() - 3600 * (n - i),) * 2)
    return cache, keys


def size_of(cache: Cache) -> int:
    return sum(p.stat().st_size for p in cache.folder.rglob("*.pkl"))


def test_prune_removes_least_recently_used_first_down_to_the_limit(tmp_path):
    cache, keys = filled(tmp_path)
    entry = size_of(cache) // len(keys)
    removed, freed = cache.prune(limit=3 * entry)
    assert (removed, freed) == (3, 3 * entry)
    assert [cache.get(k)[0] for k in keys] == [False] * 3 + [True] * 3  # the three oldest are gone


def test_a_hit_counts_as_a_use(tmp_path):
    cache, keys = filled(tmp_path)
    entry = size_of(cache) // len(keys)
    assert cache.get(keys[0])[0]  # the oldest entry, used now
    cache.prune(limit=entry)
    assert cache.get(keys[0])[0] and not any(cache.get(k)[0] for k in keys[1:])


def test_prune_never_removes_what_this_build_used_even_over_the_limit(tmp_path):
    cache, keys = filled(tmp_path)
    since = time.time() - 1
    cache.get(keys[1])
    cache.put("ff" + "b" * 62, b"new")
    cache.prune(limit=0, since=since)
    assert cache.get(keys[1])[0] and cache.get("ff" + "b" * 62)[0]
    assert not any(cache.get(k)[0] for k in keys if k != keys[1])


def test_prune_covers_sections_and_old_temporary_files(tmp_path):
    cache, keys = filled(tmp_path, n=2)
    figures = cache.section("figures")
    figures.put("cc" + "d" * 62, b"figure")
    os.utime(figures._path("cc" + "d" * 62), (time.time() - 86400 * 10,) * 2)
    stale = cache.folder / "00" / ".tmp-killed"
    stale.write_bytes(b"half")
    os.utime(stale, (time.time() - 2 * 86400,) * 2)
    fresh = cache.folder / "00" / ".tmp-writing"
    fresh.write_bytes(b"being written by another build")
    removed, _ = cache.prune(limit=size_of(cache) - 1)
    assert removed == 2 and not stale.exists() and fresh.exists()
    assert not figures.get("cc" + "d" * 62)[0] and all(cache.get(k)[0] for k in keys)


def test_cli_cache_limit_option(tmp_path):
    from sigreport.cli import _run_options, parser

    args = parser().parse_args(["build", "s.yaml", "--cache-limit", "5"])
    assert _run_options(args).cache_limit == 5 * 1024**2
    assert _run_options(parser().parse_args(["build", "s.yaml"])).cache_limit == 2 * 1024**3
