"""Multipart uploads: create, upload part (and copy), list, complete, abort."""
