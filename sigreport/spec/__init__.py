"""The YAML experiment spec: pydantic models, loading, and errors that point at lines.

``load_spec(source)`` takes a spec file, YAML text or a mapping. YAML is parsed once while remembering
where every key and value stands; the models below validate it (``extra="forbid"``, frozen, strict);
cross-references are checked; and :class:`SpecError` lists every problem at once, each with its line
(when there is text) and field path. This module knows nothing of data files or statistics.

Hostile input is refused while the YAML is read, before anything walks or validates it:

- ``MAX_SPEC_BYTES`` (1 MiB): the largest spec file or text; a larger file is not even read.
- ``MAX_DEPTH`` (50): mappings and lists nested inside each other (10,000 nested ``[`` would otherwise
  exhaust Python's recursion limit).
- ``MAX_NODES`` (50,000): values in the document with every alias expanded (a "billion laughs" bomb
  of nested aliases is refused at the first level that crosses it).
- ``MAX_KEYS`` (10,000): mapping keys in the document with every alias expanded.
- ``MAX_ALIAS_USES`` (1,000): uses of any one anchor. An alias used inside the value it names
  (``a: &a [*a]``) is refused outright.

Explicit tags on values they cannot hold (``!!int x``, ``!!float abc``, ``!!timestamp abc``) and unknown
tags (``!!python/object:...``) are YAML errors with their line. Numbers in YAML 1.2 exponent form
(``1e-3``) are numbers, as a reader expects, not text as YAML 1.1 would have them.

Strict types: a number field takes a YAML number (an integer where a decimal is expected is fine; a
decimal, even ``1000.0``, is refused where a whole number is expected), a true/false field takes a YAML
boolean only, and a text field takes text only (``title: 5`` is refused: quote it). Quoted numbers
(``alpha: "0.05"``), booleans as numbers (``seed: true``) and numbers as booleans (``higher_is_better:
1``) are errors naming the field, the line, what was given and what is expected. Labels are the
exception: YAML numbers there become text (``labels: [1, 2]`` means the labels '1' and '2').
"""

from sigreport.spec.load import (MAPPING_SOURCE, TEXT_SOURCE, SpecFile, SpecSource, is_spec_path, json_schema,
                                 load_spec, load_spec_file, output_dir)
from sigreport.spec.models import (AgreementSpec, Alternative, BayesianSpec, CVMethod, ClassificationSpec,
                                   ColumnsSpec, Correction, DataSpec, Family, FigureKind, FigureStyleSpec, Format,
                                   HtmlSpec, LabelColumnsSpec, LatexSpec, MainTableSpec, McNemarVariant, MetricSpec,
                                   OmnibusMethod,
                                   OutcomesSource, OutcomesSpec, OutputsSpec, PagePreset, PageSpec, PairwiseMethod,
                                   PosthocMethod, PreferenceColumnsSpec, PreferencesSpec, ProportionMethod,
                                   ReplicabilityMethod, RunsSpec, ScoresSource, Spec, Sphericity, StrictSpec,
                                   TestsSpec, corpus_level_default, installed_fonts, interval_level,
                                   power_range_message, rebuild_scores_source, register_format)
from sigreport.spec.sources import FORMATS, SourceFormat, source_metrics
from sigreport.spec.sources.helm import HelmSource
from sigreport.spec.sources.inspect_logs import InspectSource
from sigreport.spec.sources.lm_eval import LmEvalSource
from sigreport.spec.sources.table import TableSource
from sigreport.spec.sources.text import TEXT_METRICS, TextSource
from sigreport.spec.sources.trec import TrecSource
from sigreport.spec.yaml_loading import (_LOADERS, MAX_ALIAS_USES, MAX_DEPTH, MAX_KEYS, MAX_NODES, MAX_SPEC_BYTES,
                                         _parse_yaml)
