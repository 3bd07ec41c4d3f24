"""The home page: why attention needs position, and the map of schemes."""
