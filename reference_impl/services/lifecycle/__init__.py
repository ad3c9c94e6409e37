"""Object lifecycles: configuration (S3 XML) and the applier, which the S3, mgmt and bindings
surfaces share (the clock is storage/clock.py; its admin route mgmt/clock_admin.py)."""
