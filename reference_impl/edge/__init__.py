"""The edge surface: the zone's traffic, its http_requests log records and their delivery."""
