"""``python -m pressmark`` runs the command line."""

from pressmark.cli import run

run()
