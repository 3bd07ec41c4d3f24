"""The compare page: every compared scheme of the registry on one toy sequence."""
