"""Analysis results: typed records (:mod:`.records`), the run's collection (:mod:`.collection`) and the
results.json contract (:mod:`.io`)."""

from sigreport.results.collection import MetricInfo, Results
from sigreport.results.io import from_json, read, to_json
from sigreport.results.records import ConfidenceInterval, Record

__all__ = ["ConfidenceInterval", "MetricInfo", "Record", "Results", "from_json", "read", "to_json"]
