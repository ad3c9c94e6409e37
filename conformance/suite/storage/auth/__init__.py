"""Request authentication: signatures, presigned URLs, tokens, payload integrity."""
