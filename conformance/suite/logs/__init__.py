"""Area A: log custom fields through the rules API, and log push jobs."""
