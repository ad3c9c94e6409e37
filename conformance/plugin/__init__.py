"""The pytest plugin (`edge_conformance`) and its parts."""

# The pytest plugins, by entry-point name, that a suite run needs when the others installed are
# not autoloaded (PYTEST_DISABLE_PLUGIN_AUTOLOAD=1), as the project's break-checks and the
# mutation harness run it: xdist first (the plugin imports it, and pytest warns when it cannot
# rewrite a module already imported).
SUITE_PLUGINS = ("xdist", "edge_conformance", "timeout", "rerunfailures")
