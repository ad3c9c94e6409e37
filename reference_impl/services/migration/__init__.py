"""Incremental migration (sippy): fetch an object missing from a bucket from its source.

A service: S3 GetObject (and so the public surface) calls the miss hook; the mgmt Sippy API
(mgmt/sippy.py, body shapes in mgmt/sippy_config.py) stores the configuration it reads.
"""
