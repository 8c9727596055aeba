"""Test doubles and factories shipped with pressmark, for our tests and for yours.

Only things that cannot run for real on a test machine are faked here: hostile
DNS (use :class:`pressmark.egress.StaticResolver`), connections to non-loopback
addresses (:class:`RecordingConnector` records and refuses them), and a browser
when a test is about the fetch layer's render policy (:class:`FakeRenderer`). A site is
real: :class:`StragglerSite` serves one on loopback whose two slow pages a crawl must not
wait on. :func:`damage_every_record` is bit rot on demand in either store format.
Names are loaded lazily so importing this module costs nothing.
"""

from __future__ import annotations

from pressmark._lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "RecordingConnector": "pressmark.testing._connector",
    "make_snapshot": "pressmark.testing._snapshots",
    "FakeRenderer": "pressmark.testing._renderer",
    "StragglerSite": "pressmark.testing._stragglers",
    "damage_every_record": "pressmark.testing._damage",
}

__all__ = ["FakeRenderer", "RecordingConnector", "StragglerSite", "damage_every_record",
           "make_snapshot"]


__getattr__ = lazy_exports(__name__, _EXPORTS, globals())
