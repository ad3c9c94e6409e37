"""Runs at the start of every fresh interpreter of a mutant's test command (suite_cmd puts this
folder first on PYTHONPATH): the class cosmic-ray's ExceptionReplacer writes into a mutated
`except` clause, in builtins, as cosmic-ray's own runner provides it. Without it the first
exception reaching that handler is a NameError, not the exception the mutant lets through."""

import builtins

try:
    from cosmic_ray.exceptions import CosmicRayTestingException
except ImportError:  # a bare interpreter of the command: the same meaning, a class no code raises

    class CosmicRayTestingException(Exception):  # type: ignore[no-redef]
        """Raised by nothing: a handler naming it catches nothing."""


builtins.CosmicRayTestingException = CosmicRayTestingException  # type: ignore[attr-defined]
