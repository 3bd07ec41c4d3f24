"""The T5 relative bias page: settings and rules, the bias table editor, code snippets, notes and texts."""
