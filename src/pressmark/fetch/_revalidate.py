"""Which validators a plain attempt sends, and what a 304 to them confirms.

Validators belong to the plain attempt (seed ``000_84a069ce703bb28e``, decision 6): a
rendered snapshot has no response headers of its own. But under ``on-shell`` the plain
attempt that led to a render *had* validators, and they describe the very resource the
render started from. So a rendered snapshot that replaced a plain one keeps that plain
attempt's validators in its ``render_info`` (``plain_etag``, ``plain_last_modified``, and
``plain_url``, the URL that answered them), and the next fetch sends them: a trustworthy
304 then keeps the rendered snapshot as it is, with no render (a recrawl of an unchanged
site that holds rendered pages launches no browser). ``render="always"`` sends none.

A snapshot imported from another tool's archive (the ``import-foreign`` note) lends
none: nobody saw its body served with those validators, and a forged record pairing the
live ETag with other bytes would have the live 304 confirm them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pressmark._errors import PressmarkError
from pressmark.store._warc_import import FOREIGN_NOTE  # the note a foreign import carries

if TYPE_CHECKING:
    from pressmark.snapshot import Snapshot
    from pressmark.store import SnapshotStore

PLAIN_ETAG = "plain_etag"
PLAIN_LAST_MODIFIED = "plain_last_modified"
PLAIN_URL = "plain_url"

WIRE_LOOKBACK = 16
"""How many stored records back a plain snapshot is looked for behind a rendered head
that carries no validators (one stored by an older version beside its render)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Validators:
    """What a conditional request sends, for which URL, and what its 304 keeps."""

    etag: str | None
    last_modified: str | None
    url: str
    """The URL that answered them: only that URL's 304 confirms them."""
    keep: Snapshot
    """The stored snapshot a trustworthy 304 confirms (rendered, or the plain one)."""


def plain_validator_info(plain: Snapshot) -> tuple[tuple[str, str], ...]:
    """``render_info`` entries carrying ``plain``'s validators to the render it led to."""
    if plain.rendered or not (plain.etag or plain.last_modified):
        return ()
    info = [(PLAIN_URL, plain.url)]
    if plain.etag:
        info.append((PLAIN_ETAG, plain.etag))
    if plain.last_modified:
        info.append((PLAIN_LAST_MODIFIED, plain.last_modified))
    return tuple(info)


def validators_of(snapshot: Snapshot) -> Validators | None:
    """The validators a stored snapshot lends: its own (wire), its plain attempt's
    (rendered under ``on-shell``), or none (a foreign import: see the module docstring)."""
    if any(note.startswith(FOREIGN_NOTE) for note in snapshot.warnings):
        return None
    if not snapshot.rendered:
        if not (snapshot.etag or snapshot.last_modified):
            return None
        return Validators(etag=snapshot.etag, last_modified=snapshot.last_modified,
                          url=snapshot.url, keep=snapshot)
    info = dict(snapshot.render_info)
    url = info.get(PLAIN_URL)
    etag, modified = info.get(PLAIN_ETAG), info.get(PLAIN_LAST_MODIFIED)
    if not url or not (etag or modified):
        return None
    return Validators(etag=etag, last_modified=modified, url=url, keep=snapshot)


def revalidation_base(store: SnapshotStore, source_id: str) -> Validators | None:
    """The validators for the next plain attempt on ``source_id`` (blocking: a store read).

    The store's head lends its own, or its plain attempt's; a rendered head without them
    (stored before they were kept, or rendered under ``always``) defers to the newest
    plain snapshot before it, at most :data:`WIRE_LOOKBACK` records back, whose 304 then
    confirms that plain snapshot."""
    head = store.latest(source_id)
    if head is None:
        return None
    found = validators_of(head)
    if found is not None or not head.rendered:
        return found
    for ref in store.list(source_id)[:WIRE_LOOKBACK]:
        if ref.snapshot_sha256 == head.snapshot_sha256:
            continue
        try:
            candidate = store.get(source_id, ref.snapshot_sha256)
        except PressmarkError:
            continue  # pruned or damaged meanwhile: not a source of validators
        if not candidate.rendered and not candidate.not_modified:
            return validators_of(candidate)
    return None
