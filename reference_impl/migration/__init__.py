"""Incremental migration (sippy): fetch an object missing from a bucket from its source."""
