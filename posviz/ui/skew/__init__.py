"""The Music Transformer skew page: settings, cached views and figures, snippets, texts."""
