"""Conformance suite for the edge-cloud interfaces (logs, gateway, storage)."""

__version__ = "0.1.0"
