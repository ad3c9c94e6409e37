"""Wire formats more than one surface speaks, kept below every surface.

Layers: tests/reference/test_reference_import_layers.py.

`s3/`: S3's error table and XML bodies, its key decoding and body reader, used by the S3, public
and bindings surfaces and by the lifecycle and migration services. `mgmt/`: the management
API's JSON envelope and error table, used by the mgmt surface and the services it configures.
"""
