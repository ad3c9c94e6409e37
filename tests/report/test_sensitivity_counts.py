"""Fixed defect (a review of 9788910), kept as a regression test:
the published sensitivity line prints "core 0%" for an area whose only mutant was
never judged (a timeout / start failure: `not_judged` 1, killed 0, survived 0): the line reads
as "the suite kills none of core's mutants" when no mutant of core was decided at all. The
line also gives no per-area count, so "migration 67%" (3 mutants) reads like "s3 64%" (34)."""

from __future__ import annotations

from conformance.report.sensitivity import published


def test_an_area_with_no_judged_mutant_does_not_read_zero_percent() -> None:
    found = published()
    assert found is not None
    unjudged = [
        a.area
        for a in found.areas
        if a.mutants - a.equivalent - a.out_of_spec - a.not_judged == 0 and a.killed == 0
    ]
    assert unjudged, "the published figure has no such area any more"
    phrase = found.phrase()
    assert all(f"{area} 0%" not in phrase for area in unjudged), phrase
