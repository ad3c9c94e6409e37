"""The S3 protocol itself: addressing, HTTP and XML handling, unsupported operations."""
