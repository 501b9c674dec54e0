"""The service around the reward kinds: admission and fan-out of a batch (verification.py), what
a request may cost (budget.py), de-duplication and the result cache (cache.py), the one function
every back end runs on a chunk (chunk.py), jobs and their records (jobs.py, job_records.py), and
the low utilities every layer uses: the killable deadline helper (deadline.py), logs, metrics and
a bounded LRU (lru.py, also shipped into the jail).
"""
