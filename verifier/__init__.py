"""Verifier-as-a-service: rewards for RL with verifiable rewards (math answers, code tests)."""

__version__ = "0.1.0"
