"""Runtime bindings (the workers R2 binding), reached through the bindings bridge protocol."""
