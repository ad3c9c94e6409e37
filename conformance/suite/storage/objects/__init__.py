"""Object operations: PutObject, GetObject, CopyObject, DeleteObject(s), object metadata."""
