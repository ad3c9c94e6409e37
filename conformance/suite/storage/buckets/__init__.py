"""Bucket operations: create, head, delete, location, encryption, ListBuckets."""
