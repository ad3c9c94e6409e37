"""The runtime binding (the workers R2 binding) as a Python API, and its HTTP JSON bridge.

`bucket.BindingBucket` mirrors the binding's methods over the shared storage engine, so that an
object put through the binding reads back through the S3 API and the other way round. The
bridge (`app.py`) is how the suite reaches it: the suite never imports the reference.
"""
