"""The jail's isolation mechanism, run inside it (and its launcher, just before it): namespaces,
privileges, seccomp, the supervisor and its runners, each program's fork and watch. The host
side (back ends, cgroup, the framing, the factory) is the folder above; what runs Python tests
inside the jail is `harness/` beside this one.

Standard library only, and run as scripts with the jail's own Python: they import each other by
bare name (`import worker_jail`, `from linux import check`), because the jail gets them as plain
files, flat, in one directory: every module of this folder and of `harness/`, and the two host
modules they import, `verifier/sandbox/worker_jail.py` (the framing both sides speak) and
`verifier/service/lru.py`. `verifier.sandbox.backend.jail_files` lists them; a new file here or in
`harness/` is shipped by being there. Settings reach these programs as arguments (the launch
spec, each request), never from the service's settings model.
"""
