"""Conditional requests: If-Match, If-None-Match and date conditions on reads and writes."""
