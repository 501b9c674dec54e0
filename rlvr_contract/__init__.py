"""The contract between the verifier service and its clients: the wire models both sides import.

The server (`verifier/`) validates requests and writes responses with these models; the client
(`rl_client/`) builds requests and reads responses with the same ones, so the two cannot drift.
Pydantic and the standard library only: the client's wheel ships this package without the server.
"""
