"""The real-models page: settings, cached views and figures, links to the scheme pages, and prose."""
