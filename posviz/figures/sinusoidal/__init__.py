"""The sinusoidal page's figures (and a learned absolute table's, for contrast), by concept.

:mod:`~posviz.figures.sinusoidal.table`: the table itself, its waves and its two layouts;
:mod:`~posviz.figures.sinusoidal.similarity`: dot products and cosines of its rows.
"""
