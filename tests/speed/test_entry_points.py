"""The method registry's entry points without importlib.metadata's scan when no distribution declares any
(:mod:`sigreport.speed.entry_points`, issue 33 item 4): the same entry points either way."""

from __future__ import annotations

import importlib.metadata
import sys
from importlib.machinery import PathFinder
from pathlib import Path

import pytest

from sigreport.speed import entry_points as ep
from sigreport.stats import registry

GROUP = registry.ENTRY_POINT_GROUP


def dist_info(site: Path, name: str, text: str) -> None:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(text, encoding="utf-8")


def refuse(monkeypatch: pytest.MonkeyPatch) -> None:
    """importlib.metadata may not be asked; the finders and paths are this interpreter's own (other tests of the
    session may have left a zip file or a finder behind, which rightly sends the check to importlib.metadata)."""
    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path if not hasattr(f, "find_distributions")
                                           or f is PathFinder])
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p and Path(p).is_dir()])

    def asked(**kwargs: object) -> None:
        raise AssertionError(f"importlib.metadata was asked: {sys.path} {sys.meta_path}")

    monkeypatch.setattr(importlib.metadata, "entry_points", asked)


def test_no_distribution_declares_the_group_so_metadata_is_not_asked(monkeypatch, tmp_path):
    assert list(importlib.metadata.entry_points(group=GROUP)) == []  # this environment: no plugin installed
    dist_info(tmp_path / "site", "other", "[console_scripts]\nother = other:main\n[sigreport.methods.not]\nx = y\n")
    refuse(monkeypatch)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert ep.entry_points(GROUP) == []


def test_a_declared_plugin_is_found_as_importlib_metadata_finds_it(monkeypatch, tmp_path):
    dist_info(tmp_path / "site", "plugin", f"[console_scripts]\np = p:main\n\n[{GROUP}]\nmine = mine_module\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    got = ep.entry_points(GROUP)
    assert [(e.name, e.value) for e in got] == [("mine", "mine_module")]
    assert got == list(importlib.metadata.entry_points(group=GROUP))


def test_what_the_check_cannot_see_goes_to_importlib_metadata(monkeypatch, tmp_path):
    (tmp_path / "some.zip").write_bytes(b"PK\x05\x06" + bytes(18))  # an (empty) zip file on sys.path
    monkeypatch.syspath_prepend(str(tmp_path / "some.zip"))
    asked = []
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kw: asked.append(kw) or [])
    assert ep.entry_points(GROUP) == [] and asked == [{"group": GROUP}]


def test_the_plain_path_asks_importlib_metadata(monkeypatch):
    monkeypatch.setenv("SIGREPORT_PLAIN", "1")
    asked = []
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kw: asked.append(kw) or [])
    assert ep.entry_points(GROUP) == [] and asked == [{"group": GROUP}]


def test_the_registry_reads_its_plugins_through_it(monkeypatch):
    refuse(monkeypatch)
    registry.reset()
    try:
        assert registry.methods("pairwise")  # the built-ins, without asking importlib.metadata
    finally:
        registry.reset()
    assert "importlib.metadata" in sys.modules  # pydantic imports it anyway: only the scan is saved
