"""The ``pressmark`` command line.

Sub-commands live in their own modules and are imported only when invoked, so
``pressmark --help`` stays fast and does not import the browser driver.
"""

from pressmark.cli._main import main

__all__ = ["main"]
