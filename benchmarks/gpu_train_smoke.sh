#!/usr/bin/env bash
# A short real REINFORCE++ run (OpenRLHF + vLLM) on one CUDA GPU: run by hand when a GPU is
# available; no test calls it. Takes ~15-30 min on one H100 (most of it model loading).
set -euo pipefail

RUN=${RUN:-runs/gpu_smoke}
PY=${PY:-python3}

# 1. OpenRLHF with vLLM (pins its own CUDA torch; needs nvcc for flash-attn) and tomgym.
$PY -m pip install "openrlhf[vllm]==0.11.2"
$PY -m pip install -e ".[train]"

# The run: 64 prompts, 8 a batch, 1 epoch -> 8 REINFORCE++ steps, a checkpoint every 4 steps,
# then each checkpoint evaluated with vLLM on 32 validation items of the in-distribution
# ToM-HiToM-v0 (picking on the held-out O4 would spend it) and the best recorded in
# $RUN/best_checkpoint.json; then the held-out O4 evaluated on its own (step 5).
TRAIN=(tomgym train --backend openrlhf --model Qwen/Qwen2.5-0.5B-Instruct
  --train-env ToM-HiToM-v0 --eval-env ToM-HiToM-v0
  --preset paper-2507 --epochs 1 --n 64 --gpus 1 --save-steps 4 --eval-n 32 --out "$RUN")

# 2. Look before running: the exact command, the files it will write, the longest prompt.
"${TRAIN[@]}" --dry-run

# 3. The run.
"${TRAIN[@]}"

# 4. What to look at: rewards rising in TensorBoard, and the checkpoint table.
cat "$RUN/best_checkpoint.json"
echo "tensorboard --logdir $RUN/tensorboard"

# 5. Generalisation: the best checkpoint on the held-out 4th order, beside the base model.
BEST=$($PY -c "import json; print(json.load(open('$RUN/best_checkpoint.json'))['best']['path'])")
tomgym eval --agent "vllm:$BEST" --env ToM-HiToM-O4-v0 --n 100 --out "$RUN/heldout/best"
tomgym eval --agent vllm:Qwen/Qwen2.5-0.5B-Instruct --env ToM-HiToM-O4-v0 --n 100 \
  --out "$RUN/heldout/base"
tomgym leaderboard "$RUN/heldout/base" "$RUN/heldout/best" --out "$RUN/heldout/board"
