"""adhd-evals: one catalog from the eval case files teams already wrote."""

__version__ = "0.1.0"
