"""A tiny module for the mutation harness's tests: lines whose execution a test can steer
(which line runs depends on `state`), so coverage records and plans can be checked exactly."""

MODULE = "reference_impl/m.py"
SOURCE = """\
def f(state):
    if state is None:
        return 1
    total = (state +
             2)
    return total if total > 3 else 4
"""
