"""Compact asynchronous GRPO trainer whose rewards come from the verifier service.

Read in this order: config -> data -> engine -> algorithm -> learner -> pipeline -> run.
"""
