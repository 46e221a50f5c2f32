"""How a run is drawn, computed on the server: where ranks sit, the palette, the step-0 picture.

Pure Python, below the web layer (no Flask): the topology geometry the lab's views and the
embed's server-rendered first picture share (`geometry`), the colours both use (`palette`), and
the picture of a run's initial state as SVG (`step0`).
"""

from .geometry import TREE_ASPECT, geometry

__all__ = ["TREE_ASPECT", "geometry"]
