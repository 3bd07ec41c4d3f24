"""The T5 relative bias page: settings, cached views and figures, snippets, texts."""
