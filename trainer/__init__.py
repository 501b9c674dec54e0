"""Compact asynchronous GRPO trainer whose rewards come from the verifier service.

Read in this order: config -> data -> types -> hf_engine -> algorithm -> logprobs -> learner ->
tool_rollout -> pipeline -> evaluation -> loop (whose `train_loop` is one training step, top to
bottom) -> run (a run assembled from its config); rewards and code_tool are the verifier's side
(rewards, and the sessions tool rollouts run their code in), through the client.
"""
