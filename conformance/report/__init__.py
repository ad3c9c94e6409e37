"""results.json -> HTML compliance report, matrix across targets, and run-to-run diff."""
