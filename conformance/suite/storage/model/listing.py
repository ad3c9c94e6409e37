"""The listing step: ListObjects V1 or V2, paged with a small max-keys, under a prefix, with or
without the delimiter, checked page by page and as a whole against the model's listing.

What the model does not assert: the continuation token's form, and (for V1 without a
delimiter) NextMarker, which S3 leaves out; order is UTF-8 byte order (S3's, SHOULD level).
"""

from __future__ import annotations

import itertools

from hypothesis import strategies as st
from hypothesis.stateful import rule

from conformance.suite.storage.model import ops
from conformance.suite.storage.model.base import ModelBase
from conformance.suite.storage.model.objects import BUCKET, DATA
from conformance.suite.storage.model.store import listing

PREFIXES = st.sampled_from([str(p) for p in DATA["prefixes"]])
MAX_KEYS = st.sampled_from([int(n) for n in DATA["max_keys"]])
START_AFTER = st.sampled_from(["", "a", "a/b", "b", "ü"])


def utf8_ordered(names: list[str]) -> bool:
    encoded = [name.encode("utf-8") for name in names]
    return all(a < b for a, b in itertools.pairwise(encoded))


class ListingSteps(ModelBase):
    @rule(
        b=BUCKET,
        version=st.sampled_from([2, 1]),
        prefix=PREFIXES,
        delimiter=st.sampled_from([None, "/"]),
        max_keys=MAX_KEYS,
        start_after=START_AFTER,
    )
    def list_objects(
        self,
        b: int,
        version: int,
        prefix: str,
        delimiter: str | None,
        max_keys: int,
        start_after: str,
    ) -> None:
        name = self.bucket(b)
        start_after = start_after if version == 2 else ""
        params = f"prefix={prefix!r} delimiter={delimiter!r} max-keys={max_keys}"
        params += f" start-after={start_after!r}" if start_after else ""
        what = f"ListObjects{'V2' if version == 2 else ''} {self.trace.short(name)} {params}"
        self.begin(what)
        exists = self.store.exists(name)
        keys = list(self.store.buckets[name].objects) if exists else []
        want = listing(keys, prefix, delimiter, start_after).entries()
        seen: list[tuple[str, bool]] = []
        cursor: str | None = None
        for number in range(1, len(want) + 3):
            reply = self.send(
                f"GET {self.trace.short(name)} page {number}",
                ops.list_page,
                *(self.wire, name, version, prefix, delimiter, max_keys, cursor, start_after),
            )
            if self.missing_bucket(reply, name, what):
                return
            self.check.status(reply, {200}, set(), "list-max-keys", what)
            page = ops.parse_page(reply)
            self.check.expect(page is not None, "list-max-keys", f"{what}: no ListBucketResult")
            assert page is not None
            entries = [(k, False) for k in page.keys] + [(p, True) for p in page.prefixes]
            count = len(entries)
            self.check.expect(
                count <= max_keys, "list-max-keys", f"{what}: page {number} has {count} entries"
            )
            if version == 2:
                self.check.expect(
                    page.key_count == count,
                    "list-key-count",
                    f"{what}: KeyCount {page.key_count}, {count} entries",
                )
            for kind, items in (("keys", page.keys), ("common prefixes", page.prefixes)):
                ordered = utf8_ordered(items)
                self.check.expect(
                    ordered,
                    "list-order",
                    f"{what}: {kind} of page {number} not in UTF-8 order: {items!r}",
                )
            seen += sorted(entries, key=lambda e: e[0].encode("utf-8"))
            rest = len(want) - len(seen)
            if not page.truncated:
                break
            self.check.expect(
                rest > 0 or len(seen) > len(want),
                "list-no-cursor-at-end",
                f"{what}: page {number} truncated with nothing left",
            )
            cursor = self.next_cursor(page, version, delimiter, what)
        else:
            self.check.fail(
                "list-continuation", f"{what}: still truncated after {len(want) + 2} pages"
            )
        paged = number > 1
        self.compare_listing(name, prefix, delimiter, start_after, want, seen, version, paged, what)

    def next_cursor(self, page: ops.Page, version: int, delimiter: str | None, what: str) -> str:
        if version == 2 or delimiter:
            check = "list-continuation" if version == 2 else "list-v1-next-marker"
            self.check.expect(bool(page.token), check, f"{what}: truncated page without a cursor")
            return page.token or ""
        last = page.keys + page.prefixes
        self.check.expect(bool(last), "list-max-keys", f"{what}: a truncated empty page")
        return max(last, key=lambda k: k.encode("utf-8"))

    def compare_listing(
        self,
        name: str,
        prefix: str,
        delimiter: str | None,
        start_after: str,
        want: list[tuple[str, bool]],
        seen: list[tuple[str, bool]],
        version: int,
        paged: bool,
        what: str,
    ) -> None:
        dupes = {e for e in seen if seen.count(e) > 1}
        if dupes:
            check = "list-common-prefix-once" if any(p for _, p in dupes) else "list-continuation"
            self.check.fail(check, f"{what}: listed more than once: {sorted(dupes)!r}")
        for entry, is_prefix in sorted(set(seen) - set(want)):
            rest = entry[len(prefix) :]
            if not entry.startswith(prefix):
                check = "list-prefix"
            elif is_prefix or (delimiter and delimiter in rest):
                check = "list-delimiter"
            elif start_after and entry.encode() <= start_after.encode():
                check = "list-start-after"
            else:
                check = self.removed_check(name, entry, "put")
            kind = "common prefix" if is_prefix else "key"
            self.check.fail(check, f"{what}: lists {kind} {entry!r}, which the model does not")
        for entry, is_prefix in sorted(set(want) - set(seen)):
            if is_prefix:
                self.check.fail("list-delimiter", f"{what}: lacks common prefix {entry!r}")
            self.check.fail(
                self.lacking_check(version, prefix, start_after, paged),
                f"{what}: lacks key {entry!r}",
            )
        self.check.expect(
            seen == want, "list-order", f"{what}: entries not in UTF-8 order across pages"
        )
        held = self.store.buckets[name].objects if self.store.exists(name) else {}
        self.check.reached(*parameters_tested(list(held), prefix, start_after, want))

    @staticmethod
    def lacking_check(version: int, prefix: str, start_after: str, paged: bool) -> str:
        """The check a key missing from a listing breaks (the full listing of the bucket,
        checked after every step, already showed the key there)."""
        if paged:
            return "list-continuation" if version == 2 else "list-max-keys"
        if start_after:
            return "list-start-after"
        return "list-prefix" if prefix else "list-delimiter"


def parameters_tested(
    keys: list[str], prefix: str, start_after: str, want: list[tuple[str, bool]]
) -> list[str]:
    """The checks of the parameters a listing that matched the model really tested: only
    those a target ignoring the parameter would have failed. A prefix over a bucket whose keys
    all start with it, a delimiter that grouped nothing, a StartAfter before every key list
    the same whether honoured or not."""
    under = [k for k in keys if k.startswith(prefix)]
    grouped = any(is_prefix for _, is_prefix in want)
    tested = {
        "list-prefix": any(not k.startswith(prefix) for k in keys),
        "list-delimiter": grouped,
        "list-common-prefix-once": grouped,
        "list-start-after": bool(start_after)
        and any(k.encode("utf-8") <= start_after.encode("utf-8") for k in under),
    }
    return [check for check, used in tested.items() if used]
