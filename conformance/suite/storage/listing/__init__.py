"""Object listing: ListObjects / ListObjectsV2 parameters, encoding and errors."""
