"""Every generated env serves the same episodes as when these fingerprints were taken: items,
observations, reset infos and step results for gold, wrong, two-candidate and untagged answers.

Speed work on the generator, the renderer, the prompt and the verifier must leave all of it
unchanged; a deliberate change to what an env serves updates a fingerprint here, in the same
commit that says why.
"""

from __future__ import annotations

import hashlib
import json

import pytest

import tomgym
from tomgym.rewards import gold_response

ITEMS = 20
GENERATED_IDS = [s.id for s in tomgym.list_envs() if s.procedural and s.family in ("hitom", "tomi")]


def fingerprint(env_id: str) -> str:
    digest = hashlib.sha256()
    for kwargs in ({}, {"prefill_think": True, "reward": "tomrl"}):
        env = tomgym.make(env_id, **kwargs)
        for i in range(ITEMS):
            observation, info = env.reset(options={"index": i})
            item = env.unwrapped.current_item
            digest.update(json.dumps(item.model_dump(mode="json"), sort_keys=True).encode())
            digest.update(observation.encode())
            digest.update(json.dumps(info, sort_keys=True, default=str).encode())
            candidates = item.candidates
            responses = [
                gold_response(item, env.unwrapped.prefill),
                "no tags " + item.gold_text,
                f"<think>x</think><answer>{candidates[i % len(candidates)]}</answer>",
                f"<think>x</think><answer>{' and '.join(candidates[:2])}</answer>",
                f"<answer>The {item.gold_text.upper()}</answer>",
            ]
            for response in responses:
                env.reset(options={"index": i})
                step = env.step(response)
                digest.update(json.dumps(step, sort_keys=True, default=str).encode())
    return digest.hexdigest()


FINGERPRINTS = {  # taken at dcf6424; Hi-ToM IDs retaken when the prompt stated outsiders' trust
    "ToM-HiToM-v0": "148073edea9e8bef2495a0fed9c7614355ec9ed97f233d07807ffd47d869acba",
    "ToM-HiToM-O0-v0": "745280773b6c1a69c4d251b604e81264f6d8f08cba2399d970769c098df62923",
    "ToM-HiToM-O1-v0": "64ad338f1d03d5cadd34d7a407070a151d6e719c3e0178dce4e3e58b0970a3e8",
    "ToM-HiToM-O2-v0": "ccd8af4195845eb424de7fb21fced280dddcfc9f2c2838bd653bd347b81dbb52",
    "ToM-HiToM-O3-v0": "ab896507e2e8ef64fc316835399ab07f6c21a0885943e7064c7ba4a4208f191d",
    "ToM-HiToM-O4-v0": "2374b7b00e5684f0fe7334600f1cd2f4d12afad888560d6643c4373c8815fdc3",
    "ToM-HiToM-O2-NewVocab-v0": "4d8ab8056e600b13911f6841bb0e19d6b4619bb43d1a91349ddaeb0afc33fb27",
    "ToM-HiToM-O2-Paraphrase-v0": (
        "d43a34360c008830a49b3acd0caff4358be6b4f5dceb047ea47054995e4f5f92"
    ),
    "ToM-HiToM-O2-Noisy-v0": "d576791ea49e98d345df5be69c0594a379785e91cd0dcc8a7946d0f30426b75a",
    "ToM-HiToM-O1-Debiased-v0": "3e0e683afa314225d6e9d69423082c3875456e10b1730d6f9bdc60d1789e041e",
    "ToM-HiToM-O2-Debiased-v0": "15266ddaf8826f3903cd0d938b1ff875dff8fc5cc53b18c851383c42aa99b854",
    "ToM-HiToM-O3-Debiased-v0": "e8c6b01ddda86bdf78a1b089a358b8fa8dd35c3673421d4ecf5e6a3e6d0df7a2",
    "ToM-HiToM-O4-Debiased-v0": "cd9c10e12f5d36a31d6b20f27a9663808f5f5b092c5f4e17a9da1dfe0cc5fb1c",
    # v1: the answer's place on the object's path is balanced too (new items, new IDs)
    "ToM-HiToM-O1-Debiased-v1": "90c54e838d4936197b078156519101f4cdd57e33db375d9fa6cfdd830ac5011b",
    "ToM-HiToM-O2-Debiased-v1": "b9074ffd5589fc973e985304aeb660eb652d8e63e695bc87a445275d55981c3c",
    "ToM-HiToM-O3-Debiased-v1": "b1c627e6dde9e7489cfb4e84501926817e0dff394f76f8eba56bc40a31a15208",
    "ToM-HiToM-O4-Debiased-v1": "7ad25501adde371d67509cbeac85745eece3c124c66bf0c2edf4183dba716550",
    "ToM-ToMi-v0": "7fb88924cd28ab0ef7d0d6ddf55a74265daaea26c1f16b7f4976def19d123e25",
    "ToM-ToMi-NewVocab-v0": "6e7015117000c0d6e52197e3976fc83ba51ccc48ac66780b1cceff3d88ca3609",
    "ToM-ToMi-Paraphrase-v0": "83e7b0d73009d4fe28eb2529494c75e5aef820a360f950685578ee2ebe81bd6a",
    "ToM-ToMi-Debiased-v0": "c1722d697475f97f31ce4e403d7999138f9817cc4105e2f2a0d59f8e6468370b",
}


def test_every_generated_env_is_fingerprinted() -> None:
    assert sorted(FINGERPRINTS) == sorted(GENERATED_IDS)


@pytest.mark.parametrize("env_id", GENERATED_IDS)
def test_episodes_unchanged(env_id: str) -> None:
    assert fingerprint(env_id) == FINGERPRINTS[env_id]
