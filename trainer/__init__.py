"""Compact asynchronous GRPO trainer whose rewards come from the verifier service.

Read in this order: config -> data -> types -> hf_engine -> algorithm -> logprobs -> learner ->
pipeline -> evaluation -> loop (whose `train_loop` is one training step, top to bottom) -> run
(a run assembled from its config); rewards is the verifier's side, through the client.
"""
