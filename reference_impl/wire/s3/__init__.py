"""S3's wire format: errors (`errors.yaml`), XML in and out (`templates/`), keys and bodies."""
