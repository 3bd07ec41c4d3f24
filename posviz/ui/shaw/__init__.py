"""The Shaw relative positions page: settings, cached views and figures, snippets, texts."""
