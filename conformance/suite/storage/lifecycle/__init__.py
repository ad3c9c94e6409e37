"""Object lifecycle rules: configuration and their effects."""
