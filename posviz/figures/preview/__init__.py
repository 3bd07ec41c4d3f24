"""A still picture of a figure, drawn from its spec in SVG: shown while Plotly's code loads.

A browser's first visit to a page with charts waits for Plotly.js (4.7 MB of
JavaScript) to load, compile and draw: about two seconds in Chromium, during
which the page would show empty boxes. :func:`preview` draws the same figure
(heatmaps, lines, markers, bars, text, shapes, annotations, colour bars,
legends, titles) as two SVG images that CSS lays over that box until the
interactive chart replaces it.

The box's width is the browser's, unknown here: the figure's margins are fixed
pixels and its plot area takes the rest, as Plotly lays it out. So the preview
is two layers (:class:`Preview`):

- ``ink``, drawn to exactly the plot area (CSS sizes it, ``calc(...)``): heatmap
  images, lines, markers, bars and shapes, in a coordinate box that stretches
  with the width (strokes keep their width: ``non-scaling-stroke``);
- ``text``, the whole figure: every label placed at a fraction of the width
  plus a pixel offset (``x="f%" dx="px"``), so it lands where the plot area puts it.

Margins follow Plotly's automatic margins approximately (label widths are
estimated, the preview's font is the system's): a preview may sit a few pixels
off the chart that replaces it, never elsewhere. A figure with features the
preview does not draw (locked aspect ratios, sliders, 3-D, ...) gets ``None``:
the page shows its plain placeholder instead.

No streamlit here; plotly's spec format only (JSON-ready dicts, arrays as
``{"dtype", "bdata", "shape"}`` or lists).
"""

from posviz.figures.preview.draw import preview
from posviz.figures.preview.model import Preview, colormap, nice_ticks

__all__ = ["Preview", "colormap", "nice_ticks", "preview"]
