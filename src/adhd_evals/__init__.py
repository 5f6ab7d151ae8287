"""adhd-evals: one catalog from the eval case files teams already wrote."""

__version__ = "0.3.0.dev0"  # CHANGELOG.md: [Unreleased], headed for 0.3.0


def version_line() -> str:
    """What `adhd-evals --version` prints."""
    return f"adhd-evals {__version__}"
