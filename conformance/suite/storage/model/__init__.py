"""The stateful model test of the store: random interleavings checked against a model."""
