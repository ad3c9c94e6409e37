"""The management API's wire format: its response envelope and error table (`errors.yaml`)."""
