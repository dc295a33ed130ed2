"""Running a plan: the runner walks the DAG; an executor decides where each node's function runs."""

from sigreport.execute.runner import Progress, SerialExecutor, run_plan

__all__ = ["Progress", "SerialExecutor", "run_plan"]
