"""Shared test data for the training adapters."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def readme_items(n: int) -> list[dict[str, Any]]:
    """``n`` copies (ids q0..) of the README's custom-env item: a list env without splits."""
    return [
        {
            "id": f"q{i}",
            "story": "Ann put the ball in the box. Ann left. Bob moved the ball to the basket.",
            "question": "Where will Ann look for the ball?",
            "answer": "box",
            "candidates": ["box", "basket"],
            "order": 1,
        }
        for i in range(n)
    ]


def tiny_llama(path: Path) -> Path:
    """A real HF checkpoint at ``path``: a tiny random Llama (2 layers, width 32) with SmolLM2's
    tokenizer and chat template, so a training loop or an evaluation runs in seconds."""
    import torch
    import transformers
    from tomgym.agents.hf import smollm2_path

    torch.manual_seed(0)
    source, _ = smollm2_path()
    tokenizer = transformers.AutoTokenizer.from_pretrained(source)
    config = transformers.AutoConfig.from_pretrained(source)
    config.update(
        {
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "num_key_value_heads": 1,
            "head_dim": 16,
        }
    )
    transformers.AutoModelForCausalLM.from_config(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
