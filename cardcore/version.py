"""The cardcore version, recorded in every log header."""

__version__ = "0.1.0"
