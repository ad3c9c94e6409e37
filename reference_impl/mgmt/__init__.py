"""Management API surface of the reference: zone rulesets (log custom fields), log push jobs."""
