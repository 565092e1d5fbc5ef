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
GENERATED_IDS = [
    s.id for s in tomgym.list_envs() if s.procedural and s.family in ("hitom", "tomi")
]


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


FINGERPRINTS = {  # taken at dcf6424, before the speed work of 2026-11-22
    "ToM-HiToM-v0": "75b79c74112fe341f7b6f45925cb8ec4994df1bd5777c921120169d7a5355992",
    "ToM-HiToM-O0-v0": "8f8fd4919d8636f4500559222a955eb9999ff65eb363846900039c690ca2582f",
    "ToM-HiToM-O1-v0": "07e8d931a57ef0103b5ff9d52e7e1c8358bffe71ee27ccfc66d115d7c76a909d",
    "ToM-HiToM-O2-v0": "bdaede2871001aa34be51639c1c9b203f466d15318fbb20a18df4bf9d29b8a95",
    "ToM-HiToM-O3-v0": "15bd27492de7726aa2c244ddfaeb8549abfdae15f77971615a92c74c20963ca9",
    "ToM-HiToM-O4-v0": "cd05d08531294ff0882ca271e915eebe37bfe15a3bfdfd34ba372ba97d74328d",
    "ToM-HiToM-O2-NewVocab-v0": "96dc46794c628cc7e8f4e487abc01e97a006b2c6acfc032f0c0e3c7c5cdcdffa",
    "ToM-HiToM-O2-Paraphrase-v0": (
        "5d5eb85226090f67c678f2929e5926c37b4174cc7d44fe99f8f9c63b6c5f439c"
    ),
    "ToM-HiToM-O2-Noisy-v0": "df9ff57b6138ee7dfe2a5c2845a5176d1bd2c80b982a7233db79249873fbd8cb",
    "ToM-HiToM-O1-Debiased-v0": "8b64c8650de44d7ad68c7d2ce6de04bdf3beb54c564460aad13d78ff39fa241a",
    "ToM-HiToM-O2-Debiased-v0": "18a3221965bd13163cb0046ae45818c46e88ca794a8e49a8277595dac684615c",
    "ToM-HiToM-O3-Debiased-v0": "a46262b5cbe417f2e14ad1bc6e40fa01dc0345a2f5c2e2c01db11ce590931179",
    "ToM-HiToM-O4-Debiased-v0": "04c00315365f33fbf9f0868d6c94f1f60c01874efbd39a0616f6ac9e115bb762",
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
