"""The home page's prose (its tables: posviz.figures.home)."""
