"""Bucket CORS: configuration, preflight matching and response headers."""
