"""pressmark: crawl untrusted URLs safely and turn pages into citable, replayable evidence.

The top-level package stays light on purpose: importing ``pressmark`` pulls in no
network client, parser or browser driver. Each layer is its own subpackage
(``pressmark.egress``, ``pressmark.snapshot``, ``pressmark.store``,
``pressmark.fetch``, ``pressmark.render``, ``pressmark.markdown``,
``pressmark.crawl``) and is imported only when used.
"""

from pressmark._errors import PressmarkError
from pressmark._version import __version__

__all__ = ["PressmarkError", "__version__"]
