"""Object lifecycles: configuration (XML), the moving clock and the applier."""
