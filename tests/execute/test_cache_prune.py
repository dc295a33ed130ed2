"""The cache folder does not grow without end: after a build, least recently used entries go down to the
limit (``--cache-limit``), never one the build used or wrote; a hit marks its entry as used."""

from __future__ import annotations

import os
import pickle
import time
from pathlib import Path

import pytest

from sigreport.execute.cache import MAGIC, Cache, CacheError, is_own_folder


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
    stale = cache.folder / "00" / ".tmp-killed01"  # named as tempfile.mkstemp(prefix=".tmp-") names them
    stale.write_bytes(MAGIC + b"half")
    os.utime(stale, (time.time() - 2 * 86400,) * 2)
    fresh = cache.folder / "00" / ".tmp-writing"
    fresh.write_bytes(MAGIC + b"being written by another build")
    removed, _ = cache.prune(limit=size_of(cache) - 1)
    assert removed == 2 and not stale.exists() and fresh.exists()
    assert not figures.get("cc" + "d" * 62)[0] and all(cache.get(k)[0] for k in keys)


def test_cli_cache_limit_option(tmp_path):
    from sigreport.cli import _run_options, parser

    args = parser().parse_args(["build", "s.yaml", "--cache-limit", "5"])
    assert _run_options(args).cache_limit == 5 * 1024**2
    assert _run_options(parser().parse_args(["build", "s.yaml"])).cache_limit == 2 * 1024**3


# ---- the cache owns only its folder and its entries ------------------------------------------------------

OLD = time.time() - 3 * 86400


def own_entry(cache: Cache, key: str) -> Path:
    cache.put(key, b"x" * 100)
    os.utime(cache._path(key), (OLD, OLD))
    return cache._path(key)


def test_a_foreign_folder_is_refused_and_left_as_it_was(tmp_path):
    """``--cache ~/.cache`` (a folder holding other programs' files): refused, nothing written or removed."""
    home_cache = tmp_path / "dot-cache"
    (home_cache / "pip").mkdir(parents=True)
    files = {home_cache / "pip" / "wheel.pkl": b"someone's pickle", home_cache / ".tmp-abcdefgh": b"a temp file",
             home_cache / "ab" / ("ab" + "0" * 62 + ".pkl"): MAGIC + b"looks like ours, is not in our folder"}
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.utime(path, (OLD, OLD))
    before = sorted(p.relative_to(home_cache) for p in home_cache.rglob("*"))
    with pytest.raises(CacheError, match="not empty and not a sigreport cache"):
        Cache.open(home_cache, "v")
    assert sorted(p.relative_to(home_cache) for p in home_cache.rglob("*")) == before
    assert all(p.read_bytes() == data for p, data in files.items())


def test_a_new_or_empty_folder_is_tagged_and_ignored_by_git(tmp_path):
    for folder in (tmp_path / "new" / "cache", tmp_path / "empty"):
        folder.parent.mkdir(parents=True, exist_ok=True)
        if folder.name == "empty":
            folder.mkdir()
        Cache.open(folder, "v")
        assert (folder / ".gitignore").read_text() == "*\n"
        assert (folder / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55\n")
        assert is_own_folder(folder)
        Cache.open(folder, "v")  # tagged: opened again without complaint


def test_prune_removes_only_files_it_wrote(tmp_path):
    """Even with --cache-limit 0 and in its own folder, prune removes only its own entries and temporary files
    (named as it names them, starting with its header), and never follows a link out of the folder."""
    cache = Cache.open(tmp_path / "c", "v")
    own = [own_entry(cache, f"{i:02x}" + "e" * 62) for i in range(3)]
    own.append(own_entry(cache.section("figures"), "f0" + "e" * 62))
    stale = cache.folder / "00" / ".tmp-k1lled_0"
    stale.write_bytes(MAGIC)
    outside = tmp_path / "outside"
    outside.mkdir()
    foreign = {cache.folder / "notes.pkl": b"mine", cache.folder / "00" / "mine.pkl": b"mine",
               cache.folder / "01" / ("01" + "f" * 62 + ".pkl"): b"not written by sigreport",
               cache.folder / "old" / ".tmp-abcdefgh": b"",
               cache.folder / "figures" / "notes.txt": b"mine",
               outside / ("0a" + "e" * 62 + ".pkl"): MAGIC + b"an entry, but outside the cache folder"}
    for path, data in foreign.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.utime(path, (OLD, OLD))
    (cache.folder / "0a").symlink_to(outside)
    os.utime(stale, (OLD, OLD))
    removed, _ = cache.prune(limit=0)
    assert removed == len(own) + 1 and not any(p.exists() for p in [*own, stale])
    assert all(p.read_bytes() == data for p, data in foreign.items())


def test_the_key_lives_outside_the_cache_and_a_planted_pickle_never_runs(tmp_path, monkeypatch):
    """Whoever can write the cache folder cannot sign an entry: the key is the user's (mode 0600, outside the
    folder). An entry signed with the key a former sigreport kept in the folder, whose pickle would run code,
    is rejected and never loaded."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    folder = tmp_path / "c"
    cache = Cache.open(folder, "v")
    key_file = tmp_path / "config" / "sigreport" / "cache-key"
    assert key_file.stat().st_mode & 0o777 == 0o600 and key_file.read_bytes() == cache.key
    assert not [p for p in folder.rglob("*") if p.is_file() and p.read_bytes() == cache.key]
    ran = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(ran), "w"))

    planted_key = b"k" * 32
    (folder / ".key").write_bytes(planted_key)  # what a writer of the folder could know
    key = "ab" + "c" * 62
    payload = pickle.dumps(Payload())
    forged = Cache(folder, planted_key, "v")
    cache._path(key).parent.mkdir(parents=True, exist_ok=True)
    cache._path(key).write_bytes(MAGIC + forged._sign(key, payload) + payload)
    assert Cache.open(folder, "v").get(key) == (False, None)
    assert not ran.exists()


def test_a_key_others_can_read_or_a_key_inside_the_folder_is_refused(tmp_path):
    key_file = tmp_path / "config" / "key"
    Cache.open(tmp_path / "c", "v", key_file)
    key_file.chmod(0o644)
    with pytest.raises(CacheError, match="other users can read or write it"):
        Cache.open(tmp_path / "c", "v", key_file)
    key_file.write_bytes(b"short")
    key_file.chmod(0o600)
    with pytest.raises(CacheError, match="damaged"):
        Cache.open(tmp_path / "c", "v", key_file)
    with pytest.raises(CacheError, match="would hold the cache key"):
        Cache.open(tmp_path / "k", "v", tmp_path / "k" / "key")
    assert not (tmp_path / "k").exists()


def test_a_cache_of_an_earlier_version_is_taken_over(tmp_path):
    """A folder an earlier sigreport wrote (its key inside, entry subfolders): tagged, the old key removed;
    its entries (signed with that key) are recomputed, never trusted."""
    folder = tmp_path / "c"
    old = Cache(folder, b"o" * 32, "v")
    old.put("ab" + "c" * 62, "old entry")
    (folder / ".key").write_bytes(b"o" * 32)
    cache = Cache.open(folder, "v")
    assert is_own_folder(folder) and not (folder / ".key").exists()
    assert cache.get("ab" + "c" * 62) == (False, None)


def test_cli_foreign_cache_folder_is_a_user_error(cli, tmp_path):
    spec, _ = small_project(tmp_path)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("mine")
    r = cli("build", spec, "-o", tmp_path / "out", "--cache", mine)
    assert r.code == 2 and "Traceback" not in r.err and len(r.err.strip().splitlines()) == 1, r.err
    assert f"cache folder {mine}: it is not empty and not a sigreport cache" in r.err
    assert os.listdir(mine) == ["thesis.tex"] and not (tmp_path / "out").exists()


def test_a_build_refused_for_its_output_folder_creates_no_cache(cli, tmp_path):
    spec, _ = small_project(tmp_path, outputs="  dir: '.'\n")
    r = cli("build", spec)
    assert r.code == 2 and "which this build reads" in r.err
    assert not (tmp_path / ".sigreport-cache").exists()
    r = cli("build", "-q", spec, "-o", tmp_path / "out")
    assert r.code == 0 and (tmp_path / ".sigreport-cache" / "CACHEDIR.TAG").is_file()


def small_project(tmp_path: Path, outputs: str = "") -> tuple[Path, Path]:
    from conftest import GOOD_DATA, GOOD_SPEC

    (tmp_path / "scores.csv").write_text(GOOD_DATA)
    spec = tmp_path / "spec.yaml"
    spec.write_text(GOOD_SPEC + "outputs:\n  formats: [json]\n" + outputs)
    return spec, tmp_path / "scores.csv"
