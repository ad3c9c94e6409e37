"""Migration (sippy) from a source bucket: configuration, fetches, races."""
