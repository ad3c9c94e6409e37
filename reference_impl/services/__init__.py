"""Services below the surfaces: the audit log, the custom domain registry, object lifecycles
and the migration (sippy) fetch; what more than one surface runs, so no surface imports another."""
