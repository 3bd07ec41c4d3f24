"""Explanations shown on the pages, kept apart so the page scripts stay short."""
