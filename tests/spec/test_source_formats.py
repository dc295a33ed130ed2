"""Input formats declare themselves (sigreport.spec.sources): adding one is a module and a registry line.

A toy format, written here as a plugin would write it (its model, default metrics, path fields and reader in
one module), is registered in the registry for one test; the spec then validates it, names it among the
allowed formats, puts it in the JSON Schema, and the data layer reads it through the reader it names, giving
the analyses the same long table gives.
"""

from __future__ import annotations

import importlib
import json
import textwrap

import pytest

import sigreport
from sigreport import spec as spec_module
from sigreport.errors import SpecError
from sigreport.spec import FORMATS, SourceFormat

TOY_MODULE = '''
"""A toy input format: lines "system item value", one corpus, one metric named by the spec."""
from typing import Literal

from pydantic import Field

from sigreport.spec.base import _Model
from sigreport.spec.sources.declaration import SourceFormat


class ToySource(_Model):
    format: Literal["toy"]
    path: str = Field(description="The lines file.")
    metric: str = Field("score", min_length=1, description="The metric's name.")


def read_toy(sf, source):
    import pandas as pd

    from sigreport.data.tables import frame_table

    rows = [line.split() for line in sf.resolve(source.path).read_text().splitlines() if line.strip()]
    frame = pd.DataFrame([{"system": s, "corpus": "toy", "item": i, "metric": source.metric, "value": float(v)}
                          for s, i, v in rows])
    return frame_table(frame, "data.scores"), {"format": "toy", "lines": len(rows)}


FORMAT = SourceFormat(name="toy", model=ToySource, reader="toy_format:read_toy", path_fields=("path",),
                      default_metrics=lambda raw: {str(raw.get("metric", "score")): {"higher_is_better": True,
                                                                                     "decimals": 3}})
'''

SCORES = {"A": [0.61, 0.72, 0.55, 0.80, 0.67, 0.71, 0.59, 0.74], "B": [0.58, 0.70, 0.51, 0.77, 0.69, 0.65, 0.52, 0.73]}


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy format registered for one test (the registry and the models restored after it)."""
    (tmp_path / "toy_format.py").write_text(TOY_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("toy_format")
    monkeypatch.setitem(FORMATS, "toy", module.FORMAT)  # the one registry line
    spec_module.rebuild_scores_source()
    yield module.FORMAT
    monkeypatch.undo()
    spec_module.rebuild_scores_source()
    assert "toy" not in FORMATS


def toy_spec(path: str = "scores.txt") -> dict:
    return {"title": "toy", "data": {"scores": {"format": "toy", "path": path, "metric": "acc"}}}


def test_a_registered_format_validates_reads_and_is_in_the_schema(toy, tmp_path):
    lines = [f"{s} q{i} {v}" for s, values in SCORES.items() for i, v in enumerate(values)]
    (tmp_path / "scores.txt").write_text("\n".join(lines) + "\n")
    sf = sigreport.load_spec(toy_spec(), base_dir=tmp_path)
    assert sf.spec.data.source.format == "toy" and type(sf.spec.data.source) is toy.model
    assert sf.spec.metrics["acc"].higher_is_better  # its default metrics, from the declaration
    assert sf.spec.data.named_files() == ["scores.txt"]  # its path fields
    schema = spec_module.json_schema()
    assert "ToySource" in schema["$defs"]
    assert {"$ref": "#/$defs/ToySource"} in schema["$defs"]["DataSpec"]["properties"]["scores"]["anyOf"][0]["oneOf"]

    from sigreport.data.sources import read_source

    source = read_source(sf)
    assert source.info == {"format": "toy", "lines": 16}
    long = tmp_path / "long.csv"
    long.write_text("system,corpus,item,metric,value\n" + "".join(
        f"{s},toy,q{i},acc,{v}\n" for s, values in SCORES.items() for i, v in enumerate(values)))
    as_table = {**toy_spec(), "data": {"scores": "long.csv"}, "metrics": {"acc": {"higher_is_better": True,
                                                                                  "decimals": 3}}}
    got = sigreport.analyze(sf).to_dict()["analyses"]
    assert got and got == sigreport.analyze(sigreport.load_spec(as_table, base_dir=tmp_path)).to_dict()["analyses"]


def test_an_unknown_format_is_refused_naming_every_declared_one(toy):
    with pytest.raises(SpecError) as err:
        sigreport.load_spec({**toy_spec(), "data": {"scores": {"format": "toyy", "path": "x"}}})
    message = str(err.value)
    assert "data.scores" in message and "toyy" not in FORMATS
    assert "format: " + ", ".join(FORMATS) in message and ", toy" in message  # the allowed names, derived


def test_an_unregistered_format_is_refused_again(toy):
    FORMATS.pop("toy")
    spec_module.rebuild_scores_source()
    with pytest.raises(SpecError, match="expected a file name or a mapping with format: table, text, trec"):
        sigreport.load_spec(toy_spec())
    assert "ToySource" not in json.dumps(spec_module.json_schema())
    FORMATS["toy"] = toy  # for the fixture's undo


def test_the_dispatch_refuses_a_format_it_has_no_declaration_for():
    from sigreport.data.sources import format_declaration

    with pytest.raises(ValueError, match="unknown input format 'toy'; allowed: table, text, trec, lm_eval, inspect, helm"):
        format_declaration("toy")


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_declaration_is_complete_and_its_reader_exists(name):
    """Each built-in format: its model's format is its name, its path fields are fields of its model, and its
    reader resolves to a function of the data layer."""
    from sigreport.data.sources import reader_of

    declaration = FORMATS[name]
    assert isinstance(declaration, SourceFormat)
    assert set(declaration.path_fields) <= set(declaration.model.model_fields)
    assert declaration.reader.startswith("sigreport.data.sources.") and callable(reader_of(declaration))
    assert isinstance(declaration.default_metrics({"format": name}), dict)


def test_a_declaration_whose_model_is_not_its_format_is_refused(toy):
    with pytest.raises(ValueError, match=r"format field must be Literal\['other'\]"):
        SourceFormat(name="other", model=toy.model, reader="m:f", path_fields=(), default_metrics=dict)
    with pytest.raises(ValueError, match="is not 'package.module:function'"):
        SourceFormat(name="toy", model=toy.model, reader="m.f", path_fields=(), default_metrics=dict)


def test_the_spec_imports_no_data_layer_numpy_or_pandas():
    import subprocess
    import sys

    code = textwrap.dedent("""
        import sys
        import sigreport.spec
        print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'pandas')
                     or m.startswith('sigreport.data')))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
