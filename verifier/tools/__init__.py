"""Code execution as a tool: SandboxFusion's `/run_code` (and `/run_jupyter`) and stateful
Python sessions, in the same jail, under the same limits and keys as the rewards.

`run_code.py` runs one program on a worker (both execution modes send it there, as they send
chunks); `sessions.py` keeps sessions (one jail each) on a host, `session_routing.py` reaches
that host from the API; `service.py` is what the routers call.
"""
