"""Running a plan: the runner walks the DAG and consults the cache; an executor decides where each
node's function runs (serial, worker processes, or a Dask cluster: all give the same bytes)."""

from sigreport.execute.cache import Cache, CacheError
from sigreport.execute.runner import Executor, Progress, SerialExecutor, run_plan

__all__ = ["Cache", "CacheError", "Executor", "Progress", "SerialExecutor", "run_plan"]
