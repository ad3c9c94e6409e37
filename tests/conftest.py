"""Project tests: pytester drives the plugin in throw-away pytest runs."""

pytest_plugins = ["pytester"]
