"""The item model rejects bad items with an error naming the item and the field."""

from __future__ import annotations

import pytest

from tomgym.items import ItemError, ToMItem, validate_item, validate_items

GOOD = {"id": "a", "story": "s", "question": "q", "answer": "x", "candidates": ["x", "y"]}


def test_good_item() -> None:
    item = validate_item(GOOD)
    assert isinstance(item, ToMItem) and item.candidates == ("x", "y")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"answer": "z"}, "not among the candidates"),
        ({"story": ""}, "field 'story'"),
        ({"answer": "  "}, "field 'answer'"),
        ({"order": -5}, "field 'order'"),
        ({"colour": "red"}, "field 'colour'"),
        ({"answer_type": "essay"}, "field 'answer_type'"),
        ({"candidates": ["x", "x"]}, "duplicates"),
    ],
)
def test_bad_items_name_item_and_field(change: dict[str, object], field: str) -> None:
    with pytest.raises(ItemError) as info:
        validate_item({**GOOD, **change}, where="mydata.jsonl record 7")
    message = str(info.value)
    assert "mydata.jsonl record 7" in message and "'a'" in message and field in message


def test_validate_items_is_all_or_nothing_and_ids_unique() -> None:
    with pytest.raises(ItemError, match="record 1"):
        validate_items([GOOD, {**GOOD, "id": "b", "answer": ""}])
    with pytest.raises(ItemError, match="duplicate item id 'a'"):
        validate_items([GOOD, GOOD])
