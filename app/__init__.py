"""Collective Lab: learn how GPUs communicate in distributed training.

`app.collectives` (the engine) and `app.costs` (the cost model) are plain Python + numpy and
import nothing from the web; `create_app` imports Flask only when it is called.
"""

from __future__ import annotations


def create_app(config: dict | None = None):
    """Build the Flask application (see `app.web.factory.create_app`)."""
    from .web.factory import create_app as _create_app

    return _create_app(config)
