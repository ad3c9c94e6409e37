"""Fixed defect (a review of 9788910), kept as a regression test:
the published sensitivity line prints "core 0%" for an area whose only mutant was
never judged (a timeout / start failure: `not_judged` 1, killed 0, survived 0): the line reads
as "the suite kills none of core's mutants" when no mutant of core was decided at all. The
line also gives no per-area count, so "migration 67%" (3 mutants) reads like "s3 64%" (34).

The published figure held such an area (the seed-17 sample's core) until the full run of core
(2026-11-27) judged one of its mutants; the case now adds one to the published figure's areas,
as the sample published it, so the phrase is still checked against the real figure's others."""

from __future__ import annotations

import json
from importlib import resources

from conformance.report.sensitivity import parse, published

UNJUDGED = {"area": "unjudged-area", "mutants": 1, "killed": 0, "survived": 0, "equivalent": 0,
            "out_of_spec": 0, "timeouts": 0, "start_failures": 0, "collection_errors": 0,
            "other_exits": 1, "harness": 0, "score": 0.0}  # fmt: skip


def test_an_area_with_no_judged_mutant_does_not_read_zero_percent() -> None:
    assert published() is not None
    text = (resources.files("conformance.report") / "sensitivity.json").read_text("utf-8")
    doc = json.loads(text)
    doc["areas"].append(dict(UNJUDGED))
    found = parse(doc)
    unjudged = [
        a.area
        for a in found.areas
        if a.mutants - a.equivalent - a.out_of_spec - a.not_judged == 0 and a.killed == 0
    ]
    assert "unjudged-area" in unjudged
    phrase = found.phrase()
    assert "unjudged-area" in phrase, phrase
    assert all(f"{area} 0%" not in phrase for area in unjudged), phrase


def test_harness_mutants_are_named_but_never_scored_and_no_rounding_up_to_100() -> None:
    """A mutant that does not compile is no mutant (bench/mutation/validity.py): out of the
    fraction, like the score the harness computes, but named. 461 of 463 is 99.6%, printed 99%:
    a "100%" would read as every mutant killed."""
    row = {"area": "x", "mutants": 700, "killed": 461, "survived": 1, "not_executed": 1,
           "equivalent": 65, "out_of_spec": 171, "timeouts": 0, "start_failures": 0,
           "collection_errors": 0, "other_exits": 0, "harness": 1, "score": 99.6}  # fmt: skip
    doc = {"measured": "2026-11-29", "commit": "abc1234", "scope": "full run", "full_run": True,
           "mutants": 700, "areas": [row]}  # fmt: skip
    phrase = parse(doc).areas[0].phrase()
    assert phrase.startswith("x 461 of 463 killed"), phrase
    assert "1 no valid mutant (harness)" in phrase and phrase.endswith("(99%)"), phrase


def test_a_percent_a_hair_short_of_100_never_reads_100() -> None:
    """publish.py rounds the score to one decimal (99.95 -> 100.0): the % comes from the counts."""
    row = {"area": "y", "mutants": 2000, "killed": 1999, "survived": 1, "equivalent": 0,
           "out_of_spec": 0, "harness": 0, "score": 100.0}  # fmt: skip
    doc = {"measured": "2026-11-29", "commit": "abc1234", "scope": "full run", "full_run": True,
           "mutants": 2000, "areas": [row]}  # fmt: skip
    assert parse(doc).areas[0].phrase() == "y 1999 of 2000 killed (99%)"
