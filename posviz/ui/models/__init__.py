"""The real-models page: settings, the sides drawn and their sections, links to the scheme pages, and prose."""
