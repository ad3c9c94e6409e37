"""The suite's domain model: the rule catalog, the targets and a target's known failures.

Plain data and its validation, with no pytest in it, so that the CLI, the report, the safety
layer and the pytest plugin (`conformance.plugin`, which only wires these into pytest) all
build on it without importing one another.
"""
