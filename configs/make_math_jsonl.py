"""Write GSM8K as a math prompt JSONL for the trainer (needs `pip install datasets`).

    python configs/make_math_jsonl.py data/gsm8k_train.jsonl [split]

Each line: {"prompt": question, "answer": final number}, scored by the verifier's math checker.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(out: str, split: str = "train") -> None:
    from datasets import load_dataset

    rows = load_dataset("openai/gsm8k", "main", split=split)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w") as file:
        for row in rows:
            answer = row["answer"].split("####")[-1].strip().replace(",", "")
            file.write(json.dumps({"prompt": row["question"], "answer": answer}) + "\n")
    print(f"{len(rows)} prompts -> {out}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
