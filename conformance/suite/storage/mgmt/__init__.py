"""The management API's storage endpoints: buckets, account scoping, audit logs."""
