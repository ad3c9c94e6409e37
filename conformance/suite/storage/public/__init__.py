"""Public (r2.dev and custom domain) reads of a bucket."""
