"""The sinusoidal page: settings, code snippets and prose (its figures: posviz.figures.sinusoidal)."""
