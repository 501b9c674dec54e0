"""The programs that run inside the jail (and its launcher, just before it): the sandbox's
inner side. The host side (back ends, cgroup, protocol, the factory) is the folder above.

Standard library only, and run as scripts with the jail's own Python: they import each other by
bare name (`import protocol`, `from linux import check`), because the jail gets them as plain
files, flat, in one directory: every module of this folder, and the two host modules they
import, `verifier/sandbox/protocol.py` (the framing both sides speak) and `verifier/lru.py`.
`verifier.sandbox.backend.jail_files` lists them; a new file here is shipped by being here.
Settings reach these programs as arguments (the launch spec, each request), never from the
service's settings model.
"""
