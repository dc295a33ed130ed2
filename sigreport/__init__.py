"""sigreport: significance reports for comparing systems, from one YAML spec."""

__version__ = "0.1.0"
