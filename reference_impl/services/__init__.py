"""Services below the surfaces: the audit log and the custom domain registry every surface uses."""
